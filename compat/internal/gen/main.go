// Command gen writes test vectors computed by go-ethereum: for each of a few
// dozen key sets of varied shapes, the pairs, the root and the committed
// nodes. The stacktrie module's tests read them to check stacktrie without
// depending on go-ethereum. Run it through go generate in the compat folder,
// which writes to ../testdata/geth:
//
//	go generate ./...
//
// The inputs come from fixed seeds, so a run rewrites the same files unless
// the cases or go-ethereum change. The generator owns the *.json files of its
// output folder: it removes those that it no longer writes.
//
// Each case is one file, <name>.json, holding one object:
//
//	{
//	  "name":   "random32-n16",
//	  "description": "what the case covers",
//	  "oracle": "stacktrie" or "trie",
//	  "pairs":  [{"key": "0x…", "value": "0x…"}, …],
//	  "items":  ["0x…", …],
//	  "root":   "0x…",
//	  "nodes":  [{"path": "0a1f", "hash": "0x…", "blob": "0x…"}, …]
//	}
//
// Byte strings are 0x-prefixed lowercase hex ("0x" is empty). pairs are in
// ascending key order, as a stack trie takes them; keys may be empty or
// prefixes of other keys only in "trie" cases. items is present only for
// DeriveSha cases: the encoded list in index order, of which pairs holds
// the trie form (RLP of index i to items[i]). root is the trie root.
// nodes are the committed nodes sorted by path: every node whose RLP is 32
// bytes or longer, and the root (path "") whatever its size; embedded nodes
// are not listed. path has one hex digit per nibble. With oracle
// "stacktrie" they are what go-ethereum's StackTrie passes to its callback,
// checked to equal the ordinary trie's commit; with "trie", which is used
// when the StackTrie cannot take the keys, what trie.Trie.Commit returns.
package main

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/ethereum/go-ethereum/common"

	"github.com/stacktrie/stacktrie/compat/internal/trietest"
)

// genSeed seeds every case; changing it changes every file.
const genSeed = 20260101

func main() {
	out := flag.String("out", "../testdata/geth", "folder to write the vectors to")
	flag.Parse()
	if err := run(*out); err != nil {
		log.Fatal(err)
	}
}

// run writes every case to dir and removes the vectors of cases it no
// longer has.
func run(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	written := make(map[string]bool)
	for _, c := range cases() {
		v, err := c.vector()
		if err != nil {
			return fmt.Errorf("case %s: %w", c.name, err)
		}
		data, err := json.MarshalIndent(v, "", "\t")
		if err != nil {
			return err
		}
		file := c.name + ".json"
		if written[file] {
			return fmt.Errorf("two cases named %s", c.name)
		}
		written[file] = true
		if err := os.WriteFile(filepath.Join(dir, file), append(data, '\n'), 0o644); err != nil {
			return err
		}
	}
	stale, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return err
	}
	for _, path := range stale {
		if !written[filepath.Base(path)] {
			if err := os.Remove(path); err != nil {
				return err
			}
		}
	}
	return nil
}

// vector is the JSON form of one case; see the package comment.
type vector struct {
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Oracle      string      `json:"oracle"`
	Pairs       []pairJSON  `json:"pairs"`
	Items       []hexBytes  `json:"items,omitempty"`
	Root        common.Hash `json:"root"`
	Nodes       []nodeJSON  `json:"nodes"`
}

type pairJSON struct {
	Key   hexBytes `json:"key"`
	Value hexBytes `json:"value"`
}

type nodeJSON struct {
	Path string      `json:"path"`
	Hash common.Hash `json:"hash"`
	Blob hexBytes    `json:"blob"`
}

// hexBytes marshals as 0x-prefixed hex, "0x" when empty.
type hexBytes []byte

func (b hexBytes) MarshalText() ([]byte, error) {
	return []byte("0x" + hex.EncodeToString(b)), nil
}

// genCase is a named key set. Exactly one of pairs and items is set: items
// makes a DeriveSha case.
type genCase struct {
	name, description string
	pairs             func(rng *rand.Rand) []trietest.Pair
	items             func(rng *rand.Rand) [][]byte
}

// vector computes the case with go-ethereum.
func (c genCase) vector() (*vector, error) {
	h := fnv.New64a()
	h.Write([]byte(c.name))
	rng := rand.New(rand.NewPCG(genSeed, h.Sum64()))

	v := &vector{Name: c.name, Description: c.description, Pairs: []pairJSON{}, Nodes: []nodeJSON{}}
	var pairs []trietest.Pair
	if c.items != nil {
		items := c.items(rng)
		for _, item := range items {
			v.Items = append(v.Items, item)
		}
		pairs = trietest.DeriveShaPairs(items)
	} else {
		pairs = c.pairs(rng)
	}
	for _, p := range pairs {
		v.Pairs = append(v.Pairs, pairJSON{Key: p.Key, Value: p.Value})
	}

	root, nodes, err := trietest.GethTrie(pairs)
	if err != nil {
		return nil, err
	}
	v.Oracle = "trie"
	if trietest.GethStackTrieAccepts(pairs) {
		stRoot, stNodes, err := trietest.GethStackTrie(pairs)
		if err != nil {
			return nil, err
		}
		if stRoot != root {
			return nil, fmt.Errorf("geth's tries disagree: stack trie root %v, trie root %v", stRoot, root)
		}
		if err := trietest.SameNodes(nodes, trietest.SortedByPath(stNodes)); err != nil {
			return nil, errors.Join(errors.New("geth's tries disagree on nodes"), err)
		}
		v.Oracle = "stacktrie"
	}
	v.Root = root
	for _, n := range nodes {
		v.Nodes = append(v.Nodes, nodeJSON{Path: trietest.NibbleString(n.Path), Hash: n.Hash, Blob: n.Blob})
	}
	return v, nil
}

// cases lists the vectors: small sets of every shape the differential tests
// cover, so that the files stay small.
func cases() []genCase {
	var list []genCase
	add := func(name, description string, pairs func(rng *rand.Rand) []trietest.Pair) {
		list = append(list, genCase{name: name, description: description, pairs: pairs})
	}
	addList := func(name, description string, items func(rng *rand.Rand) [][]byte) {
		list = append(list, genCase{name: name, description: description, items: items})
	}
	fixed := func(name, description string, keys ...string) {
		add(name, description, func(rng *rand.Rand) []trietest.Pair {
			values := trietest.ValuesBetween(1, 40)
			pairs := make([]trietest.Pair, len(keys))
			for i, k := range keys {
				pairs[i] = trietest.Pair{Key: []byte(k), Value: values(rng, i)}
			}
			return trietest.Normalize(pairs)
		})
	}

	add("empty", "no pairs: the empty root and no nodes", func(*rand.Rand) []trietest.Pair { return nil })
	add("single-tiny", "one pair whose leaf is under 32 bytes: the root is still hashed and reported",
		func(*rand.Rand) []trietest.Pair { return []trietest.Pair{{Key: []byte{0x01}, Value: []byte{0x02}}} })
	fixed("single-empty-key", "the empty key alone", "")
	for _, n := range []int{2, 3, 16, 17, 48, 100} {
		add(fmt.Sprintf("random32-n%d", n), fmt.Sprintf("%d random 32-byte keys, values of 1 to 100 bytes", n),
			func(rng *rand.Rand) []trietest.Pair {
				return trietest.RandomKeys(rng, n, 32, 32, nil, trietest.ValuesBetween(1, 100))
			})
	}
	add("random32-values32", "50 random 32-byte keys with 32-byte values, like a storage trie",
		func(rng *rand.Rand) []trietest.Pair {
			return trietest.RandomKeys(rng, 50, 32, 32, nil, trietest.ValuesOfLen(32))
		})
	for _, stride := range []uint64{1, 16, 256, 1024, 65536} {
		add(fmt.Sprintf("sequential-stride%d", stride),
			fmt.Sprintf("100 8-byte big-endian keys 0, %d, %d, ..., values of 1 to 40 bytes", stride, 2*stride),
			func(rng *rand.Rand) []trietest.Pair {
				return trietest.Sequential(rng, 100, 0, stride, trietest.ValuesBetween(1, 40))
			})
	}
	add("sequential-zero-values", "150 8-byte big-endian keys 0, 1024, 2048, ... with 20-byte zero values",
		func(*rand.Rand) []trietest.Pair {
			return trietest.Sequential(nil, 150, 0, 1024, trietest.ZeroValues(20))
		})
	for _, n := range []int{1, 2, 127, 128, 129} {
		addList(fmt.Sprintf("derivesha-n%d", n),
			fmt.Sprintf("DeriveSha of %d items of 1 to 24 bytes: keys are RLP indices 1..127, 0, 128..", n),
			func(rng *rand.Rand) [][]byte { return trietest.RandomItems(rng, n, 1, 24) })
	}
	addList("derivesha-n20-long", "DeriveSha of 20 items of 110 to 365 bytes, like encoded transactions",
		func(rng *rand.Rand) [][]byte { return trietest.RandomItems(rng, 20, 110, 365) })
	for _, keyLen := range []int{1, 2, 3} {
		n := 16 * keyLen
		add(fmt.Sprintf("short-keylen%d", keyLen),
			fmt.Sprintf("up to %d random %d-byte keys with 1 to 4-byte values: many nodes are embedded", n, keyLen),
			func(rng *rand.Rand) []trietest.Pair {
				return trietest.RandomKeys(rng, n, keyLen, keyLen, nil, trietest.ValuesBetween(1, 4))
			})
	}
	add("short-keylen1to3", "up to 40 random keys of 1 to 3 bytes with 1 to 4-byte values, some prefixes of others",
		func(rng *rand.Rand) []trietest.Pair {
			return trietest.RandomKeys(rng, 40, 1, 3, nil, trietest.ValuesBetween(1, 4))
		})
	for _, valueLen := range []int{31, 32, 33, 55, 56, 57, 135, 136, 137} {
		add(fmt.Sprintf("values%d-keylen1", valueLen),
			fmt.Sprintf("up to 6 random 1-byte keys with %d-byte values", valueLen),
			func(rng *rand.Rand) []trietest.Pair {
				return trietest.RandomKeys(rng, 6, 1, 1, nil, trietest.ValuesOfLen(valueLen))
			})
		add(fmt.Sprintf("values%d-keylen32", valueLen),
			fmt.Sprintf("4 random 32-byte keys with %d-byte values", valueLen),
			func(rng *rand.Rand) []trietest.Pair {
				return trietest.RandomKeys(rng, 4, 32, 32, nil, trietest.ValuesOfLen(valueLen))
			})
	}
	add("values-single-byte", "2-byte keys with one-byte values 0x00, 0x7f, 0x80 and 0xff, which RLP encodes apart",
		func(rng *rand.Rand) []trietest.Pair {
			singles := []byte{0x00, 0x7f, 0x80, 0xff}
			return trietest.RandomKeys(rng, 12, 2, 2, nil, func(_ *rand.Rand, i int) []byte {
				return []byte{singles[i%len(singles)]}
			})
		})
	add("values-4k", "2 random 32-byte keys with 4 KiB values",
		func(rng *rand.Rand) []trietest.Pair {
			return trietest.RandomKeys(rng, 2, 32, 32, nil, trietest.ValuesOfLen(4<<10))
		})
	add("extension-prefix20", "30 32-byte keys sharing their first 20 bytes: the root is an extension",
		func(rng *rand.Rand) []trietest.Pair {
			return trietest.SharedPrefixKeys(rng, 30, 20, 32, trietest.ValuesBetween(1, 64))
		})
	add("extension-prefix31", "8 32-byte keys that differ only in the last byte",
		func(rng *rand.Rand) []trietest.Pair {
			return trietest.SharedPrefixKeys(rng, 8, 31, 32, trietest.ValuesBetween(1, 64))
		})
	add("keylen1to64", "40 random keys of 1 to 64 bytes",
		func(rng *rand.Rand) []trietest.Pair {
			return trietest.RandomKeys(rng, 40, 1, 64, nil, trietest.ValuesBetween(1, 64))
		})
	fixed("prefixes-chain", "each key a prefix of the next, from the empty key on", "", "a", "ab", "abc", "abcd")
	fixed("prefixes-siblings", "keys ending at branches next to keys going on",
		"\x12", "\x12\x34", "\x12\x35", "\x13", "\x13\x00\x00", "\x13\x00\x01")
	fixed("prefixes-empty-key-and-one", "the empty key and one other", "", "\x00")
	add("prefixes-random", "up to 30 keys of 0 to 4 bytes over a small alphabet: many keys prefix others",
		func(rng *rand.Rand) []trietest.Pair {
			return trietest.RandomKeys(rng, 30, 0, 4, []byte{0x00, 0x01, 0x10, 0x11, 0xff}, trietest.ValuesBetween(1, 40))
		})
	return list
}

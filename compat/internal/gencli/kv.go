package main

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/triedb"

	"github.com/stacktrie/stacktrie/compat/internal/trietest"
)

// writeKV writes three samples for trieroot kv: sorted 32-byte keys; short
// keys, many of them prefixes of others, in random order (for --sort); and
// 20-byte keys in random order whose Keccak-256 hashes are the trie's keys
// (for --secure). The first two are checked against go-ethereum's trie, the
// third against its secure trie, which hashes keys itself.
func writeKV(o *output) error {
	rng := rand.New(rand.NewPCG(7, 1))

	sorted := trietest.RandomKeys(rng, 40, 32, 32, nil, trietest.ValuesBetween(1, 80))
	root, nodes, err := trietest.GethTrie(sorted)
	if err != nil {
		return err
	}
	header := "# 40 pairs with 32-byte keys in ascending order: KEY VALUE, hex, 0x optional"
	if err := o.write("kv/sorted.txt", kvLines(header, sorted)); err != nil {
		return err
	}
	if err := o.write("kv/sorted.nodes", nodeLines(nodes)); err != nil {
		return err
	}
	o.addCase("kv", "kv/sorted.txt", nil, map[string]any{"root": root, "pairs": len(sorted)}).Nodes = "kv/sorted.nodes"

	// Proofs of a key in the trie and of one that is not.
	present, absent := sorted[17].Key, trietest.RandomBytes(rng, 32)
	var proofs []map[string]any
	for _, p := range []trietest.Pair{sorted[17], {Key: absent}} {
		proof, err := gethProof(sorted, p.Key)
		if err != nil {
			return err
		}
		var value *hexutil.Bytes
		if p.Value != nil {
			value = (*hexutil.Bytes)(&p.Value)
		}
		proofs = append(proofs, map[string]any{"key": hexutil.Bytes(p.Key), "value": value, "nodes": proof})
	}
	o.addCase("kv", "kv/sorted.txt", []string{"--proof", hexutil.Encode(present), "--proof", hexutil.Encode(absent)},
		map[string]any{"root": root, "proofs": proofs})

	short := trietest.RandomKeys(rng, 60, 1, 4, []byte{0x00, 0x01, 0x10, 0xab, 0xff}, trietest.ValuesBetween(1, 40))
	if root, _, err = trietest.GethTrie(short); err != nil {
		return err
	}
	header = "# keys of 1 to 4 bytes, some prefixes of others, in no order: run with --sort"
	if err := o.write("kv/unsorted.txt", kvLines(header, shuffled(rng, short))); err != nil {
		return err
	}
	o.addCase("kv", "kv/unsorted.txt", []string{"--sort"}, map[string]any{"root": root, "pairs": len(short)})

	secure := trietest.RandomKeys(rng, 30, 20, 20, nil, trietest.ValuesOfLen(32))
	if root, err = secureRoot(secure); err != nil {
		return err
	}
	header = "# 20-byte keys in no order, hashed with Keccak-256 into the trie: run with --secure"
	if err := o.write("kv/secure.txt", kvLines(header, shuffled(rng, secure))); err != nil {
		return err
	}
	o.addCase("kv", "kv/secure.txt", []string{"--secure"}, map[string]any{"root": root, "pairs": len(secure)})
	return nil
}

// writeLists writes the transactions of a block, one encoded transaction a
// line, for trieroot list, with go-ethereum's DeriveSha of them.
func writeLists(o *output) error {
	txs, err := newTxMaker(11).transactions(130, allTxKinds)
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("# 130 signed transactions of five types in their consensus encoding, in block order\n")
	for _, tx := range txs {
		enc, err := tx.MarshalBinary()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%#x\n", enc)
	}
	if err := o.write("list/transactions.txt", []byte(b.String())); err != nil {
		return err
	}
	root := types.DeriveSha(types.Transactions(txs), trie.NewStackTrie(nil))
	o.addCase("list", "list/transactions.txt", nil, map[string]any{"root": root, "items": len(txs)})
	return nil
}

// kvLines formats pairs as trieroot kv reads them: a comment, then one pair a
// line, with and without 0x, and a blank line now and then.
func kvLines(header string, pairs []trietest.Pair) []byte {
	var b strings.Builder
	b.WriteString(header + "\n")
	for i, p := range pairs {
		if i%2 == 0 {
			fmt.Fprintf(&b, "%#x %#x\n", p.Key, p.Value)
		} else {
			fmt.Fprintf(&b, "%x %x\n", p.Key, p.Value)
		}
		if i%10 == 9 {
			b.WriteString("\n")
		}
	}
	return []byte(b.String())
}

// shuffled returns the pairs in random order.
func shuffled(rng *rand.Rand, pairs []trietest.Pair) []trietest.Pair {
	out := append([]trietest.Pair(nil), pairs...)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// nodeLines writes nodes as trieroot --nodes does, one "path hash blob" line
// each: the path one hex digit a nibble, "-" for the root.
func nodeLines(nodes []trietest.Node) []byte {
	var b strings.Builder
	for _, n := range nodes {
		path := trietest.NibbleString(n.Path)
		if path == "" {
			path = "-"
		}
		fmt.Fprintf(&b, "%s %s %#x\n", path, n.Hash.Hex(), n.Blob)
	}
	return []byte(b.String())
}

// proofRecorder keeps the nodes of a proof in the order Prove writes them,
// root first.
type proofRecorder []hexutil.Bytes

func (r *proofRecorder) Put(_, value []byte) error {
	*r = append(*r, common.CopyBytes(value))
	return nil
}

func (r *proofRecorder) Delete([]byte) error { return nil }

// gethProof is go-ethereum's Merkle proof of key in the trie of pairs.
func gethProof(pairs []trietest.Pair, key []byte) ([]hexutil.Bytes, error) {
	tr := trie.NewEmpty(nil)
	for _, p := range pairs {
		if err := tr.Update(p.Key, p.Value); err != nil {
			return nil, err
		}
	}
	proof := proofRecorder{}
	if err := tr.Prove(key, &proof); err != nil {
		return nil, err
	}
	return proof, nil
}

// secureRoot is the root of go-ethereum's secure trie, which stores each
// value under the Keccak-256 hash of its key, holding the pairs.
func secureRoot(pairs []trietest.Pair) (common.Hash, error) {
	db := triedb.NewDatabase(rawdb.NewMemoryDatabase(), nil)
	tr, err := trie.NewStateTrie(trie.TrieID(types.EmptyRootHash), db)
	if err != nil {
		return common.Hash{}, err
	}
	for _, p := range pairs {
		tr.MustUpdate(p.Key, p.Value)
	}
	return tr.Hash(), nil
}

package compat_test

// The situations go-ethereum's own range-proof tests put trie.VerifyRangeProof
// in, rebuilt here on our side: each range is proved twice, with
// ProofSet.RangeProof and with go-ethereum's Trie.Prove of the edges, and
// both verifiers must give the same verdict on each (compareRangeVerifiers).
// Where the situation has a verdict known in advance, VerifyRange must give
// it, and the right hasMore.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/compat/internal/trietest"
)

// rangeWant is the verdict a scenario expects from VerifyRange.
type rangeWant int

const (
	wantAgreement rangeWant = iota // no verdict known: the verifiers need only agree
	wantRefused
	wantMore   // accepted, with leaves after the range
	wantNoMore // accepted, the range reaching the trie's last leaf
)

// accepted is the verdict of a good range, with leaves after it or not.
func accepted(more bool) rangeWant {
	if more {
		return wantMore
	}
	return wantNoMore
}

// rangeTrie is a trie of pairs as both implementations hold it.
type rangeTrie struct {
	pairs []trietest.Pair
	gt    *trie.Trie
	root  common.Hash
}

// newRangeTrie builds go-ethereum's trie of pairs and checks that the stack
// trie has its root.
func newRangeTrie(t testing.TB, pairs []trietest.Pair) *rangeTrie {
	t.Helper()
	pairs = trietest.Normalize(slices.Clone(pairs))
	gt := gethTrie(t, pairs)
	st := stacktrie.New(nil)
	require.NoError(t, trietest.Insert(st, pairs))
	require.Equal(t, gt.Hash(), common.Hash(st.Hash()), "root")
	return &rangeTrie{pairs: pairs, gt: gt, root: gt.Hash()}
}

// span returns the keys and values of the pairs from i up to, not
// including, j.
func (rt *rangeTrie) span(i, j int) (keys, values [][]byte) {
	for _, p := range rt.pairs[i:j] {
		keys, values = append(keys, p.Key), append(values, p.Value)
	}
	return keys, values
}

// key returns a copy of the key of pair i.
func (rt *rangeTrie) key(i int) []byte { return bytes.Clone(rt.pairs[i].Key) }

// proofs proves the edges both ways: with a ProofSet, as RangeProof of the
// first two and then the proofs of the others, each node once; and with
// go-ethereum's Prove of each edge into one database. Both must hold the
// same nodes.
func (rt *rangeTrie) proofs(t testing.TB, edges ...[]byte) (ours, geths [][]byte) {
	t.Helper()
	ps := stacktrie.NewProofSet(edges...)
	st := stacktrie.New(ps.OnNode)
	require.NoError(t, trietest.Insert(st, rt.pairs))
	st.Hash()
	if len(edges) == 1 {
		ours = slices.Clone(ps.Proof(edges[0]))
	} else {
		ours = slices.Clone(ps.RangeProof(edges[0], edges[1]))
		for _, edge := range edges[2:] {
			for _, node := range ps.Proof(edge) {
				if !slices.ContainsFunc(ours, func(b []byte) bool { return bytes.Equal(b, node) }) {
					ours = append(ours, node)
				}
			}
		}
	}
	require.NotNil(t, ours, "the ProofSet has no proof of the edges")

	db := memorydb.New()
	for _, edge := range edges {
		require.NoError(t, rt.gt.Prove(edge, db))
	}
	geths = [][]byte{}
	it := db.NewIterator(nil, nil)
	for it.Next() {
		geths = append(geths, bytes.Clone(it.Value()))
	}
	it.Release()

	a, b := slices.Clone(ours), slices.Clone(geths)
	slices.SortFunc(a, bytes.Compare)
	slices.SortFunc(b, bytes.Compare)
	require.Equal(t, b, a, "the nodes of the proofs of the edges %x", edges)
	return ours, geths
}

// checkEdges verifies the range from first with keys and values against
// the proofs of edges, both ours and go-ethereum's.
func (rt *rangeTrie) checkEdges(t *testing.T, want rangeWant, first []byte, keys, values [][]byte, edges ...[]byte) {
	t.Helper()
	ours, geths := rt.proofs(t, edges...)
	rt.check(t, want, rangeCase{first: first, keys: keys, values: values, proof: ours}, "with RangeProof")
	rt.check(t, want, rangeCase{first: first, keys: keys, values: values, proof: geths}, "with go-ethereum's proof")
}

// check requires both verifiers to agree on c, and VerifyRange to answer
// want.
func (rt *rangeTrie) check(t *testing.T, want rangeWant, c rangeCase, what string) {
	t.Helper()
	compareRangeVerifiers(t, rt.root, c, what)
	if want == wantAgreement {
		return
	}
	more, err := stacktrie.VerifyRange(stacktrie.Hash(rt.root), c.first, c.keys, c.values, c.proof)
	if want == wantRefused {
		require.Error(t, err, "%s: VerifyRange accepts %d keys from %x", what, len(c.keys), c.first)
		return
	}
	require.NoError(t, err, "%s: %d keys from %x", what, len(c.keys), c.first)
	require.Equal(t, want == wantMore, more, "%s: hasMore", what)
}

// checkDivergence is checkEdges for a range go-ethereum is known to
// misjudge (see the callers): VerifyRange must answer want, the truth, and
// go-ethereum the other verdict, so that a go-ethereum that stops
// misjudging it shows here.
func (rt *rangeTrie) checkDivergence(t *testing.T, want rangeWant, first []byte, keys, values [][]byte, edges ...[]byte) {
	t.Helper()
	ours, geths := rt.proofs(t, edges...)
	for what, proof := range map[string][][]byte{"with RangeProof": ours, "with go-ethereum's proof": geths} {
		c := rangeCase{first: first, keys: keys, values: values, proof: proof}
		more, err := stacktrie.VerifyRange(stacktrie.Hash(rt.root), c.first, c.keys, c.values, c.proof)
		_, gethErr, panicked := verifyRangeGeth(rt.root, c)
		require.False(t, panicked, "%s: go-ethereum panics: %v", what, gethErr)
		if want == wantRefused {
			require.Error(t, err, "%s: VerifyRange accepts %d keys from %x", what, len(keys), first)
			require.NoError(t, gethErr, "%s: go-ethereum no longer accepts %d keys from %x", what, len(keys), first)
			continue
		}
		require.NoError(t, err, "%s: %d keys from %x", what, len(keys), first)
		require.Equal(t, want == wantMore, more, "%s: hasMore", what)
		require.Error(t, gethErr, "%s: go-ethereum no longer refuses %d keys from %x", what, len(keys), first)
	}
}

// gethStyleTrie is the trie of go-ethereum's range tests: keys 0 to 109,
// left-padded to 32 bytes, with one-byte values (0 to 99, and 90 to 99 for
// keys 100 to 109), whose leaves are embedded in their branches; and n
// random 32-byte keys with 20-byte values.
func gethStyleTrie(t testing.TB, rng *rand.Rand, n int) *rangeTrie {
	var pairs []trietest.Pair
	for i := range 110 {
		value := byte(i)
		if i >= 100 {
			value = byte(i - 10)
		}
		pairs = append(pairs, trietest.Pair{Key: common.LeftPadBytes([]byte{byte(i)}, 32), Value: []byte{value}})
	}
	pairs = append(pairs, trietest.RandomKeys(rng, n, 32, 32, nil, trietest.ValuesOfLen(20))...)
	return newRangeTrie(t, pairs)
}

// randomTrie32 is a trie of n random 32-byte keys with 20-byte values.
func randomTrie32(t testing.TB, rng *rand.Rand, n int) *rangeTrie {
	return newRangeTrie(t, trietest.RandomKeys(rng, n, 32, 32, nil, trietest.ValuesOfLen(20)))
}

// countingTrie has keys 0 to n-1 little-endian in the first 8 of 32
// bytes, and 32-byte values, as go-ethereum's bloated-proof test has.
func countingTrie(t testing.TB, n int) *rangeTrie {
	var pairs []trietest.Pair
	for i := range uint64(n) {
		key, value := make([]byte, 32), make([]byte, 32)
		binary.LittleEndian.PutUint64(key, i)
		binary.LittleEndian.PutUint64(value, i+1)
		pairs = append(pairs, trietest.Pair{Key: key, Value: value})
	}
	return newRangeTrie(t, pairs)
}

// smallTrie has keys step*i, left-padded to 32 bytes, for i from 0 to
// n-1, with one-byte values: every leaf is embedded in its branch.
func smallTrie(t testing.TB, n, step int) *rangeTrie {
	var pairs []trietest.Pair
	for i := range n {
		pairs = append(pairs, trietest.Pair{Key: common.LeftPadBytes([]byte{byte(step * i)}, 32), Value: []byte{byte(i)}})
	}
	return newRangeTrie(t, pairs)
}

// keyPlusOne is key plus one, as a big-endian number of its length,
// wrapping around above the largest.
func keyPlusOne(key []byte) []byte {
	k := bytes.Clone(key)
	for i := len(k) - 1; i >= 0; i-- {
		k[i]++
		if k[i] != 0 {
			break
		}
	}
	return k
}

// randomSpan draws a range [start, end) of n pairs, as go-ethereum's tests do.
func randomSpan(rng *rand.Rand, n int) (start, end int) {
	start = rng.IntN(n)
	return start, start + 1 + rng.IntN(n-start)
}

// rounds is full, or reduced under -short.
func rounds(full, reduced int) int {
	if testing.Short() {
		return reduced
	}
	return full
}

var zeroKey = make([]byte, 32)

func TestRangeScenarios(t *testing.T) {
	rng := caseRand(t, "range scenarios")
	big := gethStyleTrie(t, rng, 4096)
	n := len(big.pairs)

	t.Run("random ranges with existent edges", func(t *testing.T) {
		rng := caseRand(t, t.Name())
		for range rounds(60, 15) {
			start, end := randomSpan(rng, n)
			keys, values := big.span(start, end)
			big.checkEdges(t, accepted(end < n), keys[0], keys, values, keys[0], keys[len(keys)-1])
		}
	})
	t.Run("random ranges from an absent first edge", func(t *testing.T) {
		rng := caseRand(t, t.Name())
		for range rounds(60, 15) {
			start, end := randomSpan(rng, n)
			first := keyMinus(big.pairs[start].Key, 1)
			if start > 0 && bytes.Equal(first, big.pairs[start-1].Key) || bytes.Compare(first, big.pairs[start].Key) > 0 {
				continue // the key before is in the trie, or there is none
			}
			keys, values := big.span(start, end)
			big.checkEdges(t, accepted(end < n), first, keys, values, first, keys[len(keys)-1])
		}
	})
	t.Run("random ranges over a counting trie", func(t *testing.T) {
		rng := caseRand(t, t.Name())
		ct := countingTrie(t, 1000)
		for range rounds(50, 10) {
			start, end := randomSpan(rng, len(ct.pairs))
			keys, values := ct.span(start, end)
			ct.checkEdges(t, accepted(end < len(ct.pairs)), keys[0], keys, values, keys[0], keys[len(keys)-1])
		}
	})
	t.Run("pairs missing after an absent first edge", func(t *testing.T) {
		first := keyMinus(big.pairs[100].Key, 1)
		last := big.key(199)
		keys, values := big.span(105, 200)
		big.checkEdges(t, wantRefused, first, keys, values, first, last)
	})

	t.Run("one element", func(t *testing.T) {
		testOneElement(t, big)
	})
	t.Run("all elements", func(t *testing.T) {
		testAllElements(t, big)
	})
	t.Run("single side", testSingleSide)
	t.Run("bad ranges", func(t *testing.T) {
		testBadRanges(t, big)
	})
	t.Run("gapped", testGapped)
	t.Run("same side", func(t *testing.T) {
		testSameSide(t, big)
	})
	t.Run("has more", testHasMore)
	t.Run("empty range", func(t *testing.T) {
		testEmptyRange(t, big)
	})
	t.Run("bloated proof", testBloatedProof)
	t.Run("empty value", testEmptyValue)
	t.Run("shared prefix", testSharedPrefix)
	t.Run("malformed input", testMalformedInput)
	t.Run("embedded leaves", testEmbeddedLeaves)
	t.Run("edges of another length than the keys", testEdgeLengths)
	t.Run("a key that is a prefix of the last", testPrefixOfLast)
}

// testPrefixOfLast: a range that leaves out a key lying inside it, one
// that is a prefix of the range's last key. go-ethereum accepts it: its unsetInternal clears the references between
// the edges' paths but keeps the values at the branches on the last key's
// path, which belong to keys that are prefixes of it, as the proof gives
// them, so that the root comes out right with or without those keys in the
// range. VerifyRange refuses it. Snap sync's keys all have 32 bytes, and
// no branch holds a value. FuzzVerifyRangeGeth allows the difference
// (gethEdge.branchValue).
func testPrefixOfLast(t *testing.T) {
	v := []byte("value")
	rt := newRangeTrie(t, []trietest.Pair{{Key: []byte{0x41}, Value: v}, {Key: []byte{0x41, 0x00}, Value: v}, {Key: []byte{0x41, 0x30}, Value: v}})
	first := []byte{0x40, 0x00}
	keys, values := [][]byte{{0x41, 0x00}, {0x41, 0x30}}, [][]byte{v, v}
	rt.checkDivergence(t, wantRefused, first, keys, values, first, keys[1])
}

// testEdgeLengths: empty ranges from a first of another length than the
// trie's keys. Their verdicts differ because of go-ethereum's
// hasRightElement: it walks the edge's nibbles followed by
// the terminator nibble 16, and so takes an edge to sort after every key
// it is a prefix of (its terminator above any nibble of theirs), and
// before every key that is a prefix of it. It accepts an empty range from
// a prefix of the keys after it (even from the empty key, on any trie
// whose root is a branch: it looks at the root's value slot alone), and
// refuses one from a key that a leaf's key is a prefix of, with no leaf
// after it; VerifyRange, which orders keys as bytes.Compare does, answers
// the reverse. Snap sync's edges and keys all have 32 bytes, which never
// meet this. FuzzVerifyRangeGeth allows the difference (gethEdge.offOrder).
func testEdgeLengths(t *testing.T) {
	one := newRangeTrie(t, []trietest.Pair{{Key: zeroKey, Value: []byte{0}}})
	rng := caseRand(t, t.Name())
	many := randomTrie32(t, rng, 1000)
	for _, c := range []struct {
		name  string
		rt    *rangeTrie
		first []byte
		want  rangeWant
	}{
		{"a prefix of the only key", one, zeroKey[:14], wantRefused},
		{"the empty key, a branch at the root", many, []byte{}, wantRefused},
		{"the only key and a byte more", one, append(bytes.Clone(zeroKey), 0), wantNoMore},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.rt.checkDivergence(t, c.want, c.first, nil, nil, c.first)
		})
	}
	// A range from a prefix of a key that leaves the key out: go-ethereum,
	// which sorts 0xab after 0xab30, accepts it (FuzzVerifyRangeGeth's
	// seed ef10bc44e5793eeb).
	t.Run("a key under first left out", func(t *testing.T) {
		rt := newRangeTrie(t, []trietest.Pair{{Key: []byte{0xab, 0x30}, Value: []byte("000000000")}, {Key: []byte{0xac}, Value: []byte{0}}})
		first := []byte{0xab}
		rt.checkDivergence(t, wantRefused, first, [][]byte{{0xac}}, [][]byte{{0}}, first, []byte{0xac})
	})
}

// testOneElement: ranges of a single pair, proved from the key itself or
// from an absent key before it, with the last edge the key or an absent key
// after it; at the trie's first and last leaves; in a trie of one leaf.
func testOneElement(t *testing.T, big *rangeTrie) {
	n := len(big.pairs)
	const pos = 1000
	key := big.key(pos)
	keys, values := big.span(pos, pos+1)
	before, after := keyMinus(key, 1), keyPlusOne(key)
	require.True(t, bytes.Compare(big.pairs[pos-1].Key, before) < 0 && bytes.Compare(after, big.pairs[pos+1].Key) < 0)

	t.Run("first is the key, its proof alone", func(t *testing.T) {
		big.checkEdges(t, wantMore, key, keys, values, key)
	})
	t.Run("first absent before the key", func(t *testing.T) {
		big.checkEdges(t, wantMore, before, keys, values, before, key)
	})
	t.Run("first is the key, last edge absent after it", func(t *testing.T) {
		big.checkEdges(t, wantMore, key, keys, values, key, after)
	})
	t.Run("both edges absent either side", func(t *testing.T) {
		big.checkEdges(t, wantMore, before, keys, values, before, after)
	})
	t.Run("the first leaf, leaves right of it only", func(t *testing.T) {
		keys, values := big.span(0, 1)
		big.checkEdges(t, wantMore, keys[0], keys, values, keys[0])
	})
	t.Run("the last leaf, leaves left of it only", func(t *testing.T) {
		keys, values := big.span(n-1, n)
		big.checkEdges(t, wantNoMore, keys[0], keys, values, keys[0])
	})
	t.Run("the last leaf, first absent before it", func(t *testing.T) {
		keys, values := big.span(n-1, n)
		first := keyMinus(keys[0], 1)
		big.checkEdges(t, wantNoMore, first, keys, values, first, keys[0])
	})
	t.Run("a trie of one leaf, first zero", func(t *testing.T) {
		rng := caseRand(t, t.Name())
		tiny := randomTrie32(t, rng, 1)
		keys, values := tiny.span(0, 1)
		tiny.checkEdges(t, wantNoMore, zeroKey, keys, values, zeroKey, keys[0])
		tiny.checkEdges(t, wantNoMore, keys[0], keys, values, keys[0])
	})
}

// testAllElements: the whole trie as one range, with no proof and with
// proofs from its first key or from the zero key.
func testAllElements(t *testing.T, big *rangeTrie) {
	n := len(big.pairs)
	keys, values := big.span(0, n)
	t.Run("no proof", func(t *testing.T) {
		big.check(t, wantNoMore, rangeCase{first: nil, keys: keys, values: values}, "no proof")
	})
	t.Run("no proof, first ignored", func(t *testing.T) {
		big.check(t, wantAgreement, rangeCase{first: big.key(10), keys: keys, values: values}, "no proof")
	})
	t.Run("no proof, a pair missing", func(t *testing.T) {
		c := rangeCase{keys: slices.Delete(slices.Clone(keys), 500, 501), values: slices.Delete(slices.Clone(values), 500, 501)}
		big.check(t, wantRefused, c, "no proof")
	})
	t.Run("no proof, the last pair missing", func(t *testing.T) {
		big.check(t, wantRefused, rangeCase{keys: keys[:n-1], values: values[:n-1]}, "no proof")
	})
	t.Run("proofs of the first and last keys", func(t *testing.T) {
		big.checkEdges(t, wantNoMore, keys[0], keys, values, keys[0], keys[n-1])
	})
	t.Run("from the zero key", func(t *testing.T) {
		// The trie holds the zero key: start one key later, from its
		// absent neighbour.
		start := 1
		keys, values := big.span(start, n)
		first := keyPlusOne(big.pairs[0].Key)
		big.checkEdges(t, wantNoMore, first, keys, values, first, keys[len(keys)-1])
		rng := caseRand(t, t.Name())
		rt := randomTrie32(t, rng, 500)
		keys, values = rt.span(0, len(rt.pairs))
		rt.checkEdges(t, wantNoMore, zeroKey, keys, values, zeroKey, keys[len(keys)-1])
	})
	t.Run("empty trie, no pairs, no proof", func(t *testing.T) {
		empty := newRangeTrie(t, nil)
		require.Equal(t, types.EmptyRootHash, empty.root)
		empty.check(t, wantNoMore, rangeCase{}, "no proof")
		empty.check(t, wantRefused, rangeCase{keys: keys[:1], values: values[:1]}, "a pair, no proof")
	})
}

// testSingleSide: ranges from the zero key to a key of the trie, and from a
// key of the trie to its last.
func testSingleSide(t *testing.T) {
	rng := caseRand(t, t.Name())
	for trial := range rounds(4, 1) {
		rt := randomTrie32(t, rng, 4096)
		n := len(rt.pairs)
		for _, pos := range []int{0, 1, 50, 100, 1000, 2000, n - 1} {
			t.Run(fmt.Sprintf("trie %d/from zero to key %d", trial, pos), func(t *testing.T) {
				keys, values := rt.span(0, pos+1)
				rt.checkEdges(t, accepted(pos < n-1), zeroKey, keys, values, zeroKey, keys[pos])
			})
			t.Run(fmt.Sprintf("trie %d/from key %d to the last", trial, pos), func(t *testing.T) {
				keys, values := rt.span(pos, n)
				rt.checkEdges(t, wantNoMore, keys[0], keys, values, keys[0], keys[len(keys)-1])
			})
			t.Run(fmt.Sprintf("trie %d/from key %d, proof to the top key", trial, pos), func(t *testing.T) {
				keys, values := rt.span(pos, n)
				top := bytes.Repeat([]byte{0xff}, 32)
				rt.checkEdges(t, wantNoMore, keys[0], keys, values, keys[0], keys[len(keys)-1], top)
			})
		}
	}
}

// testBadRanges: good ranges changed as go-ethereum's TestBadRangeProof
// changes them. A pair dropped at either end may still leave a range
// whose proof covers it (a leaf embedded in a proof node): there, as
// go-ethereum's test skips the verdict, the verifiers need only agree.
func testBadRanges(t *testing.T, big *rangeTrie) {
	n := len(big.pairs)
	bad := []struct {
		name   string
		change func(rng *rand.Rand, start int, keys, values [][]byte) ([][]byte, [][]byte, rangeWant)
	}{
		{"a key changed", func(rng *rand.Rand, _ int, keys, values [][]byte) ([][]byte, [][]byte, rangeWant) {
			keys[rng.IntN(len(keys))] = trietest.RandomBytes(rng, 32)
			return keys, values, wantRefused
		}},
		{"a value changed", func(rng *rand.Rand, _ int, keys, values [][]byte) ([][]byte, [][]byte, rangeWant) {
			values[rng.IntN(len(keys))] = trietest.RandomBytes(rng, 20)
			return keys, values, wantRefused
		}},
		{"a pair dropped", func(rng *rand.Rand, start int, keys, values [][]byte) ([][]byte, [][]byte, rangeWant) {
			k := rng.IntN(len(keys))
			want := wantRefused
			if k == 0 && start < 100 || k == len(keys)-1 {
				want = wantAgreement
			}
			return slices.Delete(keys, k, k+1), slices.Delete(values, k, k+1), want
		}},
		{"two pairs swapped", func(rng *rand.Rand, _ int, keys, values [][]byte) ([][]byte, [][]byte, rangeWant) {
			if len(keys) < 2 {
				return keys, values, wantMore // unchanged: accepted as ever
			}
			a := rng.IntN(len(keys))
			b := (a + 1 + rng.IntN(len(keys)-1)) % len(keys)
			keys[a], keys[b] = keys[b], keys[a]
			values[a], values[b] = values[b], values[a]
			return keys, values, wantRefused
		}},
		{"a nil key", func(rng *rand.Rand, _ int, keys, values [][]byte) ([][]byte, [][]byte, rangeWant) {
			keys[rng.IntN(len(keys))] = nil
			return keys, values, wantRefused
		}},
		{"a nil value", func(rng *rand.Rand, _ int, keys, values [][]byte) ([][]byte, [][]byte, rangeWant) {
			values[rng.IntN(len(keys))] = nil
			return keys, values, wantRefused
		}},
	}
	for _, b := range bad {
		t.Run(b.name, func(t *testing.T) {
			rng := caseRand(t, t.Name())
			for range rounds(40, 8) {
				start, end := randomSpan(rng, n)
				keys, values := big.span(start, end)
				first, last := keys[0], keys[len(keys)-1]
				keys, values, want := b.change(rng, start, keys, values)
				if want == wantMore {
					want = accepted(end < n)
				}
				big.checkEdges(t, want, first, keys, values, first, last)
			}
		})
	}
}

// testGapped: a pair missing from the middle of a range of a trie whose
// leaves are all embedded in their branches.
func testGapped(t *testing.T) {
	small := smallTrie(t, 10, 1)
	keys, values := small.span(2, 8)
	first, last := keys[0], keys[len(keys)-1]
	t.Run("a pair missing from the middle", func(t *testing.T) {
		k, v := slices.Delete(slices.Clone(keys), 3, 4), slices.Delete(slices.Clone(values), 3, 4)
		small.checkEdges(t, wantRefused, first, k, v, first, last)
	})
	t.Run("every pair but the edges missing in turn", func(t *testing.T) {
		for i := 1; i < len(keys)-1; i++ {
			k, v := slices.Delete(slices.Clone(keys), i, i+1), slices.Delete(slices.Clone(values), i, i+1)
			small.checkEdges(t, wantRefused, first, k, v, first, last)
		}
	})
	t.Run("the first pair missing", func(t *testing.T) {
		small.checkEdges(t, wantAgreement, first, keys[1:], values[1:], first, last)
	})
	t.Run("the last pair missing", func(t *testing.T) {
		small.checkEdges(t, wantAgreement, first, keys[:len(keys)-1], values[:len(keys)-1], first, last)
	})
}

// testSameSide: proofs whose edges both lie on one side of the range's
// pairs.
func testSameSide(t *testing.T, big *rangeTrie) {
	const pos = 1000
	keys, values := big.span(pos, pos+1)
	t.Run("edges left of the pair", func(t *testing.T) {
		first := big.key(0)
		big.checkEdges(t, wantRefused, first, keys, values, first, big.key(2000))
	})
	t.Run("edges left of the pair, right next to it", func(t *testing.T) {
		first := big.key(pos - 2)
		big.checkEdges(t, wantRefused, first, keys, values, first, big.key(pos-1))
	})
	t.Run("edges right of the pair", func(t *testing.T) {
		first := keyPlusOne(keys[0])
		last := keyPlusOne(first)
		big.checkEdges(t, wantRefused, first, keys, values, first, last)
	})
	t.Run("edges right of the pair, at the next leaves", func(t *testing.T) {
		first := big.key(pos + 1)
		big.checkEdges(t, wantRefused, first, keys, values, first, big.key(pos+2))
	})
}

// testHasMore: go-ethereum's table of ranges and whether leaves follow.
func testHasMore(t *testing.T) {
	rng := caseRand(t, t.Name())
	rt := randomTrie32(t, rng, 4096)
	n := len(rt.pairs)
	for _, c := range []struct {
		name       string
		start, end int // start -1: from the zero key
		more       bool
	}{
		{"one pair from the zero key", -1, 1, true},
		{"one pair, the first", 0, 1, true},
		{"the first ten", 0, 10, true},
		{"fifty in the middle", 50, 100, true},
		{"from the middle to the end", 50, n, false},
		{"the last pair alone", n - 1, n, false},
		{"all from the first key", 0, n, false},
		{"all from the zero key", -1, n, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			start, first := c.start, zeroKey
			if start == -1 {
				start = 0
			} else {
				first = rt.key(start)
			}
			keys, values := rt.span(start, c.end)
			rt.checkEdges(t, accepted(c.more), first, keys, values, first, keys[len(keys)-1])
		})
	}
}

// testEmptyRange: ranges with no pairs, proved by the proof of their
// start alone: good only where no leaf is at or after it.
func testEmptyRange(t *testing.T, big *rangeTrie) {
	n := len(big.pairs)
	t.Run("after the last leaf", func(t *testing.T) {
		first := keyPlusOne(big.pairs[n-1].Key)
		big.checkEdges(t, wantNoMore, first, nil, nil, first)
	})
	t.Run("the top key, after the last leaf", func(t *testing.T) {
		first := bytes.Repeat([]byte{0xff}, 32)
		big.checkEdges(t, wantNoMore, first, nil, nil, first)
	})
	t.Run("leaves right of it", func(t *testing.T) {
		first := keyPlusOne(big.pairs[500].Key)
		big.checkEdges(t, wantRefused, first, nil, nil, first)
	})
	t.Run("before the first leaf", func(t *testing.T) {
		rng := caseRand(t, t.Name())
		rt := randomTrie32(t, rng, 100)
		big.checkEdges(t, wantRefused, zeroKey, nil, nil, zeroKey)
		rt.checkEdges(t, wantRefused, zeroKey, nil, nil, zeroKey)
	})
	t.Run("at the last leaf", func(t *testing.T) {
		first := big.key(n - 1)
		big.checkEdges(t, wantRefused, first, nil, nil, first)
	})
	t.Run("after the last leaf, proof of another key", func(t *testing.T) {
		first := keyPlusOne(big.pairs[n-1].Key)
		ours, _ := big.proofs(t, big.key(10))
		big.check(t, wantRefused, rangeCase{first: first, proof: ours}, "the proof of key 10")
	})
	t.Run("after the last leaf, no proof", func(t *testing.T) {
		first := keyPlusOne(big.pairs[n-1].Key)
		big.check(t, wantRefused, rangeCase{first: first}, "no proof")
	})
	t.Run("empty trie", func(t *testing.T) {
		empty := newRangeTrie(t, nil)
		empty.checkEdges(t, wantRefused, zeroKey, nil, nil, zeroKey)
	})
	t.Run("one leaf, after it and before it", func(t *testing.T) {
		rng := caseRand(t, t.Name())
		tiny := randomTrie32(t, rng, 1)
		after := keyPlusOne(tiny.pairs[0].Key)
		tiny.checkEdges(t, wantNoMore, after, nil, nil, after)
		before := keyMinus(tiny.pairs[0].Key, 1)
		tiny.checkEdges(t, wantRefused, before, nil, nil, before)
	})
}

// testBloatedProof: one pair proved by the proofs of every key of the
// trie, which both verifiers take.
func testBloatedProof(t *testing.T) {
	ct := countingTrie(t, 100)
	var all [][]byte
	for _, p := range ct.pairs {
		all = append(all, p.Key)
	}
	keys, values := ct.span(50, 51)
	t.Run("one pair, every key proved", func(t *testing.T) {
		edges := append([][]byte{keys[0], keys[0]}, all...)
		ct.checkEdges(t, wantMore, keys[0], keys, values, edges...)
	})
	t.Run("ten pairs, every key proved", func(t *testing.T) {
		keys, values := ct.span(50, 60)
		edges := append([][]byte{keys[0], keys[9]}, all...)
		ct.checkEdges(t, wantMore, keys[0], keys, values, edges...)
	})
}

// testEmptyValue: a range holding an extra key with an empty value, a
// deletion, which both verifiers refuse.
func testEmptyValue(t *testing.T) {
	rng := caseRand(t, t.Name())
	rt := gethStyleTrie(t, rng, 512)
	n := len(rt.pairs)
	mid := n / 2
	noop := keyPlusOne(rt.pairs[mid-1].Key)
	require.Negative(t, bytes.Compare(noop, rt.pairs[mid].Key))
	with := func(keys, values [][]byte, at int) ([][]byte, [][]byte) {
		return slices.Insert(slices.Clone(keys), at, noop), slices.Insert(slices.Clone(values), at, []byte{})
	}
	t.Run("with proofs", func(t *testing.T) {
		keys, values := rt.span(1, n-1)
		keys, values = with(keys, values, mid-1)
		rt.checkEdges(t, wantRefused, keys[0], keys, values, keys[0], keys[len(keys)-1])
	})
	t.Run("all elements, no proof", func(t *testing.T) {
		keys, values := rt.span(0, n)
		keys, values = with(keys, values, mid)
		rt.check(t, wantRefused, rangeCase{keys: keys, values: values}, "no proof")
	})
}

// testSharedPrefix: go-ethereum's two keys under one extension, from the
// zero key, and the ranges around them.
func testSharedPrefix(t *testing.T) {
	k1 := common.Hex2Bytes("aa10000000000000000000000000000000000000000000000000000000000000")
	k2 := common.Hex2Bytes("aa20000000000000000000000000000000000000000000000000000000000000")
	rt := newRangeTrie(t, []trietest.Pair{{Key: k1, Value: []byte{2}}, {Key: k2, Value: []byte{3}}})
	keys, values := rt.span(0, 2)
	t.Run("both keys from the zero key", func(t *testing.T) {
		rt.checkEdges(t, wantNoMore, zeroKey, keys, values, zeroKey, k2)
	})
	t.Run("both keys from the first", func(t *testing.T) {
		rt.checkEdges(t, wantNoMore, k1, keys, values, k1, k2)
	})
	t.Run("the first key alone", func(t *testing.T) {
		rt.checkEdges(t, wantMore, zeroKey, keys[:1], values[:1], zeroKey, k1)
	})
	t.Run("the second key alone, from inside the extension", func(t *testing.T) {
		first := common.Hex2Bytes("aa18000000000000000000000000000000000000000000000000000000000000")
		rt.checkEdges(t, wantNoMore, first, keys[1:], values[1:], first, k2)
	})
	t.Run("the second key alone, from before the extension", func(t *testing.T) {
		rt.checkEdges(t, wantRefused, zeroKey, keys[1:], values[1:], zeroKey, k2)
	})
	t.Run("empty, past the extension", func(t *testing.T) {
		first := common.Hex2Bytes("ab00000000000000000000000000000000000000000000000000000000000000")
		rt.checkEdges(t, wantNoMore, first, nil, nil, first)
	})
	t.Run("empty, inside the extension", func(t *testing.T) {
		first := common.Hex2Bytes("aa18000000000000000000000000000000000000000000000000000000000000")
		rt.checkEdges(t, wantRefused, first, nil, nil, first)
	})
}

// testMalformedInput: ranges refused before their proof is read, as
// go-ethereum's TestRangeProofErrors has them, and edges of two lengths.
func testMalformedInput(t *testing.T) {
	rt := newRangeTrie(t, []trietest.Pair{{Key: []byte{2, 1}, Value: []byte{1}}, {Key: []byte{2, 2}, Value: []byte{1}}})
	for _, c := range []struct {
		name string
		c    rangeCase
	}{
		{"more keys than values", rangeCase{first: []byte{}, keys: make([][]byte, 5), values: make([][]byte, 4)}},
		{"keys not increasing", rangeCase{first: []byte{}, keys: [][]byte{{2, 1}, {2, 1}}, values: [][]byte{{1}, {1}}}},
		{"a key under another", rangeCase{first: []byte{}, keys: [][]byte{{2, 1}, {2, 1, 2}}, values: [][]byte{{1}, {1}}}},
		{"an empty value", rangeCase{first: []byte{}, keys: [][]byte{{2, 1}, {2, 2}}, values: [][]byte{{1}, {}}}},
	} {
		t.Run(c.name+", no proof", func(t *testing.T) {
			rt.check(t, wantRefused, c.c, "no proof")
		})
		t.Run(c.name+", with proof", func(t *testing.T) {
			c := c.c
			c.proof, _ = rt.proofs(t, []byte{2, 1}, []byte{2, 2})
			rt.check(t, wantRefused, c, "with proof")
		})
	}
	keys, values := rt.span(0, 2)
	t.Run("a first edge shorter than the keys", func(t *testing.T) {
		rt.checkEdges(t, wantRefused, []byte{2}, keys, values, []byte{2}, keys[1])
	})
	t.Run("a first edge longer than the keys", func(t *testing.T) {
		first := []byte{2, 0, 0}
		rt.checkEdges(t, wantRefused, first, keys, values, first, keys[1])
	})
	t.Run("first after the first key", func(t *testing.T) {
		rt.checkEdges(t, wantRefused, keys[1], keys, values, keys[1])
		first := []byte{2, 1, 0}
		rt.checkEdges(t, wantRefused, first, keys[:1], values[:1], first, keys[0])
	})
	t.Run("one key from itself", func(t *testing.T) {
		rt.checkEdges(t, wantMore, keys[0], keys[:1], values[:1], keys[0])
	})
}

// testEmbeddedLeaves: every range of small tries whose leaves are all
// embedded in their branches, from the first key or from an absent key
// before it, and the same ranges one pair short at either end.
func testEmbeddedLeaves(t *testing.T) {
	for _, step := range []int{1, 3, 16} {
		small := smallTrie(t, 10, step)
		n := len(small.pairs)
		t.Run(fmt.Sprintf("step %d", step), func(t *testing.T) {
			for i := range n {
				for j := i + 1; j <= n; j++ {
					keys, values := small.span(i, j)
					last := keys[len(keys)-1]
					small.checkEdges(t, accepted(j < n), keys[0], keys, values, keys[0], last)
					if before := keyMinus(keys[0], 1); i > 0 && !bytes.Equal(before, small.pairs[i-1].Key) {
						small.checkEdges(t, accepted(j < n), before, keys, values, before, last)
					}
					if len(keys) > 1 {
						small.checkEdges(t, wantAgreement, keys[0], keys[1:], values[1:], keys[0], last)
						small.checkEdges(t, wantAgreement, keys[0], keys[:len(keys)-1], values[:len(keys)-1], keys[0], last)
					}
				}
			}
		})
	}
}

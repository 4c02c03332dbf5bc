package compat_test

// ProofSet.RangeProof against go-ethereum: the nodes of its Prove of both
// edges, and the verdict of its trie.VerifyRangeProof on the ranges proved.

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/compat/internal/trietest"
)

// TestRangeProofMatchesGeth proves random ranges of every key set of the
// differential tests: RangeProof must hold exactly the nodes go-ethereum's
// Prove writes for both edges, each once, and go-ethereum's
// VerifyRangeProof must accept the range with it, saying whether leaves
// follow.
func TestRangeProofMatchesGeth(t *testing.T) {
	for _, c := range keySetCases(true) {
		t.Run(c.name, func(t *testing.T) {
			rng := caseRand(t, c.name)
			pairs := c.pairs(rng)
			if len(pairs) == 0 {
				return
			}
			gt := gethTrie(t, pairs)
			for range 20 {
				checkRangeProof(t, rng, gt, pairs)
			}
		})
	}
}

// checkRangeProof proves one random range of pairs: from first, a key of
// the range or a key before it that is not in the trie, to the range's
// last key.
func checkRangeProof(t *testing.T, rng *rand.Rand, gt *trie.Trie, pairs []trietest.Pair) {
	i := rng.IntN(len(pairs))
	j := i + rng.IntN(min(len(pairs)-i, 50))
	first := pairs[i].Key
	if rng.IntN(2) == 0 {
		first = keyBefore(rng, pairs, i)
	}
	last := pairs[j].Key

	ps := stacktrie.NewProofSet(first, last)
	st := stacktrie.New(ps.OnNode)
	require.NoError(t, trietest.Insert(st, pairs))
	root := common.Hash(st.Hash())
	require.Equal(t, gt.Hash(), root)
	proof := ps.RangeProof(first, last)

	db := memorydb.New()
	require.NoError(t, gt.Prove(first, db))
	require.NoError(t, gt.Prove(last, db))
	var want [][]byte
	it := db.NewIterator(nil, nil)
	for it.Next() {
		want = append(want, bytes.Clone(it.Value()))
	}
	it.Release()
	got := slices.Clone(proof)
	slices.SortFunc(want, bytes.Compare)
	slices.SortFunc(got, bytes.Compare)
	require.Equal(t, want, got, "the nodes of the proofs of %x and %x", first, last)

	if !sameLength(pairs) || len(first) != len(last) {
		// go-ethereum's range verifier takes keys of one length, as the
		// state's are: it refuses edges of different lengths, and panics
		// on a trie where one key is a prefix of another.
		return
	}
	keys := make([][]byte, 0, j-i+1)
	values := make([][]byte, 0, j-i+1)
	for _, p := range pairs[i : j+1] {
		keys, values = append(keys, p.Key), append(values, p.Value)
	}
	hasMore, err := trie.VerifyRangeProof(root, first, keys, values, newProofDB(proof))
	require.NoError(t, err, "geth verifying %d keys from %x with the range proof", len(keys), first)
	require.Equal(t, j < len(pairs)-1, hasMore, "leaves after %x", last)
}

// sameLength reports whether all keys of pairs have one length.
func sameLength(pairs []trietest.Pair) bool {
	for _, p := range pairs {
		if len(p.Key) != len(pairs[0].Key) {
			return false
		}
	}
	return true
}

// keyBefore returns a key not in the trie that sorts after pairs[i-1] and
// before pairs[i], of pairs[i]'s length where one exists, or pairs[i]'s own
// key where none does.
func keyBefore(rng *rand.Rand, pairs []trietest.Pair, i int) []byte {
	key := pairs[i].Key
	for range 8 {
		k := slices.Clone(key)
		for b := len(k) - 1; b >= 0; b-- {
			if k[b] > 0 {
				k[b] -= byte(1 + rng.IntN(int(k[b])))
				break
			}
			k[b] = 0xff
		}
		if bytes.Compare(k, key) < 0 && (i == 0 || bytes.Compare(pairs[i-1].Key, k) < 0) {
			return k
		}
	}
	return key
}

// The proof of a range from a key to itself is that key's proof, and an
// edge the ProofSet was not given has none.
func TestRangeProofEdges(t *testing.T) {
	rng := caseRand(t, "range edges")
	pairs := trietest.RandomKeys(rng, 300, 32, 32, nil, trietest.ValuesOfLen(32))
	key, absent := pairs[100].Key, []byte{0x01}
	ps := stacktrie.NewProofSet(key)
	st := stacktrie.New(ps.OnNode)
	require.NoError(t, trietest.Insert(st, pairs))
	st.Hash()
	require.Equal(t, ps.Proof(key), ps.RangeProof(key, key))
	require.Nil(t, ps.RangeProof(key, absent))
	require.Nil(t, ps.RangeProof(absent, key))
}

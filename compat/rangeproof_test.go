package compat_test

// ProofSet.RangeProof against go-ethereum: the nodes of its Prove of both
// edges, and the verdict of its trie.VerifyRangeProof on the ranges proved.

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/compat"
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

	c := rangeCase{first: first, keys: keys, values: values, proof: proof}
	require.True(t, compareRangeVerifiers(t, root, c, "the range"))
	other := ps.RangeProof(first, first)
	for name, d := range damagedRanges(rng, c, pairs, i, j, other) {
		compareRangeVerifiers(t, root, d, name)
	}
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
		k := keyMinus(key, 1+rng.IntN(255))
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

// rangeCase is a range request and its answer, as a syncer receives it.
type rangeCase struct {
	first        []byte
	keys, values [][]byte
	proof        [][]byte
}

// clone copies c, so that a damage to it leaves c as it was.
func (c rangeCase) clone() rangeCase {
	return rangeCase{
		first:  c.first,
		keys:   slices.Clone(c.keys),
		values: slices.Clone(c.values),
		proof:  slices.Clone(c.proof),
	}
}

// compareRangeVerifiers gives c to go-ethereum's trie.VerifyRangeProof and to
// VerifyRange, and requires the same verdict, and the same hasMore when
// both accept. It returns whether VerifyRange accepted.
func compareRangeVerifiers(t *testing.T, root common.Hash, c rangeCase, what string) bool {
	t.Helper()
	gethMore, gethErr, panicked := verifyRangeGeth(root, c)
	more, err := stacktrie.VerifyRange(stacktrie.Hash(root), c.first, c.keys, c.values, c.proof)
	if panicked {
		// No verdict to compare with: go-ethereum's own StackTrie and
		// unset panic on some tries (the empty key, prefix keys).
		t.Logf("%s: go-ethereum panics (%v); VerifyRange says %v", what, gethErr, err)
		return err == nil
	}
	require.Equal(t, gethErr == nil, err == nil, "%s: go-ethereum says %v, VerifyRange %v", what, gethErr, err)
	if err == nil {
		require.Equal(t, gethMore, more, "%s: hasMore", what)
	}
	// The drop-in, reading the proof as go-ethereum's verifier does.
	var adapterMore bool
	var adapterErr error
	if c.proof == nil {
		adapterMore, adapterErr = compat.VerifyRangeProof(root, c.first, c.keys, c.values, nil)
	} else {
		adapterMore, adapterErr = compat.VerifyRangeProof(root, c.first, c.keys, c.values, newProofDB(c.proof))
	}
	require.Equal(t, err == nil, adapterErr == nil, "%s: VerifyRange says %v, compat.VerifyRangeProof %v", what, err, adapterErr)
	require.Equal(t, more, adapterMore, "%s: compat.VerifyRangeProof's hasMore", what)
	return err == nil
}

// verifyRangeGeth runs go-ethereum's verifier, with a nil reader for a nil
// proof, and reports a panic, which it has on some malformed input.
func verifyRangeGeth(root common.Hash, c rangeCase) (more bool, err error, panicked bool) {
	defer func() {
		if r := recover(); r != nil {
			err, panicked = fmt.Errorf("panic: %v", r), true
		}
	}()
	if c.proof == nil {
		more, err = trie.VerifyRangeProof(root, c.first, c.keys, c.values, nil)
	} else {
		more, err = trie.VerifyRangeProof(root, c.first, c.keys, c.values, newProofDB(c.proof))
	}
	return more, err, false
}

// damagedRanges returns c changed in each way a bad peer could answer.
func damagedRanges(rng *rand.Rand, c rangeCase, pairs []trietest.Pair, i, j int, other [][]byte) map[string]rangeCase {
	out := map[string]rangeCase{}
	add := func(name string, change func(d *rangeCase) bool) {
		d := c.clone()
		if change(&d) {
			out[name] = d
		}
	}
	n := len(c.keys)
	add("a gap", func(d *rangeCase) bool {
		if n < 3 {
			return false
		}
		k := 1 + rng.IntN(n-2)
		d.keys, d.values = slices.Delete(d.keys, k, k+1), slices.Delete(d.values, k, k+1)
		return true
	})
	add("the first pair dropped", func(d *rangeCase) bool {
		d.keys, d.values = d.keys[1:], d.values[1:]
		return true
	})
	add("a value changed", func(d *rangeCase) bool {
		k := rng.IntN(n)
		d.values[k] = append(bytes.Clone(d.values[k]), 0x01)
		return true
	})
	add("a key changed", func(d *rangeCase) bool {
		k := rng.IntN(n)
		key := bytes.Clone(d.keys[k])
		if len(key) == 0 {
			return false
		}
		key[rng.IntN(len(key))] ^= byte(1 + rng.IntN(255))
		d.keys[k] = key
		return true
	})
	add("two keys swapped", func(d *rangeCase) bool {
		if n < 2 {
			return false
		}
		k := rng.IntN(n - 1)
		d.keys[k], d.keys[k+1] = d.keys[k+1], d.keys[k]
		return true
	})
	add("an empty value", func(d *rangeCase) bool {
		d.values[rng.IntN(n)] = []byte{}
		return true
	})
	add("a value short", func(d *rangeCase) bool {
		d.values = d.values[:n-1]
		return true
	})
	add("a pair before first", func(d *rangeCase) bool {
		if i == 0 {
			return false
		}
		d.keys = append([][]byte{pairs[i-1].Key}, d.keys...)
		d.values = append([][]byte{pairs[i-1].Value}, d.values...)
		return true
	})
	add("extended past its proof", func(d *rangeCase) bool {
		if j+1 >= len(pairs) {
			return false
		}
		d.keys, d.values = append(d.keys, pairs[j+1].Key), append(d.values, pairs[j+1].Value)
		return true
	})
	add("the last pair dropped", func(d *rangeCase) bool {
		if n < 2 {
			return false
		}
		d.keys, d.values = d.keys[:n-1], d.values[:n-1]
		return true
	})
	add("a proof of other keys", func(d *rangeCase) bool {
		d.proof = other
		return true
	})
	add("a bloated proof", func(d *rangeCase) bool {
		d.proof = append(d.proof, other...)
		return true
	})
	add("a proof node dropped", func(d *rangeCase) bool {
		if len(d.proof) == 0 {
			return false
		}
		k := rng.IntN(len(d.proof))
		d.proof = slices.Delete(d.proof, k, k+1)
		return true
	})
	add("a proof node damaged", func(d *rangeCase) bool {
		if len(d.proof) == 0 {
			return false
		}
		k := rng.IntN(len(d.proof))
		node := bytes.Clone(d.proof[k])
		node[rng.IntN(len(node))] ^= byte(1 + rng.IntN(255))
		d.proof[k] = node
		return true
	})
	add("no pairs", func(d *rangeCase) bool {
		d.keys, d.values = nil, nil
		return true
	})
	add("no proof", func(d *rangeCase) bool {
		d.proof = nil
		return true
	})
	return out
}

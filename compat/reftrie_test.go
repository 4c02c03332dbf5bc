package compat_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie/compat/internal/trietest"
	"github.com/stacktrie/stacktrie/internal/reftrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

// TestReftrieMatchesGeth checks the oracle of the root module's tests, the
// reference trie in internal/reftrie, against go-ethereum's trie on random
// sets of every key shape the root module's tests draw (testgen.Shapes):
// the root, the set of stored nodes (path, hash and blob), their order
// (each node after its descendants), and the proofs of present and absent
// keys, which go-ethereum's verifier must accept with the key's value.
func TestReftrieMatchesGeth(t *testing.T) {
	sizes := []int{1, 2, 3, 17, 100, 400}
	if testing.Short() {
		sizes = []int{1, 2, 17, 100}
	}
	t.Run("empty", func(t *testing.T) {
		checkReftrieAgainstGeth(t, caseRand(t, "empty"), nil)
	})
	for _, shape := range testgen.Shapes {
		for _, n := range sizes {
			name := fmt.Sprintf("%s/n=%d", shape.Name, n)
			t.Run(name, func(t *testing.T) {
				rng := caseRand(t, name)
				checkReftrieAgainstGeth(t, rng, testgen.Pairs(rng, shape, n))
			})
		}
	}
}

func checkReftrieAgainstGeth(t *testing.T, rng *rand.Rand, pairs []testgen.Pair) {
	ref := reftrie.New()
	gethPairs := make([]trietest.Pair, len(pairs))
	for i, p := range pairs {
		ref.Put(p.Key, p.Value)
		gethPairs[i] = trietest.Pair{Key: p.Key, Value: p.Value}
	}

	wantRoot, wantNodes, err := trietest.GethTrie(gethPairs)
	require.NoError(t, err)
	root := common.Hash(ref.Root())
	assert.Equal(t, wantRoot, root, "root of %d pairs", len(pairs))

	var nodes []trietest.Node
	for _, n := range ref.Nodes() {
		nodes = append(nodes, trietest.Node{Path: n.Path, Hash: n.Hash, Blob: n.Blob})
	}
	assert.NoError(t, trietest.CheckChildrenFirst(nodes), "Nodes is in post-order")
	assert.NoError(t, trietest.SameNodes(wantNodes, trietest.SortedByPath(nodes)), "nodes vs geth trie commit")

	gt := gethTrie(t, gethPairs)
	require.Equal(t, wantRoot, gt.Hash())
	present := 0
	for _, key := range proofTargets(rng, gethPairs, 20) {
		want, err := gt.Get(key)
		require.NoError(t, err)
		value, ok := ref.Get(key)
		assert.Equal(t, len(want) > 0, ok, "key %x present", key)
		if ok {
			present++
			assert.Equal(t, want, value, "value of key %x", key)
		}

		proof := ref.Prove(key)
		assert.Equal(t, gethProve(t, gt, key), proof, "proof of key %x", key)
		if len(pairs) == 0 {
			assert.Empty(t, proof, "the empty trie has nothing to prove")
			continue
		}
		got, err := trie.VerifyProof(wantRoot, key, newProofDB(proof))
		if assert.NoError(t, err, "geth verifying the proof of key %x", key) {
			assert.Equal(t, string(want), string(got), "geth: value of key %x", key)
		}
	}
	if len(pairs) > 0 {
		assert.Positive(t, present, "some keys proved are present")
	}
}

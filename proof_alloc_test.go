//go:build !race

// The race detector allocates on its own, so allocation counts are only
// meaningful without it.

package stacktrie_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

// TestProofSetOffPathAllocs checks that a node on no target's path costs
// OnNode no allocation, however many targets there are.
func TestProofSetOffPathAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 6))
	targets := testgen.Shapes[0].Keys(r, 1000)
	ps := stacktrie.NewProofSet(targets...)
	blob := bytes.Repeat([]byte{0xc0}, 100)
	off := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}
	assert.Zero(t, testing.AllocsPerRun(100, func() { ps.OnNode(off, stacktrie.Hash{}, blob) }))
}

// TestVerifyProofAllocs checks that verifying a proof allocates nothing.
func TestVerifyProofAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 6))
	pairs := testgen.Pairs(r, testgen.Shapes[0], 1000)
	key := pairs[500].Key
	root, ps := proveAll(t, stacktrie.New, pairs, [][]byte{key})
	proof := ps.Proof(key)
	_, err := stacktrie.VerifyProof(root, key, proof)
	require.NoError(t, err)
	assert.Zero(t, testing.AllocsPerRun(100, func() { stacktrie.VerifyProof(root, key, proof) }))
}

package incremental

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie/internal/testgen"
)

// randomState draws n leaves of keyLen bytes, their keys drawn from a few
// random prefixes so that extensions and deep branches appear, with values
// of valueLen bytes (or random lengths for 0).
func randomState(r *rand.Rand, keyLen, n, valueLen int) map[string][]byte {
	prefixes := make([][]byte, 1+r.IntN(4))
	for i := range prefixes {
		prefixes[i] = testgen.Value(r, r.IntN(keyLen))
	}
	state := make(map[string][]byte, n)
	for range n {
		state[string(randomKey(r, keyLen, prefixes))] = randomValue(r, valueLen)
	}
	return state
}

func randomKey(r *rand.Rand, keyLen int, prefixes [][]byte) []byte {
	k := make([]byte, keyLen)
	for i := range k {
		k[i] = byte(r.Uint32())
	}
	if r.IntN(2) == 0 {
		copy(k, prefixes[r.IntN(len(prefixes))])
	}
	return k
}

func randomValue(r *rand.Rand, valueLen int) []byte {
	if valueLen == 0 {
		valueLen = testgen.ValueSizes[r.IntN(len(testgen.ValueSizes))]
	}
	return testgen.Value(r, valueLen)
}

func TestBuildMatchesOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(testgen.Seed(t), 2))
	for _, keyLen := range []int{1, 2, 3, 8, 32} {
		for _, valueLen := range []int{1, 32, 0} {
			for _, n := range []int{0, 1, 2, 3, 20, 300} {
				t.Run(fmt.Sprintf("keyLen=%d/value=%d/n=%d", keyLen, valueLen, n), func(t *testing.T) {
					leaves := sortedLeaves(randomState(r, keyLen, n, valueLen))
					root, recs, err := built(NewBuilder(keyLen), leaves)
					require.NoError(t, err)
					assert.Equal(t, reference(leaves).Root(), root)
					assert.Equal(t, expectedRecords(leaves), recs)
				})
			}
		}
	}
}

//go:build !race

// The race detector allocates on its own and empties sync.Pools at random, so
// allocation counts are only meaningful without it.

package stacktrie_test

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

func TestSteadyStateAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	big := make([]testgen.Pair, 200)
	for i := range big {
		big[i] = testgen.Pair{Key: binary.BigEndian.AppendUint32(nil, uint32(i)*7), Value: testgen.Value(r, 5000+i)}
	}
	var reported int
	count := func([]byte, stacktrie.Hash, []byte) { reported++ }
	tests := []struct {
		name   string
		pairs  []testgen.Pair
		onNode stacktrie.NodeFunc
	}{
		{"short keys", testgen.Pairs(r, testgen.Shapes[2], 2000), nil},
		{"sequential keys", testgen.Pairs(r, testgen.Shapes[1], 5000), nil},
		{"32-byte keys", testgen.Pairs(r, testgen.Shapes[0], 5000), nil},
		{"prefix keys", testgen.Pairs(r, testgen.Shapes[4], 2000), nil},
		{"large values", big, nil},
		{"node callback", testgen.Pairs(r, testgen.Shapes[0], 5000), count},
		{"node callback, long keys", testgen.Pairs(r, testgen.Shapes[6], 1000), count},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := stacktrie.New(tt.onNode)
			insert := func() {
				tr.Reset()
				for _, p := range tt.pairs {
					if err := tr.Update(p.Key, p.Value); err != nil {
						t.Fatal(err)
					}
				}
				tr.Hash()
			}
			insert() // warm up: the buffers grow to this workload once
			reported = 0
			assert.Zero(t, testing.AllocsPerRun(5, insert))
			if tt.onNode != nil {
				assert.NotZero(t, reported, "the callback ran")
			}
		})
	}
}

func TestFreshTrieAllocs(t *testing.T) {
	key := make([]byte, 8)
	value := make([]byte, 20)
	allocs := testing.AllocsPerRun(3, func() {
		tr := stacktrie.New(nil)
		for i := range uint64(100_000) {
			binary.BigEndian.PutUint64(key, i<<10)
			require.NoError(t, tr.Update(key, value))
		}
		tr.Hash()
	})
	// The trie, its sponge, lanes and their state, the spine, key and value
	// buffers, and the job queues with their slab: a dozen at most, however
	// many keys follow.
	assert.LessOrEqual(t, allocs, 12.0)
	t.Logf("New plus 100k inserts: %v allocations", allocs)
}

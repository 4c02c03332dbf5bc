//go:build !race

// The race detector allocates on its own and empties sync.Pools at random, so
// allocation counts are only meaningful without it. Every count here is
// exact, one use at a time (testgen.AllocsPerUse): after a first use over a
// data set, each later use over the same data must make no allocation.

package stacktrie_test

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

// noAllocs is what AllocsPerUse must return.
var noAllocs = make([]uint64, testgen.UsesAfterFirst)

// allocCases are data sets of every key shape, and the edges the shapes do
// not reach on their own.
func allocCases() []struct {
	name  string
	pairs []testgen.Pair
} {
	r := rand.New(rand.NewPCG(7, 8))
	cases := []struct {
		name  string
		pairs []testgen.Pair
	}{
		{"empty key alone", pairsOf("", "v")},
		{"empty key first", append(pairsOf("", "root"), testgen.Pairs(r, testgen.Shapes[0], 500)...)},
		{"prefix chain", pairsOf("", "0", "a", "1", "ab", "2", "abc", "3", "abcd", "4", "abd", "5", "b", "6")},
		{"64 KiB values", []testgen.Pair{
			{Key: []byte{1}, Value: testgen.Value(r, 64<<10)},
			{Key: []byte{1, 2}, Value: testgen.Value(r, 64<<10)},
			{Key: []byte{2}, Value: testgen.Value(r, 1)},
			{Key: []byte{3}, Value: testgen.Value(r, 64<<10)},
		}},
	}
	for _, shape := range testgen.Shapes {
		cases = append(cases, struct {
			name  string
			pairs []testgen.Pair
		}{shape.Name, testgen.Pairs(r, shape, 2000)})
	}
	return cases
}

func TestTrieAllocs(t *testing.T) {
	var reported int
	count := func([]byte, stacktrie.Hash, []byte) { reported++ }
	for _, tc := range allocCases() {
		for _, mode := range hashingModes {
			for _, onNode := range []stacktrie.NodeFunc{nil, count} {
				name := tc.name + "/" + mode.name
				if onNode != nil {
					name += "/node callback"
				}
				t.Run(name, func(t *testing.T) {
					start := func() func() {
						tr := mode.new(onNode)
						return func() {
							tr.Reset()
							for _, p := range tc.pairs {
								if err := tr.Update(p.Key, p.Value); err != nil {
									t.Fatal(err)
								}
							}
							tr.Hash()
						}
					}
					reported = 0
					assert.Equal(t, noAllocs, testgen.AllocsPerUse(start))
					if onNode != nil {
						assert.NotZero(t, reported, "the callback ran")
					}
				})
			}
		}
	}
}

// TestFreshTrieAllocs bounds what a new Trie costs: the allocations of New
// and of its buffers' first growth, whatever the number of keys.
func TestFreshTrieAllocs(t *testing.T) {
	key := make([]byte, 8)
	value := make([]byte, 20)
	fresh := func(n uint64) func() {
		return func() {
			tr := stacktrie.New(nil)
			for i := range n {
				binary.BigEndian.PutUint64(key, i<<10)
				require.NoError(t, tr.Update(key, value))
			}
			tr.Hash()
		}
	}
	// The trie, its sponge, lanes and their state, the spine as it deepens,
	// key and value buffers, and the job queues with their slab, which grow
	// with the jobs in flight, bounded apart from the number of keys: 13
	// with lanes, 10 without.
	for _, n := range []uint64{100, 100_000} {
		allocs := testgen.LeastMallocs(fresh(n))
		assert.LessOrEqual(t, allocs, uint64(13), "%d keys", n)
		t.Logf("New plus %d inserts: %d allocations", n, allocs)
	}
}

// TestHashLaterAllocs ends small tries of every shape with HashLater in one
// reused Trie, then flushes: after the first use, none allocates.
func TestHashLaterAllocs(t *testing.T) {
	tries := smallTries(rand.New(rand.NewPCG(5, 6)), 200)
	roots := make([]stacktrie.Hash, len(tries))
	for _, mode := range hashingModes {
		t.Run(mode.name, func(t *testing.T) {
			start := func() func() {
				tr := mode.new(nil)
				return func() {
					tr.Reset()
					for i, pairs := range tries {
						for _, p := range pairs {
							if err := tr.Update(p.Key, p.Value); err != nil {
								t.Fatal(err)
							}
						}
						tr.HashLater(&roots[i])
					}
					tr.Flush()
				}
			}
			assert.Equal(t, noAllocs, testgen.AllocsPerUse(start))
			want, _ := oracle(tries[len(tries)-1])
			assert.Equal(t, want, roots[len(roots)-1])
		})
	}
}

// TestSubtrieAllocs mounts partitions built apart into one trie through the
// binary form of their Subtries, every trie and buffer reused.
func TestSubtrieAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 8))
	for _, shape := range testgen.Shapes {
		t.Run(shape.Name, func(t *testing.T) {
			pairs := testgen.Pairs(r, shape, 2000)
			empty, parts := partitionByFirstByte(pairs)
			want, _ := oracle(pairs)
			var root stacktrie.Hash
			start := func() func() {
				part, top := stacktrie.New(nil), stacktrie.New(nil)
				var wire []byte
				return func() {
					top.Reset()
					for _, p := range empty {
						require.NoError(t, top.Update(p.Key, p.Value))
					}
					for _, pairs := range parts {
						part.Reset()
						for _, p := range pairs {
							require.NoError(t, part.Update(p.Key, p.Value))
						}
						var err error
						wire, err = part.AppendSubtrie(wire[:0])
						require.NoError(t, err)
						require.NoError(t, top.MountSubtrie(wire))
					}
					root = top.Hash()
				}
			}
			assert.Equal(t, noAllocs, testgen.AllocsPerUse(start))
			assert.Equal(t, want, root)
		})
	}
}

// TestParallelAllocs hashes sets of every key shape on one reused Parallel,
// fed with Update after Reset or given at once to HashAll, with and without
// a node callback: after the first use, none allocates.
func TestParallelAllocs(t *testing.T) {
	requireNoLeak(t)
	r := rand.New(rand.NewPCG(10, 8))
	var reported int
	count := func([]byte, stacktrie.Hash, []byte) { reported++ }
	feeds := []struct {
		name string
		root func(p *stacktrie.Parallel, pairs []testgen.Pair, keys, values [][]byte) (stacktrie.Hash, error)
	}{
		{"Update", func(p *stacktrie.Parallel, pairs []testgen.Pair, _, _ [][]byte) (stacktrie.Hash, error) {
			p.Reset()
			for _, pair := range pairs {
				if err := p.Update(pair.Key, pair.Value); err != nil {
					return stacktrie.Hash{}, err
				}
			}
			return p.Hash(), nil
		}},
		{"HashAll", func(p *stacktrie.Parallel, _ []testgen.Pair, keys, values [][]byte) (stacktrie.Hash, error) {
			return p.HashAll(keys, values)
		}},
	}
	for _, shape := range testgen.Shapes {
		for _, onNode := range []stacktrie.NodeFunc{nil, count} {
			pairs := testgen.Pairs(r, shape, 5000)
			keys, values := split(pairs)
			want, _ := oracle(pairs)
			for _, feed := range feeds {
				t.Run(shape.Name+"/"+feed.name, func(t *testing.T) {
					var root stacktrie.Hash
					start := func() func() {
						p := stacktrie.NewParallel(2, onNode)
						t.Cleanup(func() { p.Close() })
						return func() {
							var err error
							if root, err = feed.root(p, pairs, keys, values); err != nil {
								t.Fatal(err)
							}
						}
					}
					reported = 0
					assert.Equal(t, noAllocs, testgen.AllocsPerUse(start))
					assert.Equal(t, want, root)
					if onNode != nil {
						assert.NotZero(t, reported, "the callback ran")
					}
				})
			}
		}
	}
}

func TestProofSetAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 6))
	for _, shape := range testgen.Shapes {
		t.Run(shape.Name, func(t *testing.T) {
			pairs := testgen.Pairs(r, shape, 2000)
			targets := [][]byte{pairs[0].Key, pairs[len(pairs)/2].Key, pairs[len(pairs)-1].Key, append(bytes.Clone(pairs[1].Key), 0x42)}
			ref := refTrie(pairs)
			proofs := make([][][]byte, len(targets))
			var rangeProof [][]byte
			start := func() func() {
				ps := stacktrie.NewProofSet(targets...)
				tr := stacktrie.New(ps.OnNode)
				return func() {
					tr.Reset()
					ps.Reset()
					for _, p := range pairs {
						if err := tr.Update(p.Key, p.Value); err != nil {
							t.Fatal(err)
						}
					}
					tr.Hash()
					for i, k := range targets {
						proofs[i] = ps.AppendProof(proofs[i][:0], k)
					}
					rangeProof = ps.AppendRangeProof(rangeProof[:0], targets[3], targets[2])
				}
			}
			assert.Equal(t, noAllocs, testgen.AllocsPerUse(start))
			for i, k := range targets {
				assert.Equal(t, ref.Prove(k), proofs[i], "key %x", k)
			}
			// The range proof: the first edge's nodes, then the last's not
			// among them.
			want := ref.Prove(targets[3])
			for _, node := range ref.Prove(targets[2]) {
				if !slices.ContainsFunc(want, func(b []byte) bool { return bytes.Equal(b, node) }) {
					want = append(want, node)
				}
			}
			assert.Equal(t, want, rangeProof)
		})
	}
}

// TestProofSetOffPathAllocs checks that a node on no target's path costs
// OnNode no allocation, however many targets there are.
func TestProofSetOffPathAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 6))
	ps := stacktrie.NewProofSet(testgen.Shapes[0].Keys(r, 1000)...)
	blob := bytes.Repeat([]byte{0xc0}, 100)
	off := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}
	assert.Zero(t, testgen.Mallocs(func() { ps.OnNode(off, stacktrie.Hash{}, blob) }))
}

// TestVerifyProofAllocs checks that verifying a proof allocates nothing
// once the first use has put a hasher in the pool, for proofs of presence
// and of absence.
func TestVerifyProofAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 6))
	for _, shape := range testgen.Shapes {
		t.Run(shape.Name, func(t *testing.T) {
			pairs := testgen.Pairs(r, shape, 1000)
			present, absent := pairs[len(pairs)/2].Key, append(bytes.Clone(pairs[3].Key), 0x42)
			root, ps := proveAll(t, stacktrie.New, pairs, [][]byte{present, absent})
			for _, key := range [][]byte{present, absent} {
				proof := ps.Proof(key)
				var err error
				start := func() func() {
					return func() { _, err = stacktrie.VerifyProof(root, key, proof) }
				}
				assert.Equal(t, noAllocs, testgen.AllocsPerUse(start), "key %x", key)
				require.NoError(t, err)
			}
		})
	}
}

// TestRangeVerifierAllocs counts a reused RangeVerifier's allocations per
// range, with and without a node callback, for ranges from a present key
// and from an absent one, over hashed keys and over sequential keys, whose
// small leaves are embedded in their branches.
func TestRangeVerifierAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 15))
	for _, shape := range testgen.Shapes[:2] {
		t.Run(shape.Name, func(t *testing.T) {
			pairs := testgen.Pairs(r, shape, 3000)
			root := stacktrie.Hash(refTrie(pairs).Root())
			ranges := []provedRange{
				proveRange(t, pairs, pairs[1000].Key, 1000, 2000),
				proveRange(t, pairs, before(pairs, 10), 10, 20),
				proveRange(t, pairs, pairs[0].Key, 0, len(pairs)-1),
			}
			for _, withNodes := range []bool{false, true} {
				var nodes int
				var onNode stacktrie.NodeFunc
				if withNodes {
					onNode = func([]byte, stacktrie.Hash, []byte) { nodes++ }
				}
				start := func() func() {
					v := stacktrie.NewRangeVerifier(onNode)
					return func() {
						for _, pr := range ranges {
							if _, err := v.Verify(root, pr.first, pr.keys, pr.values, pr.proof); err != nil {
								t.Fatal(err)
							}
						}
					}
				}
				assert.Equal(t, noAllocs, testgen.AllocsPerUse(start), "with a node callback: %v", withNodes)
				if withNodes {
					assert.Positive(t, nodes)
				}
			}
		})
	}
}

package stacktrie_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

// smallTries draws n tries of every key shape, most of a few keys, as the
// storage tries of contracts are, some empty and some larger.
func smallTries(r *rand.Rand, n int) [][]testgen.Pair {
	sizes := []int{0, 1, 1, 2, 3, 4, 5, 8, 17, 60}
	tries := make([][]testgen.Pair, n)
	for i := range tries {
		shape := testgen.Shapes[r.IntN(len(testgen.Shapes))]
		tries[i] = testgen.Pairs(r, shape, sizes[r.IntN(len(sizes))])
	}
	return tries
}

func insertAll(t testing.TB, tr *stacktrie.Trie, pairs []testgen.Pair) {
	t.Helper()
	for _, p := range pairs {
		require.NoError(t, tr.Update(p.Key, p.Value), "key %x", p.Key)
	}
}

// TestHashLater ends trie after trie with HashLater in one Trie, and now
// and then with Hash first, Flush in the middle of a trie or a dropped
// root: every root written must be the reference trie's.
func TestHashLater(t *testing.T) {
	for _, mode := range hashingModes {
		t.Run(mode.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(testgen.Seed(t), 7))
			tries := smallTries(r, 300)
			roots := make([]stacktrie.Hash, len(tries))
			tr := mode.new(nil)
			for i, pairs := range tries {
				switch r.IntN(10) {
				case 0: // Hash first: HashLater writes its root
					insertAll(t, tr, pairs)
					tr.Hash()
					tr.HashLater(&roots[i])
				case 1: // Flush halfway through a trie changes nothing
					insertAll(t, tr, pairs[:len(pairs)/2])
					tr.Flush()
					insertAll(t, tr, pairs[len(pairs)/2:])
					tr.HashLater(&roots[i])
				case 2: // a dropped root, then the same trie again
					insertAll(t, tr, pairs)
					tr.HashLater(nil)
					insertAll(t, tr, pairs)
					tr.HashLater(&roots[i])
				default:
					insertAll(t, tr, pairs)
					tr.HashLater(&roots[i])
				}
			}
			tr.Flush()
			for i, pairs := range tries {
				want, _ := oracle(pairs)
				require.Equal(t, want, roots[i], "trie %d of %d keys", i, len(pairs))
			}
		})
	}
}

// TestHashLaterThenReset checks that Reset writes the roots still due
// before it drops the trie in the making, as PutTrie's Reset does for a
// pooled trie.
func TestHashLaterThenReset(t *testing.T) {
	r := rand.New(rand.NewPCG(testgen.Seed(t), 7))
	tries := smallTries(r, 40)
	roots := make([]stacktrie.Hash, len(tries))
	tr := stacktrie.New(nil)
	for i, pairs := range tries {
		insertAll(t, tr, pairs)
		tr.HashLater(&roots[i])
	}
	insertAll(t, tr, testgen.Pairs(r, testgen.Shapes[0], 3)) // dropped by Reset
	tr.Reset()
	for i, pairs := range tries {
		want, _ := oracle(pairs)
		require.Equal(t, want, roots[i], "trie %d", i)
	}
}

// TestHashLaterWithCallback checks that with a node callback HashLater
// hashes at once: each trie's root is written when HashLater returns, and
// its nodes, the reference trie's, are reported before the next trie's.
func TestHashLaterWithCallback(t *testing.T) {
	for _, mode := range hashingModes {
		t.Run(mode.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(testgen.Seed(t), 7))
			var rec recorder
			tr := mode.new(rec.onNode)
			for i, pairs := range smallTries(r, 100) {
				rec.nodes = rec.nodes[:0]
				insertAll(t, tr, pairs)
				var root stacktrie.Hash
				tr.HashLater(&root)
				wantRoot, wantNodes := oracle(pairs)
				require.Equal(t, wantRoot, root, "trie %d", i)
				assertNodes(t, wantNodes, rec.nodes, "trie %d", i)
			}
		})
	}
}

// TestHashLaterSharesLanes counts the lanes' permutations over many tries
// of three hashed keys: ended with HashLater, the tries' nodes share the
// steps that, ended with Hash, each trie runs with most lanes idle.
func TestHashLaterSharesLanes(t *testing.T) {
	r := rand.New(rand.NewPCG(testgen.Seed(t), 7))
	tries := make([][]testgen.Pair, 500)
	for i := range tries {
		tries[i] = testgen.Pairs(r, testgen.Shapes[0], 3)
	}
	for _, mode := range hashingModes[:2] {
		t.Run(mode.name, func(t *testing.T) {
			permutations := func(end func(*stacktrie.Trie)) uint64 {
				tr := mode.new(nil)
				for _, pairs := range tries {
					insertAll(t, tr, pairs)
					end(tr)
				}
				tr.Flush()
				p, _, lanes := stacktrie.LaneWork(tr)
				if lanes < 4 {
					t.Skipf("%d lanes here: nothing to share", lanes) // generic code without SIMD
				}
				return p
			}
			var root stacktrie.Hash
			alone := permutations(func(tr *stacktrie.Trie) { tr.Hash(); tr.Reset() })
			shared := permutations(func(tr *stacktrie.Trie) { tr.HashLater(&root) })
			t.Logf("permutations: %d with Hash, %d with HashLater", alone, shared)
			assert.Less(t, shared, alone*2/3)
		})
	}
}

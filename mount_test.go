package stacktrie_test

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

// syncRecorder is a recorder that partitions built in several goroutines
// may report to at once.
type syncRecorder struct {
	mu  sync.Mutex
	rec recorder
}

func (r *syncRecorder) onNode(path []byte, hash stacktrie.Hash, blob []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rec.onNode(path, hash, blob)
}

// partitionByFirstByte splits sorted pairs by their first byte; the empty
// key, which has none, comes back on its own.
func partitionByFirstByte(pairs []testgen.Pair) (empty []testgen.Pair, parts [][]testgen.Pair) {
	for _, p := range pairs {
		switch {
		case len(p.Key) == 0:
			empty = append(empty, p)
		case len(parts) == 0 || parts[len(parts)-1][0].Key[0] != p.Key[0]:
			parts = append(parts, []testgen.Pair{p})
		default:
			parts[len(parts)-1] = append(parts[len(parts)-1], p)
		}
	}
	return empty, parts
}

// combine builds each partition in its own goroutine, passes its Subtrie on
// as bytes, and mounts them in key order into one trie.
func combine(t *testing.T, newTrie func(stacktrie.NodeFunc) *stacktrie.Trie, pairs []testgen.Pair, onNode stacktrie.NodeFunc) stacktrie.Hash {
	empty, parts := partitionByFirstByte(pairs)
	wire := make([][]byte, len(parts))
	var wg sync.WaitGroup
	for i, part := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr := newTrie(onNode)
			for _, p := range part {
				if err := tr.Update(p.Key, p.Value); err != nil {
					panic(err)
				}
			}
			top, err := tr.Subtrie()
			if err != nil {
				panic(err)
			}
			wire[i], err = top.MarshalBinary()
			if err != nil {
				panic(err)
			}
		}()
	}
	wg.Wait()

	tr := newTrie(onNode)
	for _, p := range empty {
		require.NoError(t, tr.Update(p.Key, p.Value))
	}
	for _, b := range wire {
		var top stacktrie.Subtrie
		require.NoError(t, top.UnmarshalBinary(b))
		require.NoError(t, top.Mount(tr))
	}
	return tr.Hash()
}

func TestPartitionsCombine(t *testing.T) {
	seed := testgen.Seed(t)
	r := rand.New(rand.NewPCG(seed, 5))
	for _, shape := range testgen.Shapes {
		for _, n := range []int{1, 2, 5, 40, 700} {
			pairs := testgen.Pairs(r, shape, n)
			wantRoot, wantNodes := oracle(pairs)
			for _, mode := range hashingModes {
				var rec syncRecorder
				root := combine(t, mode.new, pairs, rec.onNode)
				require.Equal(t, wantRoot, root, "seed %d, %s, %d pairs, %s", seed, shape.Name, len(pairs), mode.name)
				require.True(t, assertNodes(t, wantNodes, rec.rec.nodes, "seed %d, %s, %d pairs, %s", seed, shape.Name, len(pairs), mode.name))
			}
		}
	}
}

func TestSubtrieKeepsTrieUsable(t *testing.T) {
	pairs := pairsOf("a1", "x", "a2", "y", "b", "z", "c", "w")
	wantRoot, wantNodes := oracle(pairs)
	for _, mode := range hashingModes {
		var rec recorder
		tr := mode.new(rec.onNode)
		for _, p := range pairs[:2] {
			require.NoError(t, tr.Update(p.Key, p.Value))
		}
		top, err := tr.Subtrie()
		require.NoError(t, err)
		assert.Equal(t, []byte{6, 1, 3}, top.Path, "the branch under the shared prefix a1/a2")
		again, err := tr.Subtrie()
		require.NoError(t, err)
		assert.Equal(t, top, again, "a second Subtrie gives the same top")
		assert.ErrorIs(t, tr.Update([]byte("a3"), []byte("v")), stacktrie.ErrKeyOrder, "a3 is under the top branch")
		for _, p := range pairs[2:] {
			require.NoError(t, tr.Update(p.Key, p.Value))
		}
		assert.Equal(t, wantRoot, tr.Hash(), mode.name)
		assertNodes(t, wantNodes, rec.nodes, mode.name)
		_, err = tr.Subtrie()
		assert.ErrorIs(t, err, stacktrie.ErrFinalized)
	}
}

func TestSubtrieForms(t *testing.T) {
	tr := stacktrie.New(nil)
	top, err := tr.Subtrie()
	require.NoError(t, err)
	assert.True(t, top.IsEmpty())

	require.NoError(t, tr.Update([]byte("only"), []byte("one")))
	top, err = tr.Subtrie()
	require.NoError(t, err)
	assert.Equal(t, stacktrie.Subtrie{Key: []byte("only"), Value: []byte("one")}, top)
	want, _ := oracle(pairsOf("only", "one"))
	assert.Equal(t, want, tr.Hash())

	// The empty key is a pair too, not an empty subtrie.
	tr.Reset()
	require.NoError(t, tr.Update(nil, []byte("root value")))
	top, err = tr.Subtrie()
	require.NoError(t, err)
	require.False(t, top.IsEmpty())
	into := stacktrie.New(nil)
	require.NoError(t, top.Mount(into))
	want, _ = oracle(pairsOf("", "root value"))
	assert.Equal(t, want, into.Hash())

	// A tiny branch is carried as its RLP, not a hash.
	tr.Reset()
	require.NoError(t, tr.Update([]byte{0x10}, []byte{1}))
	require.NoError(t, tr.Update([]byte{0x11}, []byte{2}))
	top, err = tr.Subtrie()
	require.NoError(t, err)
	assert.Equal(t, []byte{1}, top.Path)
	assert.Less(t, len(top.Ref), 32)
	want, _ = oracle(pairsOf("\x10", "\x01", "\x11", "\x02"))
	assert.Equal(t, want, tr.Hash(), "the root over an embedded top branch")
}

func TestUpdateBranchErrors(t *testing.T) {
	hash := make([]byte, 32)
	tests := []struct {
		name string
		path []byte
		ref  []byte
		want error
	}{
		{"nibble above 15", []byte{3, 16}, hash, stacktrie.ErrInvalidBranch},
		{"empty reference", []byte{3}, nil, stacktrie.ErrInvalidBranch},
		{"reference of 33 bytes", []byte{3}, make([]byte, 33), stacktrie.ErrInvalidBranch},
		{"short reference not a list", []byte{3}, []byte{0x83, 1, 2, 3}, stacktrie.ErrInvalidBranch},
		{"short list of the wrong length", []byte{3}, []byte{0xc5, 0x80, 0x80}, stacktrie.ErrInvalidBranch},
		{"before the last key", []byte{6, 0}, hash, stacktrie.ErrKeyOrder},
		{"at the last key", []byte{6, 1}, hash, stacktrie.ErrKeyOrder},
		{"a prefix of the last key", []byte{6}, hash, stacktrie.ErrKeyOrder},
		{"under the mounted branch", []byte{7, 0, 1}, hash, stacktrie.ErrKeyOrder},
		{"the mounted path again", []byte{7, 0}, hash, stacktrie.ErrKeyOrder},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rec recorder
			tr := stacktrie.New(rec.onNode)
			require.NoError(t, tr.Update([]byte("a"), []byte("1"))) // nibbles 6, 1
			require.NoError(t, tr.UpdateBranch([]byte{7, 0}, hash))
			err := tr.UpdateBranch(tt.path, tt.ref)
			assert.ErrorIs(t, err, tt.want)
			// Nothing changed: the same continuation gives the same root.
			require.NoError(t, tr.Update([]byte{0x80}, []byte("2")))
			ref := stacktrie.New(nil)
			require.NoError(t, ref.Update([]byte("a"), []byte("1")))
			require.NoError(t, ref.UpdateBranch([]byte{7, 0}, hash))
			require.NoError(t, ref.Update([]byte{0x80}, []byte("2")))
			assert.Equal(t, ref.Hash(), tr.Hash())
		})
	}
	t.Run("key under the mounted branch", func(t *testing.T) {
		tr := stacktrie.New(nil)
		require.NoError(t, tr.UpdateBranch([]byte{7, 0}, hash))
		assert.ErrorIs(t, tr.Update([]byte{0x70, 1}, []byte("v")), stacktrie.ErrKeyOrder)
		assert.ErrorIs(t, tr.Update([]byte{0x70}, []byte("v")), stacktrie.ErrKeyOrder)
		assert.NoError(t, tr.Update([]byte{0x71}, []byte("v")))
	})
}

func TestUpdateBranchAsRoot(t *testing.T) {
	// A subtrie mounted at the root is the whole trie.
	pairs := pairsOf("\x10", "a", "\x20", "b", "\x30", "c")
	want, _ := oracle(pairs)
	src := stacktrie.New(nil)
	for _, p := range pairs {
		require.NoError(t, src.Update(p.Key, p.Value))
	}
	top, err := src.Subtrie()
	require.NoError(t, err)
	require.Empty(t, top.Path)
	var reported []stacktrie.Hash
	tr := stacktrie.New(func(_ []byte, hash stacktrie.Hash, _ []byte) { reported = append(reported, hash) })
	require.NoError(t, top.Mount(tr))
	assert.Equal(t, want, tr.Hash())
	assert.Equal(t, []stacktrie.Hash{want}, reported, "an embedded root branch is hashed and reported once")
}

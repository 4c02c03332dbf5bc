package stacktrie_test

import (
	"bytes"
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/reftrie"
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

// mountOracle is the reference trie over pairs as a trie that mounts the
// branches at paths sees it: its root, the references of those branches
// (one for each path, which must be a branch), and the nodes a trie that
// mounts them reports: all but those at or under a mounted branch, which the
// trie never sees, and for a small branch mounted as the root, the root.
func mountOracle(t *testing.T, pairs []testgen.Pair, paths ...[]byte) (stacktrie.Hash, [][]byte, []node) {
	t.Helper()
	ref := reftrie.New()
	for _, p := range pairs {
		ref.Put(p.Key, p.Value)
	}
	refs := make([][]byte, len(paths))
	for i, path := range paths {
		for _, b := range ref.Branches() {
			if bytes.Equal(b.Path, path) {
				refs[i] = b.Ref
			}
		}
		require.NotNil(t, refs[i], "no branch at %x", path)
	}
	var nodes []node
	for _, n := range ref.Nodes() {
		mounted := false
		for i, path := range paths {
			if bytes.HasPrefix(n.Path, path) && !(len(n.Path) == 0 && len(refs[i]) < 32) {
				mounted = true
			}
		}
		if !mounted {
			nodes = append(nodes, node{hex.EncodeToString(n.Path), stacktrie.Hash(n.Hash).String(), hex.EncodeToString(n.Blob)})
		}
	}
	return ref.Root(), refs, nodes
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
		{"nibble above 15 in order", []byte{7, 1, 16}, hash, stacktrie.ErrInvalidBranch},
		{"empty reference", []byte{7, 1}, nil, stacktrie.ErrInvalidBranch},
		{"reference of 33 bytes", []byte{7, 1}, make([]byte, 33), stacktrie.ErrInvalidBranch},
		{"reference of 31 bytes not a list", []byte{7, 1}, make([]byte, 31), stacktrie.ErrInvalidBranch},
		{"short reference not a list", []byte{7, 1}, []byte{0x83, 1, 2, 3}, stacktrie.ErrInvalidBranch},
		{"short list of the wrong length", []byte{7, 1}, []byte{0xc5, 0x80, 0x80}, stacktrie.ErrInvalidBranch},
		{"before the last key", []byte{6, 0}, hash, stacktrie.ErrKeyOrder},
		{"at the last key", []byte{6, 1}, hash, stacktrie.ErrKeyOrder},
		{"a prefix of the last key", []byte{6}, hash, stacktrie.ErrKeyOrder},
		{"the root", []byte{}, hash, stacktrie.ErrKeyOrder},
		{"under the mounted branch", []byte{7, 0, 1}, hash, stacktrie.ErrKeyOrder},
		{"the mounted path again", []byte{7, 0}, hash, stacktrie.ErrKeyOrder},
	}
	// Keys 7010 and 7020 part at nibble path 7,0: the branch mounted there.
	// Short values keep it under 32 bytes, embedded in its parent; long ones
	// make it hashed.
	sets := map[string][]testgen.Pair{
		"embedded branch": pairsOf("a", "1", "\x70\x10", "x", "\x70\x20", "y", "\x80", "2"),
		"hashed branch":   pairsOf("a", "1", "\x70\x10", strings.Repeat("x", 40), "\x70\x20", strings.Repeat("y", 40), "\x80", "2"),
	}
	for setName, pairs := range sets {
		wantRoot, refs, wantNodes := mountOracle(t, pairs, []byte{7, 0})
		mounted := refs[0]
		if setName == "hashed branch" {
			require.Len(t, mounted, 32)
		} else {
			require.Less(t, len(mounted), 32)
		}
		for _, tt := range tests {
			t.Run(setName+"/"+tt.name, func(t *testing.T) {
				for _, mode := range hashingModes {
					var rec recorder
					tr := mode.new(rec.onNode)
					require.NoError(t, tr.Update([]byte("a"), []byte("1"))) // nibbles 6, 1
					require.NoError(t, tr.UpdateBranch([]byte{7, 0}, mounted))
					assert.ErrorIs(t, tr.UpdateBranch(tt.path, tt.ref), tt.want, mode.name)
					// Nothing changed: the rest of the keys give the oracle's trie.
					require.NoError(t, tr.Update([]byte{0x80}, []byte("2")))
					assert.Equal(t, wantRoot, tr.Hash(), mode.name)
					assertNodes(t, wantNodes, rec.nodes, mode.name)
				}
			})
		}
		t.Run(setName+"/key under the mounted branch", func(t *testing.T) {
			var rec recorder
			tr := stacktrie.New(rec.onNode)
			require.NoError(t, tr.Update([]byte("a"), []byte("1")))
			require.NoError(t, tr.UpdateBranch([]byte{7, 0}, mounted))
			assert.ErrorIs(t, tr.Update([]byte{0x70, 0x10}, []byte("x")), stacktrie.ErrKeyOrder, "a key the branch holds")
			assert.ErrorIs(t, tr.Update([]byte{0x70, 1}, []byte("v")), stacktrie.ErrKeyOrder)
			assert.ErrorIs(t, tr.Update([]byte{0x70}, []byte("v")), stacktrie.ErrKeyOrder, "the key at the branch")
			assert.ErrorIs(t, tr.Update([]byte{0x6f}, []byte("v")), stacktrie.ErrKeyOrder, "before the branch")
			assert.ErrorIs(t, tr.Update([]byte{0x80}, nil), stacktrie.ErrEmptyValue)
			require.NoError(t, tr.Update([]byte{0x80}, []byte("2")))
			assert.Equal(t, wantRoot, tr.Hash())
			assertNodes(t, wantNodes, rec.nodes)
		})
	}
}

// TestUpdateBranchSiblings mounts runs of sibling branches under one
// parent, as an incremental walk does, some hashed and some embedded, with
// refused siblings between them: out of order or again, each of which must
// change nothing.
func TestUpdateBranchSiblings(t *testing.T) {
	long := strings.Repeat("v", 40)
	pairs := pairsOf("a", "1",
		"\x70\x10", long, "\x70\x20", long, // 7,0: hashed
		"\x71\x10", "x", "\x71\x20", "y", // 7,1: embedded
		"\x72\x10", long, "\x72\x20", long, // 7,2: hashed
		"\x73\x10", "x", "\x73\x20", "y", // 7,3: embedded
		"\x75\x10", long, "\x75\x20", long, // 7,5: hashed, after a gap
		"\x86\x10", long, "\x86\x20", long, // 8,6: as deep, under another parent, a later nibble
		"\x90\x11", long, "\x90\x12", long, // 9,0,1: an odd depth
		"\x90\x21", "x", "\x90\x22", "y", // 9,0,2
		"\x90\x31", long, "\x90\x32", long, // 9,0,3
		"\xa0", "2")
	paths := [][]byte{{7, 0}, {7, 1}, {7, 2}, {7, 3}, {7, 5}, {8, 6}, {9, 0, 1}, {9, 0, 2}, {9, 0, 3}}
	wantRoot, refs, wantNodes := mountOracle(t, pairs, paths...)
	for _, mode := range hashingModes {
		var rec recorder
		tr := mode.new(rec.onNode)
		require.NoError(t, tr.Update([]byte("a"), []byte("1")))
		for i, path := range paths {
			require.NoError(t, tr.UpdateBranch(path, refs[i]), "%s: %x", mode.name, path)
			if i == 0 {
				continue
			}
			assert.ErrorIs(t, tr.UpdateBranch(path, refs[i]), stacktrie.ErrKeyOrder, "%s: %x again", mode.name, path)
			assert.ErrorIs(t, tr.UpdateBranch(paths[i-1], refs[i-1]), stacktrie.ErrKeyOrder, "%s: %x after %x", mode.name, paths[i-1], path)
			assert.ErrorIs(t, tr.UpdateBranch(append(bytes.Clone(path), 0), refs[i]), stacktrie.ErrKeyOrder, "%s: under %x", mode.name, path)
		}
		require.NoError(t, tr.Update([]byte{0xa0}, []byte("2")))
		assert.Equal(t, wantRoot, tr.Hash(), mode.name)
		assertNodes(t, wantNodes, rec.nodes, mode.name)
	}
}

// TestFinalizedRefusesMounts: after Hash, UpdateBranch and Subtrie fail with
// ErrFinalized and change nothing, until Reset.
func TestFinalizedRefusesMounts(t *testing.T) {
	pairs := pairsOf("\x10", "a", "\x20", "b")
	want, _ := oracle(pairs)
	for _, mode := range hashingModes {
		tr := mode.new(nil)
		for _, p := range pairs {
			require.NoError(t, tr.Update(p.Key, p.Value))
		}
		require.Equal(t, want, tr.Hash())
		assert.ErrorIs(t, tr.UpdateBranch([]byte{3}, make([]byte, 32)), stacktrie.ErrFinalized, mode.name)
		top, err := tr.Subtrie()
		assert.ErrorIs(t, err, stacktrie.ErrFinalized, mode.name)
		assert.True(t, top.IsEmpty(), mode.name)
		assert.Equal(t, want, tr.Hash(), "%s: the root after the refused calls", mode.name)

		// An empty trie, hashed, refuses them too.
		empty := mode.new(nil)
		require.Equal(t, stacktrie.EmptyRoot, empty.Hash())
		assert.ErrorIs(t, empty.UpdateBranch(nil, make([]byte, 32)), stacktrie.ErrFinalized, mode.name)
		_, err = empty.Subtrie()
		assert.ErrorIs(t, err, stacktrie.ErrFinalized, mode.name)
		assert.Equal(t, stacktrie.EmptyRoot, empty.Hash(), mode.name)

		tr.Reset()
		require.NoError(t, tr.UpdateBranch([]byte{3}, make([]byte, 32)), "%s: after Reset", mode.name)
	}
}

// TestSubtrieUnmarshalErrors gives UnmarshalBinary each kind of bad input.
func TestSubtrieUnmarshalErrors(t *testing.T) {
	hash := bytes.Repeat([]byte{0xab}, 32)
	field := func(b []byte) []byte { return append([]byte{byte(len(b))}, b...) }
	concat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"no bytes", nil, stacktrie.ErrSubtrieEncoding},
		{"no bytes, not nil", []byte{}, stacktrie.ErrSubtrieEncoding},
		{"unknown form byte 3", []byte{3}, stacktrie.ErrSubtrieEncoding},
		{"unknown form byte 3 with fields", concat([]byte{3}, field([]byte("k")), field([]byte("v"))), stacktrie.ErrSubtrieEncoding},
		{"unknown form byte 0xff with fields", concat([]byte{0xff}, field(nil), field(hash)), stacktrie.ErrSubtrieEncoding},
		{"pair without fields", []byte{1}, stacktrie.ErrSubtrieEncoding},
		{"branch without fields", []byte{2}, stacktrie.ErrSubtrieEncoding},
		{"truncated key", []byte{1, 5, 'k', 'e'}, stacktrie.ErrSubtrieEncoding},
		{"pair without a value field", concat([]byte{1}, field([]byte("k"))), stacktrie.ErrSubtrieEncoding},
		{"truncated value", concat([]byte{1}, field([]byte("k")), []byte{3, 'v'}), stacktrie.ErrSubtrieEncoding},
		{"truncated length", []byte{1, 0x80}, stacktrie.ErrSubtrieEncoding},
		{"length past the end", []byte{1, 0xff, 0xff, 0xff, 0xff, 0x0f, 'k'}, stacktrie.ErrSubtrieEncoding},
		{"length overflowing 64 bits", concat([]byte{1}, bytes.Repeat([]byte{0xff}, 10), []byte{1}), stacktrie.ErrSubtrieEncoding},
		{"truncated reference", concat([]byte{2}, field([]byte{1}), []byte{32}, hash[:31]), stacktrie.ErrSubtrieEncoding},
		{"trailing byte after empty", []byte{0, 0}, stacktrie.ErrSubtrieEncoding},
		{"trailing bytes after a pair", concat([]byte{1}, field([]byte("k")), field([]byte("v")), []byte{0}), stacktrie.ErrSubtrieEncoding},
		{"trailing bytes after a branch", concat([]byte{2}, field([]byte{1}), field(hash), []byte{1, 2}), stacktrie.ErrSubtrieEncoding},
		{"a pair without a value", concat([]byte{1}, field([]byte("k")), field(nil)), stacktrie.ErrSubtrieEncoding},
		{"a pair with the empty key and no value", concat([]byte{1}, field(nil), field(nil)), stacktrie.ErrSubtrieEncoding},
		{"branch nibble 16", concat([]byte{2}, field([]byte{3, 16}), field(hash)), stacktrie.ErrInvalidBranch},
		{"branch nibble 0xff", concat([]byte{2}, field([]byte{0xff}), field(hash)), stacktrie.ErrInvalidBranch},
		{"branch without reference", concat([]byte{2}, field([]byte{3}), field(nil)), stacktrie.ErrInvalidBranch},
		{"branch reference of 33 bytes", concat([]byte{2}, field([]byte{3}), field(append(hash, 0))), stacktrie.ErrInvalidBranch},
		{"branch reference of 31 bytes", concat([]byte{2}, field([]byte{3}), field(hash[:31])), stacktrie.ErrInvalidBranch},
		{"branch reference not a list", concat([]byte{2}, field([]byte{3}), field([]byte{0x83, 1, 2, 3})), stacktrie.ErrInvalidBranch},
		{"branch reference a list of the wrong length", concat([]byte{2}, field([]byte{3}), field([]byte{0xc5, 0x80, 0x80})), stacktrie.ErrInvalidBranch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s stacktrie.Subtrie
			err := s.UnmarshalBinary(tt.data)
			assert.ErrorIs(t, err, tt.want)
			// MountSubtrie refuses the same bytes, and the trie goes on
			// as if it had not been called.
			tr := stacktrie.New(nil)
			require.NoError(t, tr.Update([]byte{0x01}, []byte("v")))
			assert.ErrorIs(t, tr.MountSubtrie(tt.data), tt.want)
			require.NoError(t, tr.Update([]byte{0x99}, []byte("w")))
			root, _ := oracle(pairsOf("\x01", "v", "\x99", "w"))
			assert.Equal(t, root, tr.Hash())
		})
	}
}

// TestSubtrieBinaryForms decodes each form from bytes written by hand and
// checks that MarshalBinary gives the same bytes back.
func TestSubtrieBinaryForms(t *testing.T) {
	hash := bytes.Repeat([]byte{0xab}, 32)
	small := []byte{0xc3, 0x80, 0x80, 0x80}
	long := bytes.Repeat([]byte{7}, 200)
	tests := []struct {
		name string
		data []byte
		want stacktrie.Subtrie
	}{
		{"empty", []byte{0}, stacktrie.Subtrie{}},
		{"pair", []byte{1, 1, 'k', 2, 'v', 'w'}, stacktrie.Subtrie{Key: []byte("k"), Value: []byte("vw")}},
		{"pair with the empty key", []byte{1, 0, 1, 'v'}, stacktrie.Subtrie{Key: []byte{}, Value: []byte("v")}},
		{"pair with a value of 200 bytes", append([]byte{1, 1, 'k', 0xc8, 0x01}, long...), stacktrie.Subtrie{Key: []byte("k"), Value: long}},
		{"branch by hash", append([]byte{2, 2, 3, 15, 32}, hash...), stacktrie.Subtrie{Path: []byte{3, 15}, Ref: hash}},
		{"branch at the root", append([]byte{2, 0, 32}, hash...), stacktrie.Subtrie{Path: []byte{}, Ref: hash}},
		{"branch by its RLP", append([]byte{2, 1, 0, 4}, small...), stacktrie.Subtrie{Path: []byte{0}, Ref: small}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s stacktrie.Subtrie
			require.NoError(t, s.UnmarshalBinary(tt.data))
			assert.Equal(t, tt.want, s)
			assert.Equal(t, tt.want.IsEmpty(), s.IsEmpty())
			back, err := s.MarshalBinary()
			require.NoError(t, err)
			assert.Equal(t, tt.data, back)
		})
	}
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

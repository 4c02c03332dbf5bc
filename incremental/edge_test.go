package incremental

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/reftrie"
)

// key32 returns a 32-byte key: prefix, then fill.
func key32(prefix []byte, fill byte) []byte {
	k := bytes.Repeat([]byte{fill}, 32)
	copy(k, prefix)
	return k
}

// grid returns 32-byte keys under prefix: every pair of the nibbles after
// it, then fill, so that the branches one and two nibbles below the prefix
// are stored (the deeper ones have hash-bit children).
func grid(prefix []byte, fill byte) map[string][]byte {
	state := map[string][]byte{}
	for a := range 16 {
		for b := range 16 {
			k := key32(append(bytes.Clone(prefix), byte(a<<4|b)), fill)
			state[string(k)] = bytes.Repeat([]byte{byte(a), byte(b)}, 16)
		}
	}
	return state
}

// pairGrid returns 32-byte keys under prefix: for every byte after it,
// two keys that part at the nibble after that, so that every branch one
// and two nibbles below the prefix is a hashed branch, and those one
// nibble below are stored.
func pairGrid(prefix []byte, fill byte) map[string][]byte {
	state := map[string][]byte{}
	for a := range 256 {
		for _, b := range []byte{0x00, 0x10} {
			k := key32(append(bytes.Clone(prefix), byte(a), b), fill)
			state[string(k)] = bytes.Repeat([]byte{byte(a), b}, 16)
		}
	}
	return state
}

// chainAt returns a chain whose store was written by Build over state.
func chainAt(t *testing.T, keyLen int, state map[string][]byte) *chain {
	t.Helper()
	c := newChain(keyLen)
	for k, v := range state {
		c.state[k] = v
		c.leaves.Put([]byte(k), v)
	}
	_, err := c.b.Build(c.leaves, c.branches.Write)
	require.NoError(t, err)
	require.Equal(t, expectedRecords(sortedLeaves(c.state)), contents(c.branches))
	return c
}

// countingCursor counts the entries a Cursor returns.
type countingCursor struct {
	Cursor
	entries int
}

func (c *countingCursor) Seek(key []byte) ([]byte, []byte, bool) {
	k, v, ok := c.Cursor.Seek(key)
	if ok {
		c.entries++
	}
	return k, v, ok
}

func (c *countingCursor) Next() ([]byte, []byte, bool) {
	k, v, ok := c.Cursor.Next()
	if ok {
		c.entries++
	}
	return k, v, ok
}

func TestRootEmptyTrie(t *testing.T) {
	b := NewBuilder(HashedKeyLen)
	stored := 0
	root, err := b.Build(&Table{}, func(_, _ []byte) { stored++ })
	require.NoError(t, err)
	assert.Equal(t, stacktrie.EmptyRoot, root)
	root, err = b.Root(&Table{}, &Table{}, nil, func(_, _ []byte) { stored++ })
	require.NoError(t, err)
	assert.Equal(t, stacktrie.EmptyRoot, root)
	assert.Zero(t, stored, "an empty trie stores nothing")

	c := newChain(HashedKeyLen)
	c.block(t, map[string][]byte{string(key32(nil, 1)): nil}) // a deletion from the empty trie
	assert.Zero(t, c.writes)
	c.block(t, grid([]byte{0x12}, 0)) // a trie grown from empty in one block
	assert.NotZero(t, c.branches.Len())
}

func TestRootDeleteEverything(t *testing.T) {
	c := chainAt(t, HashedKeyLen, grid([]byte{0x12}, 0))
	require.NotZero(t, c.branches.Len())
	deletions := map[string][]byte{}
	for k := range c.state {
		deletions[k] = nil
	}
	c.block(t, deletions)
	assert.Zero(t, c.branches.Len(), "every stored branch deleted")
}

func TestRootChangeUnderStoredChild(t *testing.T) {
	state := pairGrid(nil, 0)
	for k, v := range grid([]byte{0x37}, 0xee) {
		state[k] = v // a deeper stored branch under child 3 of the root
	}
	c := chainAt(t, HashedKeyLen, state)
	changed := key32([]byte{0x37, 0x5a}, 0xee)
	leaves := &countingCursor{Cursor: c.leaves}
	var paths [][]byte
	_, err := c.b.Root(c.branches, leaves, [][]byte{changed}, func(path, _ []byte) {
		paths = append(paths, bytes.Clone(path))
	})
	require.NoError(t, err)
	assert.Empty(t, paths, "nothing changed: nothing to store")
	assert.Less(t, leaves.entries, 64, "leaves read only around the changed key, of %d", len(state))

	c.block(t, map[string][]byte{string(changed): []byte("new value")})
	nibbles := reftrie.KeyNibbles(changed)
	require.NotZero(t, c.writes)
	c.leaves.Put(changed, []byte("newer value"))
	_, err = c.b.Root(c.branches, c.leaves, [][]byte{changed}, func(path, _ []byte) {
		assert.True(t, bytes.HasPrefix(nibbles, path), "stored %x, off the changed key's path", path)
	})
	require.NoError(t, err)
}

func TestRootExtensionAboveStoredBranch(t *testing.T) {
	// Every key starts with 0xabcdef: the root is an extension over a
	// stored branch.
	c := chainAt(t, HashedKeyLen, grid([]byte{0xab, 0xcd, 0xef}, 0))
	require.Contains(t, contents(c.branches), string([]byte{0xa, 0xb, 0xc, 0xd, 0xe, 0xf}))
	c.block(t, map[string][]byte{string(key32([]byte{0xab, 0xcd, 0xef, 0x11}, 0)): []byte("changed")})
	// A key that splits the extension: a new branch above the stored one.
	c.block(t, map[string][]byte{string(key32([]byte{0xab, 0xc0}, 0)): []byte("split")})
	// And a child branch under an extension, reused whole while its
	// sibling changes.
	c.block(t, map[string][]byte{string(key32([]byte{0xab, 0xc0}, 0)): []byte("split again")})
	c.block(t, map[string][]byte{string(key32([]byte{0xab, 0xc0}, 0)): nil}) // the extension again
}

func TestRootBranchesCollapseAndAppear(t *testing.T) {
	state := grid([]byte{0x40}, 0)
	for k, v := range grid([]byte{0x41}, 0) {
		state[k] = v
	}
	c := chainAt(t, HashedKeyLen, state)
	// Delete all of 0x41 but two keys: its branches collapse into one
	// branch of two leaves, which is not stored.
	deletions := map[string][]byte{}
	for k := range grid([]byte{0x41}, 0) {
		if k != string(key32([]byte{0x41, 0x00}, 0)) && k != string(key32([]byte{0x41, 0x01}, 0)) {
			deletions[k] = nil
		}
	}
	c.block(t, deletions)
	// Delete one more: a leaf hangs where a branch was.
	c.block(t, map[string][]byte{string(key32([]byte{0x41, 0x00}, 0)): nil})
	// Delete all of 0x40 but one: the root becomes a branch of two leaves.
	deletions = map[string][]byte{}
	for k := range grid([]byte{0x40}, 0) {
		if k != string(key32([]byte{0x40, 0x00}, 0)) {
			deletions[k] = nil
		}
	}
	c.block(t, deletions)
	assert.Zero(t, c.branches.Len())
	// New branches appear under both.
	inserts := grid([]byte{0x40, 0x77}, 1)
	for k, v := range grid([]byte{0x41, 0x88}, 2) {
		inserts[k] = v
	}
	c.block(t, inserts)
	assert.NotZero(t, c.branches.Len())
}

func TestRootStaleTreeBit(t *testing.T) {
	state := pairGrid(nil, 0)
	lone := key32([]byte{0x5f}, 0) // a leaf child of the branch at 5 once 0x5f's other key goes
	delete(state, string(key32([]byte{0x5f, 0x10}, 0)))
	c := chainAt(t, HashedKeyLen, state)
	path := []byte{0x5}
	enc, ok := c.branches.Get(path)
	require.True(t, ok)
	var rec Branch
	require.NoError(t, rec.UnmarshalBinary(enc))
	require.Zero(t, rec.HashMask&(1<<0xf), "child f is a leaf")
	require.NotZero(t, rec.HashMask&(1<<0x0), "child 0 is a branch")
	require.Zero(t, rec.TreeMask&(1<<0x0), "with nothing stored below")
	rec.TreeMask |= 1<<0xf | 1<<0x0 // stale: nothing is stored below either
	stale, err := rec.MarshalBinary()
	require.NoError(t, err)
	c.branches.Put(path, stale)
	treeMask := func() uint16 {
		enc, ok := c.branches.Get(path)
		require.True(t, ok)
		require.NoError(t, rec.UnmarshalBinary(enc))
		return rec.TreeMask
	}

	// A change elsewhere: the root is never stored, so every branch one
	// nibble down is entered, this one too. Under its leaf child f the
	// walker looks for stored branches, finds none and rebuilds the leaf:
	// the bit goes. Child 0, reused whole, keeps its stale bit, as reth
	// keeps it.
	c.rootOnly(t, map[string][]byte{string(key32([]byte{0x61}, 0)): []byte("x")})
	assert.Equal(t, uint16(1<<0x0), treeMask())
	c.rootOnly(t, map[string][]byte{string(lone): []byte("y")})
	assert.Equal(t, uint16(1<<0x0), treeMask())

	// A change under child 0: rebuilt, and the store is Build's again.
	c.block(t, map[string][]byte{string(key32([]byte{0x50}, 0)): []byte("z")})
	assert.Zero(t, treeMask())
}

// nibbleKey returns a 32-byte key that starts with the given nibbles and
// goes on with fill.
func nibbleKey(fill byte, nibbles ...byte) []byte {
	k := bytes.Repeat([]byte{fill}, 32)
	for i, n := range nibbles {
		k[i/2] = k[i/2]&(0x0f<<(4*(i&1))) | n<<(4*(1-i&1))
	}
	return k
}

func TestRootExtensionAboveMountedBranch(t *testing.T) {
	state := map[string][]byte{}
	for _, c := range []byte{0, 1} {
		for a := range byte(16) {
			for b := range byte(16) {
				state[string(nibbleKey(0, 7, 1, 2, 3, c, a, b))] = []byte{c, a, b}
			}
		}
	}
	doomed := [][]byte{nibbleKey(0, 7, 1, 2, 5, 0), nibbleKey(0, 7, 1, 2, 5, 1)}
	for _, k := range append(doomed, nibbleKey(0, 7, 8), nibbleKey(0, 9)) {
		state[string(k)] = []byte("leaf")
	}
	// The branch at 7123 has stored branches below it, and is stored
	// itself; 712 holds it and a branch of the two doomed leaves, and sits
	// under an extension from 71; 7 holds that extension and a leaf.
	c := chainAt(t, HashedKeyLen, state)
	stored := contents(c.branches)
	for _, path := range [][]byte{{7}, {7, 1, 2}, {7, 1, 2, 3}} {
		require.Contains(t, stored, string(path))
	}
	// Deleting the doomed leaves leaves 712 one child: the extension from
	// 71 now reaches 7123, which the walker mounts by its hash, and 7
	// keeps the tree bit of child 1 only if the assembler finds the
	// mounted branch's flags through the extension's whole path.
	deletions := map[string][]byte{}
	for _, k := range doomed {
		deletions[string(k)] = nil
	}
	c.block(t, deletions)
	stored = contents(c.branches)
	require.NotContains(t, stored, string([]byte{7, 1, 2}))
	var seven Branch
	require.NoError(t, seven.UnmarshalBinary(stored[string([]byte{7})]))
	assert.Equal(t, uint16(1<<1), seven.TreeMask, "7's tree bit for the extension over 7123")
}

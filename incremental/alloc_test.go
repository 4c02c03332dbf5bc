//go:build !race

// The race detector allocates on its own and empties sync.Pools at random, so
// allocation counts are only meaningful without it. Every count here is
// exact, one use at a time (testgen.AllocsPerUse): after a first use, each
// later use over the same data must make no allocation.

package incremental

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie/internal/testgen"
)

// noAllocs is what AllocsPerUse must return.
var noAllocs = make([]uint64, testgen.UsesAfterFirst)

// allocBlock returns a chain of 2,000 hashed keys and a block of 40
// changes applied to its flat state, not yet to its store: 20 updates, 10
// deletions and 10 inserts.
func allocBlock(t *testing.T) (*chain, [][]byte) {
	r := newRand(t)
	c := chainAt(t, HashedKeyLen, randomState(r, HashedKeyLen, 2000, 32))
	leaves := sortedLeaves(c.state)
	changes := map[string][]byte{}
	for i := range 30 {
		var value []byte // a deletion
		if i < 20 {
			value = randomValue(r, 32)
		}
		changes[string(leaves[r.IntN(len(leaves))].key)] = value
	}
	for range 10 {
		changes[string(randomKey(r, HashedKeyLen, [][]byte{nil}))] = randomValue(r, 32)
	}
	changed := make([][]byte, 0, len(changes))
	for _, k := range sortedLeaves(changes) {
		changed = append(changed, k.key)
		c.leaves.Put(k.key, k.value)
	}
	return c, changed
}

func TestRootAllocs(t *testing.T) {
	c, changed := allocBlock(t)
	writes := 0
	store := func(_, _ []byte) { writes++ }
	assert.Equal(t, noAllocs, testgen.AllocsPerUse(func() func() {
		b := NewBuilder(HashedKeyLen)
		return func() {
			_, err := b.Root(c.branches, c.leaves, changed, store)
			require.NoError(t, err)
		}
	}), "Builder.Root")
	assert.NotZero(t, writes, "the block changes the store")
	assert.Equal(t, noAllocs, testgen.AllocsPerUse(func() func() {
		return func() {
			_, err := Root(c.branches, c.leaves, changed, store)
			require.NoError(t, err)
		}
	}), "Root, with a pooled Builder")
}

func TestBuildAllocs(t *testing.T) {
	c, _ := allocBlock(t)
	store := func(_, _ []byte) {}
	assert.Equal(t, noAllocs, testgen.AllocsPerUse(func() func() {
		b := NewBuilder(HashedKeyLen)
		return func() {
			_, err := b.Build(c.leaves, store)
			require.NoError(t, err)
		}
	}), "Builder.Build")
	assert.Equal(t, noAllocs, testgen.AllocsPerUse(func() func() {
		return func() {
			_, err := Build(c.leaves, store)
			require.NoError(t, err)
		}
	}), "Build, with a pooled Builder")
}

func TestTableCursorAllocs(t *testing.T) {
	c, changed := allocBlock(t)
	assert.Equal(t, noAllocs, testgen.AllocsPerUse(func() func() {
		return func() {
			for _, k := range changed {
				c.leaves.Seek(k)
				c.leaves.Next()
			}
		}
	}), "Table.Seek and Next")
}

func TestPrefixedAllocs(t *testing.T) {
	c, changed := allocBlock(t)
	// The same trie under an owner's prefix in other tables.
	owner := []byte("owner")
	leaves, branches := &Table{}, &Table{}
	for k, v := range c.leaves.All() {
		leaves.Put(append(bytes.Clone(owner), k...), v)
	}
	for k, v := range c.branches.All() {
		branches.Put(append(bytes.Clone(owner), k...), v)
	}
	writes := 0
	counted := func(_, _ []byte) { writes++ }
	assert.Equal(t, noAllocs, testgen.AllocsPerUse(func() func() {
		b := NewBuilder(HashedKeyLen)
		var cursorL, cursorB PrefixCursor
		var store PrefixStore
		write := store.Write
		return func() {
			cursorL.Reset(leaves, owner)
			cursorB.Reset(branches, owner)
			store.Reset(counted, owner)
			_, err := b.Root(&cursorB, &cursorL, changed, write)
			require.NoError(t, err)
		}
	}), "Builder.Root through PrefixCursor and PrefixStore")
	assert.NotZero(t, writes, "the block changes the store")
}

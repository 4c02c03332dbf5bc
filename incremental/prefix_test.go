package incremental

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

// owners holds the storage tries of several accounts in one leaves table
// and one branches table, each keyed by the account's prefix, as a node's
// database holds them.
type owners struct {
	b        *Builder
	prefixes [][]byte
	states   []map[string][]byte
	leaves   *Table
	branches *Table
	cursorL  PrefixCursor
	cursorB  PrefixCursor
	store    PrefixStore
}

// ownerRecords returns the records of the branches table under prefix,
// without it.
func ownerRecords(t *Table, prefix []byte) map[string][]byte {
	got := map[string][]byte{}
	for k, v := range t.All() {
		if bytes.HasPrefix(k, prefix) {
			got[string(k[len(prefix):])] = bytes.Clone(v)
		}
	}
	return got
}

// check compares each owner's root, computed by compute, with the
// reference trie's, and its records in the shared table with Build's.
func (o *owners) check(t *testing.T, what string, compute func(i int) (stacktrie.Hash, error)) {
	t.Helper()
	for i, prefix := range o.prefixes {
		root, err := compute(i)
		require.NoError(t, err, "%s: owner %x", what, prefix)
		leaves := sortedLeaves(o.states[i])
		require.Equal(t, reference(leaves).Root(), [32]byte(root), "%s: root of owner %x", what, prefix)
		if diff := recordDiff(expectedRecords(leaves), ownerRecords(o.branches, prefix)); diff != "" {
			t.Fatalf("%s: records of owner %x:\n%s", what, prefix, diff)
		}
	}
}

// TestPrefixedOwners builds the storage tries of several owners in shared
// tables through PrefixCursor and PrefixStore, then runs blocks that change
// some owners and not others, each owner's Root over its own view.
func TestPrefixedOwners(t *testing.T) {
	r := newRand(t)
	o := &owners{
		b: NewBuilder(HashedKeyLen),
		// Owners whose prefixes sort next to each other, one of them
		// with an empty trie, and the shared tables' first and last keys.
		prefixes: [][]byte{
			[]byte(strings.Repeat("\x00", 32)),
			[]byte(strings.Repeat("\x00", 31) + "\x01"),
			[]byte("o" + strings.Repeat("\x55", 32)),
			[]byte("o" + strings.Repeat("\x55", 31) + "\x56"),
			[]byte(strings.Repeat("\xff", 33)),
		},
		leaves:   &Table{},
		branches: &Table{},
	}
	for i, prefix := range o.prefixes {
		state := map[string][]byte{}
		if i != 1 {
			state = randomState(r, HashedKeyLen, 50+r.IntN(250), 32)
		}
		o.states = append(o.states, state)
		for k, v := range state {
			o.leaves.Put(append(bytes.Clone(prefix), k...), v)
		}
	}
	o.check(t, "build", func(i int) (stacktrie.Hash, error) {
		o.cursorL.Reset(o.leaves, o.prefixes[i])
		o.store.Reset(o.branches.Write, o.prefixes[i])
		return o.b.Build(&o.cursorL, o.store.Write)
	})
	for range 25 {
		changed := make([][][]byte, len(o.prefixes))
		for i, prefix := range o.prefixes {
			if r.IntN(3) == 0 {
				continue // this owner is untouched
			}
			changes := randomBlock(r, HashedKeyLen, o.states[i], [][]byte{nil, {0x5a}}, 32)
			changed[i] = testgen.ApplyChanges(o.states[i], changes, func(k, v []byte) {
				o.leaves.Put(append(bytes.Clone(prefix), k...), v)
			})
		}
		o.check(t, "block", func(i int) (stacktrie.Hash, error) {
			o.cursorL.Reset(o.leaves, o.prefixes[i])
			o.cursorB.Reset(o.branches, o.prefixes[i])
			o.store.Reset(o.branches.Write, o.prefixes[i])
			return o.b.Root(&o.cursorB, &o.cursorL, changed[i], o.store.Write)
		})
	}
	// Every record in the shared table belongs to an owner.
	total := 0
	for _, prefix := range o.prefixes {
		total += len(ownerRecords(o.branches, prefix))
	}
	require.Equal(t, o.branches.Len(), total)
}

func TestPrefixCursorZero(t *testing.T) {
	var p PrefixCursor
	_, _, ok := p.Seek(nil)
	require.False(t, ok, "a zero PrefixCursor is empty")
	_, _, ok = p.Next()
	require.False(t, ok)
}

package incremental

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie/internal/reftrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

// chain is the model of a node that computes a root each block: the flat
// state as a map and as a Table, and the stored branches.
type chain struct {
	b        *Builder
	state    map[string][]byte
	leaves   *Table
	branches *Table
	writes   int // store calls in the last block
}

func newChain(keyLen int) *chain {
	return &chain{b: NewBuilder(keyLen), state: map[string][]byte{}, leaves: &Table{}, branches: &Table{}}
}

// block applies changes (a nil value deletes) to the flat state, runs Root
// with the changed keys, writes what it stores, and checks the root
// against the reference trie and the stored branches against the oracle.
func (c *chain) block(t *testing.T, changes map[string][]byte) {
	t.Helper()
	changed := testgen.ApplyChanges(c.state, changes, c.leaves.Put)
	c.writes = 0
	var last []byte
	root, err := c.b.Root(c.branches, c.leaves, changed, func(path, branch []byte) {
		// Writes and deletions come in path order, each path once.
		require.True(t, c.writes == 0 || bytes.Compare(last, path) < 0, "store got %x after %x", path, last)
		last = append(last[:0], path...)
		c.writes++
		c.branches.Write(path, branch)
	})
	require.NoError(t, err)
	leaves := sortedLeaves(c.state)
	require.Equal(t, reference(leaves).Root(), [32]byte(root), "root after %d changes", len(changes))
	if diff := recordDiff(expectedRecords(leaves), contents(c.branches)); diff != "" {
		t.Fatalf("stored branches after %d changes:\n%s", len(changes), diff)
	}
}

// rootOnly is block without the check of the stored branches, for a store
// that was damaged on purpose.
func (c *chain) rootOnly(t *testing.T, changes map[string][]byte) {
	t.Helper()
	changed := testgen.ApplyChanges(c.state, changes, c.leaves.Put)
	root, err := c.b.Root(c.branches, c.leaves, changed, c.branches.Write)
	require.NoError(t, err)
	require.Equal(t, reference(sortedLeaves(c.state)).Root(), [32]byte(root))
}

// randomBlock draws a block's changes: updates, inserts, deletions of
// present and absent keys, and now and then a whole subtree deleted,
// everything deleted, or many keys inserted at once.
func randomBlock(r *rand.Rand, keyLen int, state map[string][]byte, prefixes [][]byte, valueLen int) map[string][]byte {
	changes := make(map[string][]byte)
	keys := slices.Sorted(maps.Keys(state))
	switch r.IntN(20) {
	case 0: // everything deleted
		for _, k := range keys {
			changes[k] = nil
		}
		return changes
	case 1: // a subtree deleted: every key under a nibble prefix of a present key
		if len(keys) > 0 {
			prefix := reftrie.KeyNibbles([]byte(keys[r.IntN(len(keys))]))[:r.IntN(2*keyLen)]
			for _, k := range keys {
				if bytes.HasPrefix(reftrie.KeyNibbles([]byte(k)), prefix) {
					changes[k] = nil
				}
			}
		}
	case 2: // many inserts
		for range 50 + r.IntN(200) {
			changes[string(randomKey(r, keyLen, prefixes))] = randomValue(r, valueLen)
		}
	}
	for range r.IntN(12) {
		switch op := r.IntN(4); {
		case op == 0 && len(keys) > 0: // update
			changes[keys[r.IntN(len(keys))]] = randomValue(r, valueLen)
		case op == 1 && len(keys) > 0: // delete
			changes[keys[r.IntN(len(keys))]] = nil
		case op == 2: // delete a key that may well be absent
			k := string(randomKey(r, keyLen, prefixes))
			if _, ok := changes[k]; !ok {
				changes[k] = nil
			}
		default: // insert
			changes[string(randomKey(r, keyLen, prefixes))] = randomValue(r, valueLen)
		}
	}
	return changes
}

func TestRootBlockByBlock(t *testing.T) {
	blocks := 300
	if testing.Short() {
		blocks = 60
	}
	seed := testgen.Seed(t)
	for _, keyLen := range []int{1, 2, 3, 8, 32} {
		for _, valueLen := range []int{1, 32, 0} {
			t.Run(fmt.Sprintf("keyLen=%d/value=%d", keyLen, valueLen), func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, uint64(keyLen*1000+valueLen)))
				prefixes := make([][]byte, 1+r.IntN(4))
				for i := range prefixes {
					prefixes[i] = testgen.Value(r, r.IntN(keyLen))
				}
				c := newChain(keyLen)
				for range blocks {
					c.block(t, randomBlock(r, keyLen, c.state, prefixes, valueLen))
				}
			})
		}
	}
}

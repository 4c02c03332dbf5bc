package compat_test

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/trie/trienode"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie/compat/internal/trietest"
	"github.com/stacktrie/stacktrie/incremental"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

// gethChain is go-ethereum's side of a chain of blocks: a trie.Trie opened
// at the last root over a hash-scheme in-memory database, each block's
// nodes written to it, as a node commits a block.
type gethChain struct {
	db   *triedb.Database
	root common.Hash
}

func (g *gethChain) block(changes map[string][]byte) (common.Hash, error) {
	tr, err := trie.New(trie.TrieID(g.root), g.db)
	if err != nil {
		return common.Hash{}, err
	}
	for _, k := range slices.Sorted(maps.Keys(changes)) {
		if v := changes[k]; v == nil {
			err = tr.Delete([]byte(k))
		} else {
			err = tr.Update([]byte(k), v)
		}
		if err != nil {
			return common.Hash{}, err
		}
	}
	root, set := tr.Commit(false)
	if set != nil {
		if err := g.db.Update(root, g.root, 0, trienode.NewWithNodeSet(set), nil); err != nil {
			return common.Hash{}, err
		}
	}
	g.root = root
	return root, nil
}

// TestIncrementalMatchesGeth runs hundreds of blocks of random changes to
// a flat state of 32-byte keys, from empty: after each, incremental.Root
// over the stored branches must give go-ethereum's root, and the store
// updated with what Root passed to store must hold exactly the records
// incremental.Build gives for the new leaves.
func TestIncrementalMatchesGeth(t *testing.T) {
	blocks := 400
	if testing.Short() {
		blocks = 80
	}
	rng := rand.New(rand.NewPCG(testgen.Seed(t), 15))
	geth := &gethChain{db: triedb.NewDatabase(rawdb.NewMemoryDatabase(), triedb.HashDefaults), root: types.EmptyRootHash}
	state := map[string][]byte{}
	leaves, branches := &incremental.Table{}, &incremental.Table{}
	prefixes := [][]byte{trietest.RandomBytes(rng, 3), trietest.RandomBytes(rng, 9), trietest.RandomBytes(rng, 1)}
	sizes := map[string]int{}
	for block := range blocks {
		changes := randomChanges(rng, state, prefixes)
		changed := testgen.ApplyChanges(state, changes, leaves.Put)
		want, err := geth.block(changes)
		require.NoError(t, err)
		got, err := incremental.Root(branches, leaves, changed, branches.Write)
		require.NoError(t, err)
		require.Equal(t, want, common.Hash(got), "block %d, %d changes, %d leaves", block, len(changes), len(state))

		built := map[string][]byte{}
		root, err := incremental.Build(leaves, func(path, branch []byte) { built[string(path)] = bytes.Clone(branch) })
		require.NoError(t, err)
		require.Equal(t, want, common.Hash(root))
		stored := map[string][]byte{}
		for k, v := range branches.All() {
			stored[string(k)] = bytes.Clone(v)
		}
		require.Equal(t, len(built), len(stored), "block %d: stored branches", block)
		for path, record := range built {
			require.Equal(t, record, stored[path], "block %d: branch at %x", block, path)
		}
		sizes[fmt.Sprintf("%d", min(len(state)/1000*1000, 5000))]++
	}
	t.Logf("blocks by flat state size (rounded down to 1000s, capped): %v", sizes)
}

// randomChanges draws a block: updates, inserts, deletions of present and
// absent keys, some keys under shared prefixes (extensions, deep
// branches), values of 1 to 100 bytes; and now and then a whole subtree
// deleted, everything deleted, or a burst of inserts.
func randomChanges(rng *rand.Rand, state map[string][]byte, prefixes [][]byte) map[string][]byte {
	keys := slices.Sorted(maps.Keys(state))
	newKey := func() []byte {
		k := trietest.RandomBytes(rng, 32)
		if rng.IntN(3) == 0 {
			copy(k, prefixes[rng.IntN(len(prefixes))])
		}
		return k
	}
	value := func() []byte { return trietest.RandomBytes(rng, 1+rng.IntN(100)) }
	changes := map[string][]byte{}
	switch rng.IntN(60) {
	case 0:
		for _, k := range keys {
			changes[k] = nil
		}
		return changes
	case 1, 2:
		if len(keys) > 0 {
			prefix := []byte(keys[rng.IntN(len(keys))])[:1+rng.IntN(2)]
			for _, k := range keys {
				if bytes.HasPrefix([]byte(k), prefix) {
					changes[k] = nil
				}
			}
		}
	case 3, 4, 5, 6, 7, 8:
		for range 100 + rng.IntN(400) {
			changes[string(newKey())] = value()
		}
	}
	for range rng.IntN(40) {
		switch op := rng.IntN(5); {
		case op < 2 && len(keys) > 0:
			changes[keys[rng.IntN(len(keys))]] = value()
		case op == 2 && len(keys) > 0:
			changes[keys[rng.IntN(len(keys))]] = nil
		case op == 3:
			if k := string(newKey()); changes[k] == nil {
				changes[k] = nil // most likely absent
			}
		default:
			changes[string(newKey())] = value()
		}
	}
	return changes
}

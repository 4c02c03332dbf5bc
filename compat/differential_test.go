package compat_test

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/compat/internal/trietest"
)

// TestRootsMatchGethTrie compares roots with go-ethereum's ordinary trie,
// which takes any key set, keys that are prefixes of others included. One
// stacktrie.Trie without a node callback serves every case, so each case
// also checks that Reset leaves nothing behind.
func TestRootsMatchGethTrie(t *testing.T) {
	reused := stacktrie.New(nil)
	for _, c := range keySetCases(testing.Short()) {
		t.Run(c.name, func(t *testing.T) {
			pairs := c.pairs(caseRand(t, c.name))
			want, _, err := trietest.GethTrie(pairs)
			require.NoError(t, err)

			require.NoError(t, trietest.Insert(reused, pairs))
			assert.Equal(t, want, common.Hash(reused.Hash()), "root of a reused trie, %d pairs", len(pairs))

			fresh := stacktrie.New(nil)
			require.NoError(t, trietest.Insert(fresh, pairs))
			assert.Equal(t, want, common.Hash(fresh.Hash()), "root of a new trie, %d pairs", len(pairs))
		})
	}
}

// TestNodesMatchGeth compares the nodes stacktrie reports with those
// go-ethereum commits, as sets keyed by path.
//
// The rule on both sides: a node is reported if its RLP is 32 bytes or longer
// (its parent refers to it by hash), and the root is always reported, at the
// empty path, whatever its size; nodes under 32 bytes are embedded in their
// parents and not reported. go-ethereum's StackTrie callback follows it, and
// so does the ordinary trie's Commit (see trietest.GethTrie), which needs no
// restriction on keys; the StackTrie is compared only on the sets it accepts.
//
// Report order is checked only as documented: each node after all of its
// hashed descendants.
func TestNodesMatchGeth(t *testing.T) {
	var rec trietest.Recorder
	reused := stacktrie.New(rec.OnNode)
	for _, c := range keySetCases(testing.Short()) {
		t.Run(c.name, func(t *testing.T) {
			pairs := c.pairs(caseRand(t, c.name))
			rec.Nodes = nil
			require.NoError(t, trietest.Insert(reused, pairs))
			root := common.Hash(reused.Hash())
			require.NoError(t, trietest.CheckChildrenFirst(rec.Nodes))
			got := trietest.SortedByPath(rec.Nodes)

			wantRoot, wantNodes, err := trietest.GethTrie(pairs)
			require.NoError(t, err)
			assert.Equal(t, wantRoot, root, "root vs geth trie")
			assert.NoError(t, trietest.SameNodes(wantNodes, got), "nodes vs geth trie commit")

			if !trietest.GethStackTrieAccepts(pairs) {
				return
			}
			stRoot, stNodes, err := trietest.GethStackTrie(pairs)
			require.NoError(t, err)
			assert.Equal(t, stRoot, root, "root vs geth stack trie")
			assert.NoError(t, trietest.SameNodes(trietest.SortedByPath(stNodes), got), "nodes vs geth stack trie")
		})
	}
}

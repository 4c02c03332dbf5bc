package trietest

import (
	"bytes"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/trie"
)

// GethStackTrieAccepts reports whether go-ethereum's StackTrie can take the
// normalized set. It panics on the empty key (index out of range) and on a
// key that extends an earlier one ("Trying to insert into existing key").
func GethStackTrieAccepts(pairs []Pair) bool {
	return !hasPrefixKeys(pairs) && (len(pairs) == 0 || len(pairs[0].Key) > 0)
}

// GethStackTrie inserts the normalized pairs into go-ethereum's StackTrie and
// returns its root and the nodes passed to its callback, in callback order.
// The set must satisfy GethStackTrieAccepts.
func GethStackTrie(pairs []Pair) (common.Hash, []Node, error) {
	var nodes []Node
	st := trie.NewStackTrie(func(path []byte, hash common.Hash, blob []byte) {
		nodes = append(nodes, newNode(path, hash, blob))
	})
	for _, p := range pairs {
		if err := st.Update(p.Key, p.Value); err != nil {
			return common.Hash{}, nil, fmt.Errorf("geth stack trie: key %#x: %w", p.Key, err)
		}
	}
	return st.Hash(), nodes, nil
}

// GethTrie inserts the pairs into go-ethereum's ordinary in-memory trie,
// commits it and returns the root and the committed node set, sorted by path.
//
// Commit stores every node whose hash the hasher keeps: each node whose RLP
// is 32 bytes or longer, and the root, which is always hashed, at the empty
// path. Nodes under 32 bytes live inside their parents and are not in the
// set (a fresh trie has no stored nodes to delete). That is the rule
// stacktrie and go-ethereum's StackTrie report nodes by, so the sets compare
// one to one. An empty trie commits no set at all, and yields no nodes here.
func GethTrie(pairs []Pair) (common.Hash, []Node, error) {
	// The trie reads its database only to resolve stored nodes, and one
	// started empty has none, so no database is needed.
	tr := trie.NewEmpty(nil)
	for _, p := range pairs {
		if err := tr.Update(p.Key, p.Value); err != nil {
			return common.Hash{}, nil, fmt.Errorf("geth trie: key %#x: %w", p.Key, err)
		}
	}
	root, set := tr.Commit(false)
	if set == nil {
		return root, nil, nil
	}
	nodes := make([]Node, 0, len(set.Nodes))
	for path, n := range set.Nodes {
		if n.IsDeleted() {
			return common.Hash{}, nil, fmt.Errorf("geth trie: fresh trie deleted node at %q", NibbleString([]byte(path)))
		}
		nodes = append(nodes, newNode([]byte(path), n.Hash, n.Blob))
	}
	return root, SortedByPath(nodes), nil
}

// SameNodes returns an error naming the first difference between two node
// sets given sorted by path, or nil if they are equal.
func SameNodes(want, got []Node) error {
	for i := range min(len(want), len(got)) {
		w, g := want[i], got[i]
		if !bytes.Equal(w.Path, g.Path) || w.Hash != g.Hash || !bytes.Equal(w.Blob, g.Blob) {
			return fmt.Errorf("node %d of %d differs:\nwant %v\ngot  %v", i, len(want), w, g)
		}
	}
	if len(want) != len(got) {
		return fmt.Errorf("want %d nodes, got %d", len(want), len(got))
	}
	return nil
}

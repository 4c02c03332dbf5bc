package trietest

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/stacktrie/stacktrie"
)

// Recorder collects the nodes a stacktrie.Trie reports, in report order.
// Pass its OnNode to stacktrie.New.
type Recorder struct {
	Nodes []Node
}

// OnNode is a stacktrie.NodeFunc that appends a copy of the node.
func (r *Recorder) OnNode(path []byte, hash stacktrie.Hash, blob []byte) {
	r.Nodes = append(r.Nodes, newNode(path, common.Hash(hash), blob))
}

// Insert resets t and feeds it the pairs, stopping at the first error.
func Insert(t *stacktrie.Trie, pairs []Pair) error {
	t.Reset()
	for _, p := range pairs {
		if err := t.Update(p.Key, p.Value); err != nil {
			return err
		}
	}
	return nil
}

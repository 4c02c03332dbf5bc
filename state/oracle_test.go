package state_test

import (
	"encoding/hex"
	"sort"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/reftrie"
	"github.com/stacktrie/stacktrie/state"
)

// The reference answers for a flat state, from the repository's reference
// trie (internal/reftrie), which compat checks against go-ethereum.

// node is a reported node in comparable form.
type node struct{ path, hash, blob string }

type trieAnswer struct {
	root  stacktrie.Hash
	nodes []node // sorted
}

// stateAnswer is what a Builder must give for a state.
type stateAnswer struct {
	root       stacktrie.Hash
	storage    []trieAnswer // per account, in order
	nodes      map[stacktrie.Hash][]node
	mismatches uint64
}

func oracleStorage(slots []flatSlot) trieAnswer {
	t := reftrie.New()
	for _, s := range slots {
		t.Put(s.hash[:], s.value)
	}
	return answerOf(t)
}

func answerOf(t *reftrie.Trie) trieAnswer {
	var nodes []node
	for _, n := range t.Nodes() {
		nodes = append(nodes, node{hex.EncodeToString(n.Path), hex.EncodeToString(n.Hash[:]), hex.EncodeToString(n.Blob)})
	}
	sortNodes(nodes)
	return trieAnswer{root: t.Root(), nodes: nodes}
}

func sortNodes(nodes []node) {
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].path < nodes[j].path })
}

func oracleState(s flatState) stateAnswer {
	ans := stateAnswer{nodes: map[stacktrie.Hash][]node{}}
	accounts := reftrie.New()
	for _, a := range s {
		st := oracleStorage(a.slots)
		ans.storage = append(ans.storage, st)
		if len(st.nodes) > 0 {
			ans.nodes[a.hash] = st.nodes
		}
		if st.root != a.account.Root {
			ans.mismatches++
		}
		leaf := a.account
		leaf.Root = st.root
		accounts.Put(a.hash[:], expectedRLP(leaf, false))
	}
	at := answerOf(accounts)
	ans.root = at.root
	if len(at.nodes) > 0 {
		ans.nodes[stacktrie.Hash{}] = at.nodes
	}
	return ans
}

// nodeRecorder keeps what a Builder reports, by owner, in the order
// reported. The Builder serializes its calls. Without nodes, it is given
// as OnAccount only, so that the Builder hashes without a node callback,
// the way it checks a state rather than regenerating it.
type nodeRecorder struct {
	nodes        map[stacktrie.Hash][]node
	accounts     []state.AccountResult
	withoutNodes bool
}

func newNodeRecorder() *nodeRecorder {
	return &nodeRecorder{nodes: map[stacktrie.Hash][]node{}}
}

func (r *nodeRecorder) onNode(owner stacktrie.Hash, path []byte, hash stacktrie.Hash, blob []byte) {
	r.nodes[owner] = append(r.nodes[owner], node{hex.EncodeToString(path), hex.EncodeToString(hash[:]), hex.EncodeToString(blob)})
}

func (r *nodeRecorder) onAccount(a state.AccountResult) {
	r.accounts = append(r.accounts, a)
}

func (r *nodeRecorder) options(workers int) state.Options {
	if r.withoutNodes {
		return state.Options{Workers: workers, OnAccount: r.onAccount}
	}
	return state.Options{Workers: workers, OnNode: r.onNode, OnAccount: r.onAccount}
}

// childrenFirst reports the first node reported before a node below it in
// the same trie, if any.
func childrenFirst(nodes []node) (node, bool) {
	at := make(map[string]int, len(nodes))
	for i, n := range nodes {
		at[n.path] = i
	}
	for i, n := range nodes {
		for end := 0; end < len(n.path); end += 2 {
			if j, ok := at[n.path[:end]]; ok && j < i {
				return nodes[j], false
			}
		}
	}
	return node{}, true
}

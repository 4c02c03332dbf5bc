package state

// This file combines the account trie's chunks into the state root.

import "github.com/stacktrie/stacktrie"

// The mounter combines the account trie's chunks, in order, into the state
// root: the workers build them, and it mounts their groups' tops into one
// Trie. A state whose account trie fits in one job is built whole by a
// worker, and the mounter only passes its root on.
type mounter struct {
	trie  *stacktrie.Trie
	owner stacktrie.Hash // zero: the account trie's nodes have no owner
	root  stacktrie.Hash // the state root, once the stream's last job is in
}

func (p *pipeline) mount() {
	defer p.exited.Done()
	m := &p.mnt
	for j := range p.accountOrder {
		if j == nil {
			p.roots <- m.root
			continue
		}
		<-j.done
		it := &j.items[0] // an account-trie job holds one item
		for t := it.topsFrom; t < it.topsTo; t++ {
			_ = m.trie.MountSubtrie(j.top(t)) // in key order: cannot fail
		}
		switch {
		case it.whole():
			m.root = it.root
		case !it.hasAfter:
			m.root = m.trie.Hash()
			m.trie.Reset()
		}
		j.reset()
		p.freeAccounts <- j
	}
}

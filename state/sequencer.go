package state

// This file completes accounts in stream order, which the account trie
// needs, while their storage tries are built out of order.

import "github.com/stacktrie/stacktrie"

// The sequencer completes the accounts in stream order, once the workers
// have built their storage: it mounts the tops of a large storage trie's
// chunks into one Trie, which gives that trie's root; reports the account;
// and writes its leaf, with the computed storage root, into the account
// trie's jobs, cut into chunks as the storage of a large account is.
type sequencer struct {
	storage *stacktrie.Trie // the combined chunks of the large storage trie being completed
	owner   stacktrie.Hash  // the account it belongs to, for the node callback

	leaves  *job           // the account-trie job being filled
	chunked bool           // whether account-trie chunks were sent in this stream
	before  stacktrie.Hash // the last key of the last chunk sent

	mismatches uint64
}

func (p *pipeline) sequence() {
	defer p.exited.Done()
	for j := range p.storageOrder {
		if j == nil {
			p.endAccounts()
			continue
		}
		<-j.done
		for i := range j.items {
			p.complete(j, &j.items[i])
		}
		j.reset()
		p.freeStorage <- j
	}
}

// complete takes in a storage item: the tops of a chunk, and the account
// if its storage ends here.
func (p *pipeline) complete(j *job, it *item) {
	s := &p.seq
	s.owner = it.owner
	for t := it.topsFrom; t < it.topsTo; t++ {
		// The groups' tops come in key order: mounting cannot fail.
		_ = s.storage.MountSubtrie(j.top(t))
	}
	if !it.closes {
		return
	}
	root := it.root
	if !it.whole() {
		root = s.storage.Hash()
		s.storage.Reset()
	}
	result := AccountResult{Hash: it.owner, Slots: it.slots, StoredRoot: it.account.Root, ComputedRoot: root}
	if result.Mismatch() {
		s.mismatches++
	}
	if p.onAccount != nil {
		p.report.Lock()
		p.onAccount(result)
		p.report.Unlock()
	}
	it.account.Root = root
	p.addLeaf(&it.owner, &it.account)
}

// addLeaf appends an account's leaf to the account trie's job, and sends a
// chunk of the job once it is full.
func (p *pipeline) addLeaf(key *stacktrie.Hash, a *Account) {
	s := &p.seq
	if s.leaves == nil {
		s.leaves = <-p.freeAccounts
	}
	j := s.leaves
	j.addAccount(key, a)
	if !j.full() {
		return
	}
	last := j.cut(0)
	j.items = append(j.items, item{end: last + 1, hasBefore: s.chunked, before: s.before, hasAfter: true, after: j.keys[last+1]})
	s.before, s.chunked = j.keys[last], true
	s.leaves = <-p.freeAccounts
	j.moveTail(s.leaves, last+1)
	p.send(j, p.accountOrder)
}

// endAccounts sends the account trie's last job, whole if it is the only
// one, and ends the stream for the mounter.
func (p *pipeline) endAccounts() {
	s := &p.seq
	s.storage.Reset() // a stream given up may end inside a large storage trie
	if s.leaves == nil {
		s.leaves = <-p.freeAccounts
	}
	j := s.leaves
	j.items = append(j.items, item{end: int32(len(j.keys)), hasBefore: s.chunked, before: s.before})
	p.send(j, p.accountOrder)
	s.leaves, s.chunked = nil, false
	p.mismatches, s.mismatches = s.mismatches, 0
	p.accountOrder <- nil
}

package stacktrie

// This file lets one Trie end trie after trie without waiting for each
// root, so that the nodes of many small tries share the SIMD lanes. On its
// own, a trie of a few keys leaves most lanes idle: its leaves fill some of
// them, and its root goes alone into the next step.

// HashLater ends the trie as Hash does, but does not wait for the root: the
// root is written to *root once it is hashed, at the latest when Flush or
// Reset returns, and the Trie at once takes the next trie's pairs, as after
// Reset. The nodes of tries ended this way are hashed side by side, a
// storage trie per contract or a list root per block, where Hash would run
// the lanes for each trie's last few nodes alone. *root must not be read
// before Flush, and must stay where it is until then: an element of a slice
// that append may still move is not; root may be nil to drop the root.
//
// With a node callback, or without SIMD lanes, HashLater hashes at once, as
// Hash does, so that every trie's nodes are reported before the next trie's
// begin. After Hash, HashLater writes the root Hash gave.
func (t *Trie) HashLater(root *Hash) {
	if root == nil {
		root = &t.dropped
	}
	if t.hashed || !t.hasLast || t.batch.lanes == nil || t.batch.onNode != nil {
		*root = t.Hash()
		t.restart()
		return
	}
	ref := t.foldAll()
	if ref.job == noJob {
		*root = ref.buf // a mounted branch at the root, hashed already
	} else {
		t.batch.sendTo(ref.job, destination{kind: toLater, index: t.awaitRoot(root)})
	}
	t.restart()
	if t.batch.mustHash() {
		t.batch.hash(false)
	}
}

// Flush hashes what is left of the tries ended with HashLater and writes
// their roots. It may be called at any time, also in the middle of a trie,
// whose pairs it leaves as they are.
func (t *Trie) Flush() {
	if len(t.later) > len(t.laterFree) {
		t.batch.drain()
	}
}

// awaitRoot keeps root until its trie's root is delivered, and returns the
// index the delivery names it by.
func (t *Trie) awaitRoot(root *Hash) int32 {
	if n := len(t.laterFree); n > 0 {
		i := t.laterFree[n-1]
		t.laterFree = t.laterFree[:n-1]
		t.later[i] = root
		return i
	}
	t.later = append(t.later, root)
	return int32(len(t.later) - 1)
}

// deliverLater writes the root of a trie ended with HashLater.
func (t *Trie) deliverLater(i int32, hash *[32]byte) {
	*t.later[i] = *hash
	t.later[i] = nil // not kept past its delivery
	t.laterFree = append(t.laterFree, i)
}

// restart readies the trie for new pairs, leaving the nodes still being
// hashed to the batcher.
func (t *Trie) restart() {
	t.frames = t.frames[:0]
	t.last.key = t.last.key[:0]
	t.hasLast = false
	t.hashed = false
}

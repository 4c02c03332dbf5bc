package incremental

// This file is where the assembler remembers, for each hashed node whose
// parent is not yet final, what the parent's masks need: whether the node
// is a branch, and whether a stored branch lies at it or below. A trie
// reports a node's children before the node, but siblings' subtrees may
// interleave, so the entries wait in a small hash set keyed by the node's
// hash (uniform bytes: no hash function needed) until the parent takes
// them. At most a few hundred wait at once: the spine's finalized children
// and the trie's jobs in flight.

import (
	"encoding/binary"

	"github.com/stacktrie/stacktrie"
)

// nodeFlags is what a parent's masks need to know of a hashed child.
type nodeFlags uint8

const (
	// isBranch: the child is a branch node, so its parent gets a hash bit.
	isBranch nodeFlags = 1 << iota
	// hasStored: a stored branch lies at the child or below it, so its
	// parent gets a tree bit.
	hasStored
)

type pendingEntry struct {
	hash  stacktrie.Hash
	flags nodeFlags // 0: a free slot
}

// pendingSet is an open-addressing multiset of hashes with linear probing.
// Two equal subtries have equal hashes and equal flags, so duplicates are
// kept and taken one at a time. Flags of 0 are never stored: absence says
// the same.
type pendingSet struct {
	slots []pendingEntry // a power of two long
	count int
}

const pendingInitialSlots = 256

func (s *pendingSet) reset() {
	if s.slots == nil {
		s.slots = make([]pendingEntry, pendingInitialSlots)
	}
	clear(s.slots)
	s.count = 0
}

func (s *pendingSet) home(h *stacktrie.Hash) int {
	return int(binary.LittleEndian.Uint64(h[:8]) & uint64(len(s.slots)-1))
}

// put adds a node's flags under its hash.
func (s *pendingSet) put(h *stacktrie.Hash, f nodeFlags) {
	if f == 0 {
		return
	}
	if 2*(s.count+1) > len(s.slots) {
		s.grow()
	}
	i := s.home(h)
	for s.slots[i].flags != 0 {
		i = (i + 1) & (len(s.slots) - 1)
	}
	s.slots[i] = pendingEntry{hash: *h, flags: f}
	s.count++
}

// take removes one entry of hash h and returns its flags; 0 if there is none.
func (s *pendingSet) take(h *stacktrie.Hash) nodeFlags {
	mask := len(s.slots) - 1
	for i := s.home(h); s.slots[i].flags != 0; i = (i + 1) & mask {
		if s.slots[i].hash != *h {
			continue
		}
		f := s.slots[i].flags
		s.remove(i)
		return f
	}
	return 0
}

// remove frees slot i and moves back the entries after it that their home
// slot allows, so that every entry stays reachable from its home without
// tombstones.
func (s *pendingSet) remove(i int) {
	mask := len(s.slots) - 1
	s.count--
	for j := (i + 1) & mask; s.slots[j].flags != 0; j = (j + 1) & mask {
		home := s.home(&s.slots[j].hash)
		// Entry j may fill the hole at i unless its home lies in (i, j],
		// cyclically.
		if (j-home)&mask >= (j-i)&mask {
			s.slots[i] = s.slots[j]
			i = j
		}
	}
	s.slots[i] = pendingEntry{}
}

func (s *pendingSet) grow() {
	old := s.slots
	s.slots = make([]pendingEntry, 2*len(old))
	s.count = 0
	for i := range old {
		if old[i].flags != 0 {
			s.put(&old[i].hash, old[i].flags)
		}
	}
}

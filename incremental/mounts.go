package incremental

// This file is where the assembler finds the flags of the branches the
// walker mounted by hash, most of the hashed children of the branches Root
// rebuilds. Each mounted branch is a child of a stored record the walker
// covered, and the new trie holds it at the same path, so its flags are
// kept by the record's path, a group of up to sixteen children in two
// masks: one entry for a whole record instead of one for each child in
// the hash set, and one look-up when the trie reports the record's branch.

import (
	"bytes"
)

// mountGroup is the mounted children of the record at one path.
type mountGroup struct {
	start, end int32  // the path, in mountGroups.paths
	mounted    uint16 // bit i: the child at the path and nibble i was mounted
	stored     uint16 // bit i: and a stored branch lies at it or below it
}

// mountGroups holds the groups of one Root, found by path through an
// open-addressing table of group indexes. Groups are only added during a
// Root, one a record: a table slot of an older Root, told apart by its
// generation, is free.
type mountGroups struct {
	paths  []byte
	groups []mountGroup
	slots  []groupSlot // a power of two long, at most half full
	gen    uint32
}

type groupSlot struct {
	gen   uint32
	group int32
}

const mountGroupsInitialSlots = 256

func (g *mountGroups) reset() {
	if g.slots == nil {
		g.slots = make([]groupSlot, mountGroupsInitialSlots)
	}
	g.paths, g.groups = g.paths[:0], g.groups[:0]
	g.gen++
	if g.gen == 0 { // wrapped: no slot may look current
		clear(g.slots)
		g.gen = 1
	}
}

func (g *mountGroups) path(i int) []byte {
	return g.paths[g.groups[i].start:g.groups[i].end]
}

// hashPath mixes a nibble path into a slot index.
func hashPath(path []byte) uint64 {
	h := uint64(len(path)) * 0x9e3779b97f4a7c15
	for _, n := range path {
		h = (h ^ uint64(n)) * 0x100000001b3
	}
	return h ^ h>>29
}

// find returns the index of the group at path, or -1, and the slot where
// it is or would go.
func (g *mountGroups) find(path []byte) (int, int) {
	mask := len(g.slots) - 1
	for i := int(hashPath(path)) & mask; ; i = (i + 1) & mask {
		s := g.slots[i]
		if s.gen != g.gen {
			return -1, i
		}
		if bytes.Equal(g.path(int(s.group)), path) {
			return int(s.group), i
		}
	}
}

// add records the children of the record at path that the walker
// mounted, and which of those have stored branches at or below them. A
// record is covered once a Root, so its path is new.
func (g *mountGroups) add(path []byte, mounted, stored uint16) {
	if 2*(len(g.groups)+1) > len(g.slots) {
		g.grow()
	}
	_, slot := g.find(path)
	start := len(g.paths)
	g.paths = append(g.paths, path...)
	g.groups = append(g.groups, mountGroup{start: int32(start), end: int32(len(g.paths)), mounted: mounted, stored: stored})
	g.slots[slot] = groupSlot{gen: g.gen, group: int32(len(g.groups) - 1)}
}

func (g *mountGroups) grow() {
	g.slots = make([]groupSlot, 2*len(g.slots))
	mask := len(g.slots) - 1
	for i := range g.groups {
		j := int(hashPath(g.path(i))) & mask
		for g.slots[j].gen == g.gen {
			j = (j + 1) & mask
		}
		g.slots[j] = groupSlot{gen: g.gen, group: int32(i)}
	}
}

// masks returns the mounted and stored masks of the record at path: zero
// if the walker mounted none of its children.
func (g *mountGroups) masks(path []byte) (mounted, stored uint16) {
	if i, _ := g.find(path); i >= 0 {
		return g.groups[i].mounted, g.groups[i].stored
	}
	return 0, 0
}

// flags returns the flags of the node at path, which is not empty, if the
// walker mounted it, and whether it did.
func (g *mountGroups) flags(path []byte) (nodeFlags, bool) {
	mounted, stored := g.masks(path[:len(path)-1])
	bit := uint16(1) << path[len(path)-1]
	if mounted&bit == 0 {
		return 0, false
	}
	f := isBranch
	if stored&bit != 0 {
		f |= hasStored
	}
	return f, true
}

package incremental

// This file turns the nodes a stacktrie.Trie reports into branch records,
// with no change to the Trie: each hashed node comes with its path, hash
// and RLP, children before parents, so when a branch is reported its
// children's flags are known. Its state mask is its non-empty slots; a
// slot holding a 32-byte hash gets a hash bit if that child was a branch,
// and a tree bit if a stored branch lies at or below it. An embedded child
// (under 32 bytes) is never reported and holds no stored branch, so it gets
// neither. Branches mounted with UpdateBranch are not reported either: the
// walker, which knows whether stored branches lie below them, says so for
// each record it covered, and the flags wait by path in mounts.

import (
	"errors"

	"github.com/stacktrie/stacktrie"
)

// errNotANode would mean a Trie reported bytes that are not a node it
// writes: a bug, reported rather than turned into wrong records.
var errNotANode = errors.New("incremental: the trie reported a node that is not one")

// assembler builds the record of each reported branch that has a hash or a
// tree bit, but the root's, and passes it to store at once, or keeps it in
// kept.
type assembler struct {
	pending pendingSet
	mounts  mountGroups
	branch  Branch
	child   []byte // the path of an extension's child
	record  []byte // the encoding being emitted
	store   func(path, record []byte)
	kept    *records
	err     error // the first errNotANode
}

func (a *assembler) reset(store func(path, record []byte), kept *records) {
	a.pending.reset()
	a.mounts.reset()
	a.store, a.kept, a.err = store, kept, nil
}

func (a *assembler) emit(path, record []byte) {
	switch {
	case a.kept != nil:
		a.kept.add(path, record)
	case a.store != nil:
		a.store(path, record)
	}
}

// onNode is the Trie's NodeFunc.
func (a *assembler) onNode(path []byte, hash stacktrie.Hash, blob []byte) {
	list, items, _, ok := splitItem(blob)
	if !ok || !list {
		a.err = errNotANode
		return
	}
	_, first, rest, ok := splitItem(items)
	if !ok {
		a.err = errNotANode
		return
	}
	secondList, second, rest, ok := splitItem(rest)
	if !ok {
		a.err = errNotANode
		return
	}
	if len(rest) == 0 {
		a.onShortNode(path, &hash, first, second, secondList)
		return
	}
	a.onBranch(path, &hash, items)
}

// onShortNode passes an extension's hasStored flag up to its parent; a
// leaf has no flags.
func (a *assembler) onShortNode(path []byte, hash *stacktrie.Hash, key, child []byte, childList bool) {
	if len(path) == 0 || !isExtension(key) || childList || len(child) != len(stacktrie.Hash{}) {
		return
	}
	a.child = appendCompactNibbles(append(a.child[:0], path...), key)
	f, ok := a.mounts.flags(a.child)
	if !ok {
		f = a.pending.take((*stacktrie.Hash)(child))
	}
	if f&hasStored != 0 {
		a.pending.put(hash, hasStored)
	}
}

// onBranch works out the masks of a branch whose 17 items are in items,
// emits its record if it is stored, and leaves its flags for its parent.
func (a *assembler) onBranch(path []byte, hash *stacktrie.Hash, items []byte) {
	b := &a.branch
	b.StateMask, b.TreeMask, b.HashMask = 0, 0, 0
	mounted, stored := a.mounts.masks(path)
	for i := range 16 {
		list, ref, rest, ok := splitItem(items)
		if !ok {
			a.err = errNotANode
			return
		}
		items = rest
		if !list && len(ref) == 0 {
			continue
		}
		bit := uint16(1) << i
		b.StateMask |= bit
		if list || len(ref) != len(stacktrie.Hash{}) {
			continue
		}
		if mounted&bit != 0 {
			b.HashMask |= bit
			b.TreeMask |= stored & bit
			b.Hashes[i] = stacktrie.Hash(ref)
			continue
		}
		f := a.pending.take((*stacktrie.Hash)(ref))
		if f&isBranch != 0 {
			b.HashMask |= bit
			b.Hashes[i] = stacktrie.Hash(ref)
		}
		if f&hasStored != 0 {
			b.TreeMask |= bit
		}
	}
	if len(path) == 0 {
		return // the root: never stored, and no parent
	}
	flags := isBranch
	if b.TreeMask|b.HashMask != 0 {
		flags |= hasStored
		var err error
		if a.record, err = b.AppendBinary(a.record[:0]); err != nil {
			a.err = errNotANode
			return
		}
		a.emit(path, a.record)
	}
	a.pending.put(hash, flags)
}

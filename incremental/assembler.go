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
	"encoding/binary"
	"errors"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/rlp"
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

// assembles reports whether onNode can make anything of a node: a branch,
// an extension, or bytes that are not a node, which it refuses; not a leaf.
func assembles(path, blob []byte) bool {
	list, items, _, ok := splitItem(blob)
	if !ok || !list {
		return true
	}
	_, first, rest, ok := splitItem(items)
	if !ok {
		return true
	}
	if _, _, rest, ok = splitItem(rest); !ok || len(rest) != 0 {
		return true
	}
	return len(path) != 0 && isExtension(first)
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
// The record is written as the children are read: the masks' room first,
// then each hash-bit child's hash, in nibble order.
func (a *assembler) onBranch(path []byte, hash *stacktrie.Hash, items []byte) {
	const hashLen = byte(len(stacktrie.Hash{}))
	var state, tree, hashes uint16
	mounted, stored := a.mounts.masks(path)
	rec := append(a.record[:0], make([]byte, maskBytes)...)
	for i := range 16 {
		bit := uint16(1) << i
		var ref []byte
		switch {
		case len(items) > 0 && items[0] == rlp.String: // no child
			items = items[1:]
			continue
		case len(items) > int(hashLen) && items[0] == rlp.String+hashLen: // a child by hash
			ref, items = items[1:1+hashLen], items[1+hashLen:]
		default: // a child embedded in its parent: no flags
			list, payload, rest, ok := splitItem(items)
			if !ok {
				a.err = errNotANode
				return
			}
			items = rest
			if list || len(payload) != 0 {
				state |= bit
			}
			continue
		}
		state |= bit
		var f nodeFlags
		switch {
		case mounted&bit == 0:
			f = a.pending.take((*stacktrie.Hash)(ref))
		case stored&bit != 0:
			f = isBranch | hasStored
		default:
			f = isBranch
		}
		if f&isBranch != 0 {
			hashes |= bit
			rec = append(rec, ref...)
		}
		if f&hasStored != 0 {
			tree |= bit
		}
	}
	a.record = rec
	if len(path) == 0 {
		return // the root: never stored, and no parent
	}
	flags := isBranch
	if tree|hashes != 0 {
		flags |= hasStored
		if checkMasks(state, tree, hashes) != nil {
			a.err = errNotANode
			return
		}
		binary.BigEndian.PutUint16(rec, state)
		binary.BigEndian.PutUint16(rec[2:], tree)
		binary.BigEndian.PutUint16(rec[4:], hashes)
		a.emit(path, rec)
	}
	a.pending.put(hash, flags)
}

package incremental

// This file is Root's walk: it feeds the Trie, in key order, every leaf of
// the new flat state, except that a child of a stored branch that no
// changed key falls under, and that is a branch whose hash the record
// holds, goes in whole with UpdateBranch. Stored branches are entered
// wherever a changed key lies below them, and wherever the leaves would
// otherwise be read past one (under an extension); every branch entered is
// deleted at the end unless the trie built it again.

import (
	"bytes"
	"fmt"
)

type walker struct {
	b           *Builder
	feed        feeder // the trie, on a goroutine of its own
	changed     [][]byte
	nextChanged int // the first changed key not before the walk's position
	leaves      reader
	branches    reader
	// path is the nibble path of the region being covered. The regions on
	// the recursion stack are prefixes of each other, so one buffer holds
	// them all.
	path []byte
	pos  []byte       // where coverRange resumes within its region
	held []recordView // the records being walked, one a level
	// entered are the records the walk entered, in path order.
	entered records
}

func (w *walker) init(b *Builder) {
	w.b = b
	w.feed.e = b.engine
	w.path = make([]byte, 2*b.keyLen)
	w.held = make([]recordView, 2*b.keyLen)
}

func (w *walker) start(branches, leaves Cursor, changed [][]byte) {
	w.changed, w.nextChanged = changed, 0
	w.leaves.reset(leaves, w.b.keyLen, false)
	w.branches.reset(branches, w.b.keyLen, true)
	w.entered.reset()
	w.b.built.reset()
}

// changedChildren returns the mask of the children of path that changed
// keys fall under: bit i for a changed key that starts with path and
// nibble i. The paths asked about never go backwards, and are shorter than
// a key.
func (w *walker) changedChildren(path []byte) uint16 {
	for w.nextChanged < len(w.changed) && comparePrefix(w.changed[w.nextChanged], path) < 0 {
		w.nextChanged++
	}
	var mask uint16
	for _, k := range w.changed[w.nextChanged:] {
		if comparePrefix(k, path) != 0 {
			break
		}
		mask |= 1 << keyNibble(k, len(path))
	}
	return mask
}

// coverRange feeds the trie everything under w.path[:n], the region: the
// leaves between the stored branches under it, and each of those branches
// through coverRecord. level is the nesting of the records around it.
func (w *walker) coverRange(n, level int) error {
	region := w.path[:n]
	w.pos = append(w.pos[:0], region...)
	for {
		if err := w.branches.seek(w.pos); err != nil {
			return err
		}
		if !w.branches.ok || !bytes.HasPrefix(w.branches.key, region) {
			return w.feedLeaves(region, nil)
		}
		if !onlyZerosAfter(w.branches.key, w.pos) {
			if err := w.feedLeaves(region, w.branches.key); err != nil {
				return err
			}
		}
		m := copy(w.path, w.branches.key)
		if err := w.coverRecord(m, level); err != nil {
			return err
		}
		// Resume after the record's subtree, unless it ends the region.
		j := m - 1
		for j >= n && w.path[j] == 0x0f {
			j--
		}
		if j < n {
			return nil
		}
		w.pos = append(w.pos[:0], w.path[:j+1]...)
		w.pos[j]++
	}
}

// onlyZerosAfter reports whether path is from followed by zero nibbles
// only: then no key lies at or after from and before path, and the leaves
// cursor need not be asked.
func onlyZerosAfter(path, from []byte) bool {
	if !bytes.HasPrefix(path, from) {
		return false
	}
	for _, n := range path[len(from):] {
		if n != 0 {
			return false
		}
	}
	return true
}

// feedLeaves feeds the trie the leaves from w.pos on that start with
// region, up to the first that starts with stop, or the last if stop is nil.
func (w *walker) feedLeaves(region, stop []byte) error {
	r := &w.leaves
	if err := r.seek(w.pos); err != nil {
		return err
	}
	for r.ok && comparePrefix(r.key, region) == 0 && (stop == nil || comparePrefix(r.key, stop) < 0) {
		w.feed.leaf(r.key, r.value)
		if err := r.next(); err != nil {
			return err
		}
	}
	return nil
}

// coverRecord feeds the trie everything under the stored branch at
// w.path[:m], the branches cursor's current record: each child that no
// changed key falls under and whose hash the record holds is mounted
// whole, the others covered.
func (w *walker) coverRecord(m, level int) error {
	// The record is viewed in the walk's copy of it, which stays as it is
	// while later records are added: an append that grows the buffer
	// leaves the old one to the views that hold it.
	record := w.entered.add(w.path[:m], w.branches.value)
	rec := &w.held[level]
	var err error
	if *rec, err = viewRecord(record); err != nil {
		return fmt.Errorf("stored branch %x: %w", w.path[:m], err)
	}
	if err := w.branches.next(); err != nil {
		return err
	}
	var mounted uint16
	changed := w.changedChildren(w.path[:m])
	for i := range 16 {
		w.path[m] = byte(i)
		child := w.path[:m+1]
		bit := uint16(1) << i
		if changed&bit == 0 {
			if rec.state&bit == 0 {
				continue
			}
			if rec.hash&bit != 0 {
				w.feed.mount(child, rec.childHash(i))
				mounted |= bit
				continue
			}
		}
		if rec.tree&bit == 0 {
			// No stored branch lies under the child: its leaves are all
			// there is, without a look for records.
			w.pos = append(w.pos[:0], child...)
			if err := w.feedLeaves(child, nil); err != nil {
				return err
			}
			continue
		}
		if err := w.coverRange(m+1, level+1); err != nil {
			return err
		}
	}
	// The record's tree bits say which mounted children have stored
	// branches at or below them: exact in a store that Build and Root
	// wrote. A stale tree bit from elsewhere is carried over, as reth
	// carries it, and costs nothing but a look for branches that are not
	// there once a change falls under the child.
	if mounted != 0 {
		w.feed.group(w.path[:m], mounted, rec.tree&mounted)
	}
	return nil
}

// flush gives store the differences between the records entered and those
// built, in path order: a record built, unless it is what was stored; a
// deletion for a record entered and not built.
func (w *walker) flush(store func(path, branch []byte)) {
	w.b.built.sortByPath()
	old, built := &w.entered, &w.b.built
	i, j := 0, 0
	for i < old.len() || j < built.len() {
		c := 0
		switch {
		case i == old.len():
			c = 1
		case j == built.len():
			c = -1
		default:
			c = bytes.Compare(old.path(i), built.path(j))
		}
		switch {
		case c < 0:
			store(old.path(i), nil)
			i++
		case c > 0:
			store(built.path(j), built.record(j))
			j++
		default:
			if !bytes.Equal(old.record(i), built.record(j)) {
				store(built.path(j), built.record(j))
			}
			i++
			j++
		}
	}
}

package incremental

// This file reads the two cursors Root walks, leaves and stored branches,
// always forward, checking each entry as it arrives: the key length and a
// non-empty value of a leaf, a valid path of a branch, ascending order. To
// skip a reused subtrie's entries it seeks rather than stepping over them
// with Next: each entry read is a check and a copy, a Table's Seek
// gallops from where it stands, and pebble's tries Next itself before it
// searches, when the seek is forward from the last.

import (
	"bytes"
	"fmt"
)

// A reader reads one of the cursors forward. key and value are its current
// entry when ok: a leaf's key and value, or a stored branch's nibble path
// and record.
type reader struct {
	cursor     Cursor
	branches   bool // the cursor holds branch records, not leaves
	keyLen     int  // the length of a leaf's key
	key, value []byte
	ok         bool
	started    bool
	last       []byte // a copy of the last key read
	target     []byte // the last key sought
}

func (r *reader) reset(c Cursor, keyLen int, branches bool) {
	r.cursor, r.keyLen, r.branches, r.ok, r.started = c, keyLen, branches, false, false
	r.key, r.value = nil, nil
}

// seek makes the current entry the first one at path or after it, path
// being a nibble path: for leaves, the first that starts with path or comes
// after every key that does. path must not come before the entries already
// passed.
func (r *reader) seek(path []byte) error {
	if r.branches {
		r.target = append(r.target[:0], path...)
	} else {
		// Keys are longer than any path, and a packed path ends in zero
		// nibbles, so a key comes before it exactly when it comes before
		// every key that starts with path.
		r.target = appendPacked(r.target[:0], path)
	}
	if r.started && (!r.ok || bytes.Compare(r.key, r.target) >= 0) {
		return nil
	}
	return r.seekTarget()
}

func (r *reader) seekTarget() error {
	k, v, ok := r.cursor.Seek(r.target)
	r.started = true
	return r.accept(k, v, ok, true)
}

// next moves to the entry after the current one.
func (r *reader) next() error {
	k, v, ok := r.cursor.Next()
	return r.accept(k, v, ok, false)
}

// accept checks the entry a Seek to r.target (sought), or a Next,
// returned, and makes it current.
func (r *reader) accept(k, v []byte, ok, sought bool) error {
	r.ok = ok
	if !ok {
		return nil
	}
	if err := r.check(k, v); err != nil {
		return err
	}
	switch {
	case sought && bytes.Compare(k, r.target) < 0:
		return fmt.Errorf("%w: %s cursor sought %#x returned %#x", r.orderError(), r.name(), r.target, k)
	case !sought && bytes.Compare(k, r.last) <= 0:
		return fmt.Errorf("%w: %s %#x after %#x", r.orderError(), r.name(), k, r.last)
	}
	r.key, r.value = k, v
	r.last = append(r.last[:0], k...)
	return nil
}

// check checks an entry on its own.
func (r *reader) check(k, v []byte) error {
	switch {
	case r.branches && !validPath(k, r.keyLen):
		return fmt.Errorf("%w: %x, for keys of %d bytes", ErrBranchPath, k, r.keyLen)
	case r.branches:
		return nil
	case len(k) != r.keyLen:
		return fmt.Errorf("%w: leaf key %#x of %d bytes, want %d", ErrKeyLength, k, len(k), r.keyLen)
	case len(v) == 0:
		return fmt.Errorf("%w: leaf %#x", ErrEmptyValue, k)
	}
	return nil
}

// orderError is the sentinel of an entry out of order.
func (r *reader) orderError() error {
	if r.branches {
		return ErrBranchPath
	}
	return ErrKeyOrder
}

// name names the cursor's entries in errors.
func (r *reader) name() string {
	if r.branches {
		return "branch"
	}
	return "leaf"
}

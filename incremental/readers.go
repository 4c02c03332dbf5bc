package incremental

// This file reads the two cursors Root walks, leaves and stored branches,
// always forward, checking each entry as it arrives: the key length, a
// non-empty value, a valid path, ascending order. It steps over a few
// entries with Next rather than Seek, since the walker mostly skips a
// reused subtrie's handful of entries, and Next is the cheap move of a
// database iterator.

import (
	"bytes"
	"fmt"
)

// maxSteps is how many entries a reader steps over with Next before it
// seeks instead.
const maxSteps = 4

// leafReader reads the leaves cursor; key and value are the current leaf
// when ok.
type leafReader struct {
	cursor     Cursor
	keyLen     int
	key, value []byte
	ok         bool
	started    bool
	last       []byte // a copy of the last key read
	target     []byte // the last key sought
}

func (r *leafReader) reset(c Cursor, keyLen int) {
	r.cursor, r.keyLen, r.ok, r.started = c, keyLen, false, false
	r.key, r.value = nil, nil
}

// seek makes the current leaf the first one that starts with path or
// comes after every key that does. path must not come before the leaves
// already passed.
func (r *leafReader) seek(path []byte) error {
	if r.started {
		for steps := 0; r.ok && comparePrefix(r.key, path) < 0; steps++ {
			if steps == maxSteps {
				return r.seekPacked(path)
			}
			if err := r.next(); err != nil {
				return err
			}
		}
		return nil
	}
	return r.seekPacked(path)
}

func (r *leafReader) seekPacked(path []byte) error {
	r.target = appendPacked(r.target[:0], path)
	k, v, ok := r.cursor.Seek(r.target)
	r.started = true
	return r.accept(k, v, ok, true)
}

// next moves to the leaf after the current one.
func (r *leafReader) next() error {
	k, v, ok := r.cursor.Next()
	return r.accept(k, v, ok, false)
}

// accept checks the entry a Seek to r.target (sought), or a Next,
// returned, and makes it current.
func (r *leafReader) accept(k, v []byte, ok, sought bool) error {
	r.ok = ok
	if !ok {
		return nil
	}
	switch {
	case len(k) != r.keyLen:
		return fmt.Errorf("%w: leaf key %#x of %d bytes, want %d", ErrKeyLength, k, len(k), r.keyLen)
	case len(v) == 0:
		return fmt.Errorf("%w: leaf %#x", ErrEmptyValue, k)
	case sought && bytes.Compare(k, r.target) < 0:
		return fmt.Errorf("%w: leaves cursor sought %#x returned %#x", ErrKeyOrder, r.target, k)
	case !sought && bytes.Compare(k, r.last) <= 0:
		return fmt.Errorf("%w: leaf %#x after %#x", ErrKeyOrder, k, r.last)
	}
	r.key, r.value = k, v
	r.last = append(r.last[:0], k...)
	return nil
}

// recordReader reads the stored branches cursor; path and record are the
// current branch when ok.
type recordReader struct {
	cursor       Cursor
	keyLen       int
	path, record []byte
	ok           bool
	started      bool
	last         []byte // a copy of the last path read
	target       []byte // the last path sought
}

func (r *recordReader) reset(c Cursor, keyLen int) {
	r.cursor, r.keyLen, r.ok, r.started = c, keyLen, false, false
	r.path, r.record = nil, nil
}

// seek makes the current branch the first one at path or after it. path
// must not come before the branches already passed.
func (r *recordReader) seek(path []byte) error {
	if r.started {
		for steps := 0; r.ok && bytes.Compare(r.path, path) < 0; steps++ {
			if steps == maxSteps {
				return r.seekPath(path)
			}
			if err := r.next(); err != nil {
				return err
			}
		}
		return nil
	}
	return r.seekPath(path)
}

func (r *recordReader) seekPath(path []byte) error {
	r.target = append(r.target[:0], path...)
	k, v, ok := r.cursor.Seek(r.target)
	r.started = true
	return r.accept(k, v, ok, true)
}

// next moves to the branch after the current one.
func (r *recordReader) next() error {
	k, v, ok := r.cursor.Next()
	return r.accept(k, v, ok, false)
}

// accept checks the entry a Seek to r.target (sought), or a Next,
// returned, and makes it current.
func (r *recordReader) accept(k, v []byte, ok, sought bool) error {
	r.ok = ok
	if !ok {
		return nil
	}
	switch {
	case !validPath(k, r.keyLen):
		return fmt.Errorf("%w: %x, for keys of %d bytes", ErrBranchPath, k, r.keyLen)
	case sought && bytes.Compare(k, r.target) < 0:
		return fmt.Errorf("%w: branches cursor sought %x returned %x", ErrBranchPath, r.target, k)
	case !sought && bytes.Compare(k, r.last) <= 0:
		return fmt.Errorf("%w: %x after %x", ErrBranchPath, k, r.last)
	}
	r.path, r.record = k, v
	r.last = append(r.last[:0], k...)
	return nil
}

package incremental

// This file is a sorted in-memory table that is also a Cursor, so that
// tests, the examples and tries small enough to keep in memory need no
// database: the leaves or the stored branches, with Write as the store
// function. Entries live in chunks of a few hundred, each sorted, so that
// a write moves a few kilobytes, not the whole table.

import (
	"bytes"
	"encoding/binary"
	"iter"
	"sort"
)

// maxChunk is the most entries a chunk holds before it splits in two.
const maxChunk = 512

// A Table is a sorted in-memory key/value table, and a Cursor over it. Its
// Write method is the store function Build and Root take. A write ends the
// cursor's walk: Next returns nothing until the next Seek. The zero value
// is an empty table. A Table is not safe for concurrent use.
type Table struct {
	chunks [][]tableEntry // each sorted and non-empty, in order
	n      int
	// The cursor: the entry last returned, chunks[at][in], if on.
	at, in int
	on     bool
	// written and writtenIn locate the last write, or where it was.
	written, writtenIn int
}

// tableEntry holds a key and its value in one buffer, and the key's head
// inline, which decides most comparisons without a load from the buffer.
type tableEntry struct {
	head   uint64
	kv     []byte
	keyLen int
}

// headLen is how many of a key's bytes its head holds; a key no longer
// than that is all in its head.
const headLen = 7

// keyHead is the first seven bytes of key, big-endian and zero-padded, then
// a byte of its length, or of headLen+1 for a longer key: keys whose heads
// differ compare as their heads do, and keys of up to seven bytes, as
// stored branches' paths mostly are, have equal heads only if they are
// equal.
func keyHead(key []byte) uint64 {
	var b [8]byte
	copy(b[:headLen], key)
	b[headLen] = byte(min(len(key), headLen+1))
	return binary.BigEndian.Uint64(b[:])
}

// atLeast reports whether the entry's key is >= key, whose head is head.
func (e *tableEntry) atLeast(key []byte, head uint64) bool {
	if e.head != head {
		return e.head > head
	}
	return e.keyLen <= headLen || bytes.Compare(e.key(), key) >= 0
}

func (e *tableEntry) key() []byte   { return e.kv[:e.keyLen] }
func (e *tableEntry) value() []byte { return e.kv[e.keyLen:] }

// Len returns the number of entries.
func (t *Table) Len() int { return t.n }

// find returns the chunk that holds key or would: the first whose last key
// is >= key, or the last chunk; and the index of the first entry >= key in
// it. It gallops from chunk from on, and within that chunk from entry in
// on: every entry before them must come before key.
func (t *Table) find(key []byte, from, in int) (int, int) {
	head := keyHead(key)
	c := from + gallop(len(t.chunks)-from, func(i int) bool {
		ch := t.chunks[from+i]
		return ch[len(ch)-1].atLeast(key, head)
	})
	if c == len(t.chunks) {
		c--
	}
	if c != from {
		in = 0
	}
	ch := t.chunks[c]
	if in == 0 {
		return c, sort.Search(len(ch), func(i int) bool { return ch[i].atLeast(key, head) })
	}
	return c, in + gallop(len(ch)-in, func(i int) bool { return ch[in+i].atLeast(key, head) })
}

// findWrite is find for a write: from the last write if key comes after
// it, as the writes of Root do, which come in path order; else from the
// start.
func (t *Table) findWrite(key []byte) (int, int) {
	c, i := 0, 0
	if t.written < len(t.chunks) {
		ch := t.chunks[t.written]
		if j := min(t.writtenIn, len(ch)-1); !ch[j].atLeast(key, keyHead(key)) {
			c, i = t.written, j+1
		}
	}
	c, i = t.find(key, c, i)
	t.written, t.writtenIn = c, i
	return c, i
}

// Get returns key's value, valid until the next write, and whether the key
// is there.
func (t *Table) Get(key []byte) ([]byte, bool) {
	if t.n == 0 {
		return nil, false
	}
	c, i := t.find(key, 0, 0)
	if i == len(t.chunks[c]) || !bytes.Equal(t.chunks[c][i].key(), key) {
		return nil, false
	}
	return t.chunks[c][i].value(), true
}

// Put sets key to a copy of value; an empty value deletes the key.
func (t *Table) Put(key, value []byte) {
	t.on = false
	if len(value) == 0 {
		t.Delete(key)
		return
	}
	if t.n == 0 {
		t.chunks = append(t.chunks[:0], []tableEntry{newEntry(nil, key, value)})
		t.n = 1
		return
	}
	c, i := t.findWrite(key)
	ch := t.chunks[c]
	if i < len(ch) && bytes.Equal(ch[i].key(), key) {
		ch[i] = newEntry(ch[i].kv, key, value)
		return
	}
	ch = append(ch, tableEntry{})
	copy(ch[i+1:], ch[i:])
	ch[i] = newEntry(nil, key, value)
	t.n++
	if len(ch) <= maxChunk {
		t.chunks[c] = ch
		return
	}
	half := len(ch) / 2
	t.chunks = append(t.chunks, nil)
	copy(t.chunks[c+2:], t.chunks[c+1:])
	t.chunks[c] = ch[:half:half]
	t.chunks[c+1] = append([]tableEntry(nil), ch[half:]...)
}

// newEntry copies key and value into buf if it has room, else a new buffer.
func newEntry(buf, key, value []byte) tableEntry {
	if cap(buf) < len(key)+len(value) {
		buf = make([]byte, 0, len(key)+len(value))
	}
	return tableEntry{head: keyHead(key), kv: append(append(buf[:0], key...), value...), keyLen: len(key)}
}

// Delete removes key, if it is there.
func (t *Table) Delete(key []byte) {
	t.on = false
	if t.n == 0 {
		return
	}
	c, i := t.findWrite(key)
	ch := t.chunks[c]
	if i == len(ch) || !bytes.Equal(ch[i].key(), key) {
		return
	}
	t.n--
	if len(ch) == 1 {
		t.chunks = append(t.chunks[:c], t.chunks[c+1:]...)
		return
	}
	t.chunks[c] = append(ch[:i], ch[i+1:]...)
}

// Write is the store function of Build and Root: it puts branch at path,
// or deletes path when branch is nil.
func (t *Table) Write(path, branch []byte) { t.Put(path, branch) }

// Seek returns the first entry whose key is >= key. Its slices are valid
// until the next write. A Seek forward from the last entry returned
// gallops from there, so that the short moves a walk makes cost a few
// comparisons, not a search of the whole table.
func (t *Table) Seek(key []byte) (k, v []byte, ok bool) {
	if t.n == 0 {
		t.on = false
		return nil, nil, false
	}
	head := keyHead(key)
	if t.on && !t.chunks[t.at][t.in].atLeast(key, head) {
		t.at, t.in = t.find(key, t.at, t.in+1) // past the entry last returned
		return t.current()
	}
	t.at, t.in = t.find(key, 0, 0)
	return t.current()
}

// gallop returns the least i in [0, n) for which above is true, or n, as
// sort.Search does for a monotone above, in a time that grows with the
// log of the answer rather than of n.
func gallop(n int, above func(int) bool) int {
	lo, step := 0, 1
	for lo+step < n && !above(lo+step-1) {
		lo += step
		step *= 2
	}
	hi := min(lo+step, n)
	return lo + sort.Search(hi-lo, func(i int) bool { return above(lo + i) })
}

// Next returns the entry after the last one returned.
func (t *Table) Next() (k, v []byte, ok bool) {
	if !t.on {
		return nil, nil, false
	}
	t.in++
	return t.current()
}

// current returns the entry at the cursor, moving to the next chunk when
// the cursor is past the end of one.
func (t *Table) current() (k, v []byte, ok bool) {
	if t.in == len(t.chunks[t.at]) {
		t.at, t.in = t.at+1, 0
	}
	if t.at == len(t.chunks) {
		t.on = false
		return nil, nil, false
	}
	t.on = true
	e := &t.chunks[t.at][t.in]
	return e.key(), e.value(), true
}

// All yields every entry in key order. The table must not change during
// the loop.
func (t *Table) All() iter.Seq2[[]byte, []byte] {
	return func(yield func(k, v []byte) bool) {
		for _, ch := range t.chunks {
			for i := range ch {
				if !yield(ch[i].key(), ch[i].value()) {
					return
				}
			}
		}
	}
}

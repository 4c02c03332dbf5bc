package incremental

// This file is a sorted in-memory table that is also a Cursor, so that
// tests, the examples and tries small enough to keep in memory need no
// database: the leaves or the stored branches, with Write as the store
// function. Entries live in chunks of a few hundred, each sorted, so that
// a write moves a few kilobytes, not the whole table. A search reads the
// entries' heads, eight bytes each, kept apart from the entries so that it
// touches few cache lines. A write first looks where the cursor last found
// the key: Root writes back records its walk has just read.

import (
	"bytes"
	"encoding/binary"
	"iter"
	"slices"
	"sort"
)

// maxChunk is the most entries a chunk holds before it splits in two.
const maxChunk = 512

// A Table is a sorted in-memory key/value table, and a Cursor over it. Its
// Write method is the store function Build and Root take. A write ends the
// cursor's walk: Next returns nothing until the next Seek. The zero value
// is an empty table. A Table is not safe for concurrent use.
type Table struct {
	chunks []chunk // each sorted and non-empty, in order
	n      int
	// The cursor: the entry last returned, chunks[at][in], if on.
	at, in int
	on     bool
	// written and writtenIn locate the last write, or where it was.
	written, writtenIn int
	// read holds where the cursor found the entries it returned since it
	// last sought from the start, in key order; a write looks there first,
	// from readNext on, since Root writes back what its walk read.
	read     []readEntry
	readNext int
}

// readEntry is where the cursor found an entry with the given head. A
// write confirms it against the table before it trusts it: entries may
// have moved since.
type readEntry struct {
	head      uint64
	chunk, in int32
}

// maxRead bounds Table.read: a few walks' records, not a scan's entries.
const maxRead = 1 << 13

// A chunk is a sorted run of entries and their heads, heads[i] that of
// entries[i]; last is the last head, which a search across chunks reads.
type chunk struct {
	heads   []uint64
	entries []tableEntry
	last    uint64
}

// tableEntry holds a key and its value in one buffer.
type tableEntry struct {
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

// atLeast reports whether the key of entry i is >= key, whose head is head.
func (ch *chunk) atLeast(i int, key []byte, head uint64) bool {
	if h := ch.heads[i]; h != head {
		return h > head
	}
	e := &ch.entries[i]
	return e.keyLen <= headLen || bytes.Compare(e.key(), key) >= 0
}

// holds reports whether the key of entry i, the first >= key, is key: a
// key of up to headLen bytes is all in its head, so a short key, such as a
// stored branch's path, is told without reading the entry.
func (ch *chunk) holds(i int, key []byte, head uint64) bool {
	if ch.heads[i] != head {
		return false
	}
	return len(key) <= headLen || bytes.Equal(ch.entries[i].key(), key)
}

// lastAtLeast is atLeast for the chunk's last entry, read through last.
func (ch *chunk) lastAtLeast(key []byte, head uint64) bool {
	if ch.last != head {
		return ch.last > head
	}
	return ch.atLeast(len(ch.heads)-1, key, head)
}

// insert puts an entry at i.
func (ch *chunk) insert(i int, head uint64, e tableEntry) {
	ch.heads = slices.Insert(ch.heads, i, head)
	ch.entries = slices.Insert(ch.entries, i, e)
	ch.last = ch.heads[len(ch.heads)-1]
}

// remove deletes entry i, which must not be the only one.
func (ch *chunk) remove(i int) {
	ch.heads = slices.Delete(ch.heads, i, i+1)
	ch.entries = slices.Delete(ch.entries, i, i+1)
	ch.last = ch.heads[len(ch.heads)-1]
}

func (e *tableEntry) key() []byte   { return e.kv[:e.keyLen] }
func (e *tableEntry) value() []byte { return e.kv[e.keyLen:] }

// Len returns the number of entries.
func (t *Table) Len() int { return t.n }

// find returns the chunk that holds key, whose head is head, or would: the
// first whose last key is >= key, or the last chunk; and the index of the
// first entry >= key in it. It gallops from chunk from on, and within that chunk from entry in
// on: every entry before them must come before key.
func (t *Table) find(key []byte, head uint64, from, in int) (int, int) {
	c := from + gallop(len(t.chunks)-from, func(i int) bool { return t.chunks[from+i].lastAtLeast(key, head) })
	if c == len(t.chunks) {
		c--
	}
	if c != from {
		in = 0
	}
	ch := &t.chunks[c]
	n := len(ch.heads)
	if in == 0 {
		return c, sort.Search(n, func(i int) bool { return ch.atLeast(i, key, head) })
	}
	return c, in + gallop(n-in, func(i int) bool { return ch.atLeast(in+i, key, head) })
}

// findWrite is find for a write: from the last write if key comes after
// it, as the writes of Root do, which come in path order; else from the
// start.
func (t *Table) findWrite(key []byte, head uint64) (int, int) {
	if c, i, ok := t.findRead(key, head); ok {
		t.written, t.writtenIn = c, i
		return c, i
	}
	c, i := 0, 0
	if t.written < len(t.chunks) {
		ch := &t.chunks[t.written]
		if j := min(t.writtenIn, len(ch.heads)-1); !ch.atLeast(j, key, head) {
			c, i = t.written, j+1
		}
	}
	c, i = t.find(key, head, c, i)
	t.written, t.writtenIn = c, i
	return c, i
}

// findRead returns where the cursor found key, if it read the key since
// its last seek from the start and the key is still there.
func (t *Table) findRead(key []byte, head uint64) (int, int, bool) {
	k := t.readNext
	for k < len(t.read) && t.read[k].head < head {
		k++
	}
	t.readNext = k
	if k == len(t.read) || t.read[k].head != head {
		return 0, 0, false
	}
	c, i := int(t.read[k].chunk), int(t.read[k].in)
	if c >= len(t.chunks) || i >= len(t.chunks[c].heads) || !t.chunks[c].holds(i, key, head) {
		return 0, 0, false
	}
	return c, i, true
}

// Get returns key's value, valid until the next write, and whether the key
// is there.
func (t *Table) Get(key []byte) ([]byte, bool) {
	if t.n == 0 {
		return nil, false
	}
	head := keyHead(key)
	c, i := t.find(key, head, 0, 0)
	ch := &t.chunks[c]
	if i == len(ch.entries) || !ch.holds(i, key, head) {
		return nil, false
	}
	return ch.entries[i].value(), true
}

// Put sets key to a copy of value; an empty value deletes the key.
func (t *Table) Put(key, value []byte) {
	t.on = false
	if len(value) == 0 {
		t.Delete(key)
		return
	}
	head := keyHead(key)
	if t.n == 0 {
		t.chunks = append(t.chunks[:0], chunk{heads: []uint64{head}, entries: []tableEntry{newEntry(nil, key, value)}, last: head})
		t.n = 1
		return
	}
	c, i := t.findWrite(key, head)
	ch := &t.chunks[c]
	if i < len(ch.entries) && ch.holds(i, key, head) {
		ch.entries[i] = newEntry(ch.entries[i].kv, key, value)
		return
	}
	ch.insert(i, head, newEntry(nil, key, value))
	t.n++
	if len(ch.entries) <= maxChunk {
		return
	}
	half := len(ch.entries) / 2
	upper := chunk{heads: slices.Clone(ch.heads[half:]), entries: slices.Clone(ch.entries[half:]), last: ch.last}
	ch.heads, ch.entries = ch.heads[:half:half], ch.entries[:half:half]
	ch.last = ch.heads[half-1]
	t.chunks = slices.Insert(t.chunks, c+1, upper)
}

// newEntry copies key and value into buf if it has room, else a new buffer.
func newEntry(buf, key, value []byte) tableEntry {
	if cap(buf) < len(key)+len(value) {
		buf = make([]byte, 0, len(key)+len(value))
	}
	return tableEntry{kv: append(append(buf[:0], key...), value...), keyLen: len(key)}
}

// Delete removes key, if it is there.
func (t *Table) Delete(key []byte) {
	t.on = false
	if t.n == 0 {
		return
	}
	head := keyHead(key)
	c, i := t.findWrite(key, head)
	ch := &t.chunks[c]
	if i == len(ch.entries) || !ch.holds(i, key, head) {
		return
	}
	t.n--
	if len(ch.entries) == 1 {
		t.chunks = slices.Delete(t.chunks, c, c+1)
		return
	}
	ch.remove(i)
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
	if t.on && !t.chunks[t.at].atLeast(t.in, key, head) {
		t.at, t.in = t.find(key, head, t.at, t.in+1) // past the entry last returned
		return t.current()
	}
	t.at, t.in = t.find(key, head, 0, 0)
	t.read, t.readNext = t.read[:0], 0
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
	if t.in == len(t.chunks[t.at].entries) {
		t.at, t.in = t.at+1, 0
	}
	if t.at == len(t.chunks) {
		t.on = false
		return nil, nil, false
	}
	t.on = true
	ch := &t.chunks[t.at]
	if len(t.read) < maxRead {
		t.read = append(t.read, readEntry{ch.heads[t.in], int32(t.at), int32(t.in)})
	}
	e := &ch.entries[t.in]
	return e.key(), e.value(), true
}

// All yields every entry in key order. The table must not change during
// the loop.
func (t *Table) All() iter.Seq2[[]byte, []byte] {
	return func(yield func(k, v []byte) bool) {
		for _, ch := range t.chunks {
			for i := range ch.entries {
				if !yield(ch.entries[i].key(), ch.entries[i].value()) {
					return
				}
			}
		}
	}
}

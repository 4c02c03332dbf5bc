package incremental

// This file keeps branch records, path and encoding, in one growing
// buffer: the records Root entered and those it built, held until the walk
// ends so that store is called once the cursors are done with, in path
// order, and only for what changed.

import (
	"bytes"
	"slices"
)

// records is a list of (path, record) pairs whose bytes live in one buffer.
type records struct {
	buf     []byte
	spans   []recordSpan
	scratch []recordSpan // sortByPath's other buffer
}

// recordSpan locates a pair in records.buf: the path, then the record;
// order is the path's sort key.
type recordSpan struct {
	start, pathEnd, end int
	order               uint64
}

// keyNibbles is how many of a path's nibbles its sort key holds.
const keyNibbles = 15

// pathOrder packs the first fifteen nibbles of path, zero-padded, above
// four bits of its length, or of fifteen for a longer path: paths whose
// keys differ compare as their keys do, and paths of under fifteen
// nibbles, as stored branches' paths nearly always are, have equal keys
// only if they are equal.
func pathOrder(path []byte) uint64 {
	var k uint64
	for i, n := range path[:min(len(path), keyNibbles)] {
		k |= uint64(n&0x0f) << (60 - 4*i)
	}
	return k | uint64(min(len(path), keyNibbles))
}

func (r *records) reset() {
	r.buf = r.buf[:0]
	r.spans = r.spans[:0]
}

// add copies a pair in and returns its copy of the record.
func (r *records) add(path, record []byte) []byte {
	start := len(r.buf)
	r.buf = append(append(r.buf, path...), record...)
	r.spans = append(r.spans, recordSpan{start, start + len(path), len(r.buf), pathOrder(path)})
	return r.buf[start+len(path):]
}

func (r *records) len() int { return len(r.spans) }

func (r *records) path(i int) []byte {
	s := r.spans[i]
	return r.buf[s.start:s.pathEnd]
}

func (r *records) record(i int) []byte {
	s := r.spans[i]
	return r.buf[s.pathEnd:s.end]
}

// sortByPath orders the pairs by path: a radix sort on the packed keys,
// a byte at a time from the lowest, skipping a byte every key shares; then
// the runs of equal keys, which only paths of fifteen nibbles or more
// share, by their bytes.
func (r *records) sortByPath() {
	if len(r.spans) < 2 {
		return
	}
	r.scratch = slices.Grow(r.scratch[:0], len(r.spans))[:len(r.spans)]
	for shift := 0; shift < 64; shift += 8 {
		var starts [256]int
		for _, s := range r.spans {
			starts[byte(s.order>>shift)]++
		}
		if starts[byte(r.spans[0].order>>shift)] == len(r.spans) {
			continue
		}
		sum := 0
		for b, n := range starts {
			starts[b], sum = sum, sum+n
		}
		for _, s := range r.spans {
			b := byte(s.order >> shift)
			r.scratch[starts[b]] = s
			starts[b]++
		}
		r.spans, r.scratch = r.scratch, r.spans
	}
	for i := 0; i < len(r.spans); {
		j := i + 1
		for j < len(r.spans) && r.spans[j].order == r.spans[i].order {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(r.spans[i:j], func(a, b recordSpan) int {
				return bytes.Compare(r.buf[a.start:a.pathEnd], r.buf[b.start:b.pathEnd])
			})
		}
		i = j
	}
}

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
	buf   []byte
	spans []recordSpan
}

// recordSpan locates a pair in records.buf: the path, then the record.
type recordSpan struct {
	start, pathEnd, end int
}

func (r *records) reset() {
	r.buf = r.buf[:0]
	r.spans = r.spans[:0]
}

// add copies a pair in.
func (r *records) add(path, record []byte) {
	start := len(r.buf)
	r.buf = append(append(r.buf, path...), record...)
	r.spans = append(r.spans, recordSpan{start, start + len(path), len(r.buf)})
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

// sortByPath orders the pairs by path.
func (r *records) sortByPath() {
	slices.SortFunc(r.spans, func(a, b recordSpan) int {
		return bytes.Compare(r.buf[a.start:a.pathEnd], r.buf[b.start:b.pathEnd])
	})
}

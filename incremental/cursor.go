package incremental

// This file is the one interface the package reads its input through, so
// that a database iterator, a sorted slice or a Table serves as well.

// A Cursor walks sorted key/value entries: a database iterator, a sorted
// slice, anything. Keys are in strictly ascending byte order. The slices it
// returns need only stay valid until its next call. Build and Root always
// Seek before they call Next, and only ever Seek forward.
type Cursor interface {
	// Seek returns the first entry whose key is >= key, and ok false if
	// there is none.
	Seek(key []byte) (k, v []byte, ok bool)
	// Next returns the entry after the last one returned, and ok false if
	// there is none.
	Next() (k, v []byte, ok bool)
}

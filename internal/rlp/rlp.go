// Package rlp reads and writes RLP items. Its reader is the one behind
// every package of the module that takes RLP from outside, trie nodes,
// proofs, accounts and database values, so that all of them refuse the
// same bytes: it accepts canonical encodings only, as go-ethereum's
// rlp.Split does, allocates nothing and never panics. Its writer
// (write.go) is the one every package encodes with.
package rlp

import "errors"

// The first byte of an item: below String a single byte is its own
// encoding; String up to List a string's header; List and above a list's.
const (
	String = 0x80
	List   = 0xc0
	// ShortMax is the longest payload whose size fits in the first byte.
	ShortMax = 55
)

// Split's errors, each a fixed value, so that a caller that reads without
// allocating can tell them apart without allocating either. ErrEmpty and
// ErrTruncated are input that ends too soon; the others are encodings that
// are not canonical.
var (
	ErrEmpty       = errors.New("rlp: empty input")
	ErrTruncated   = errors.New("rlp: item longer than its input")
	ErrLeadingZero = errors.New("rlp: size with a leading zero byte")
	ErrLongHeader  = errors.New("rlp: long header for a short item")
	ErrSingleByte  = errors.New("rlp: single byte below 0x80 with a string header")
)

// Split reads the item at the start of b: whether it is a list, its
// payload, and the bytes after it.
func Split(b []byte) (list bool, payload, rest []byte, err error) {
	if len(b) == 0 {
		return false, nil, nil, ErrEmpty
	}
	first := b[0]
	if first < String {
		return false, b[:1], b[1:], nil
	}
	kind := byte(String)
	if first >= List {
		kind = List
	}
	size, header := uint64(first-kind), 1
	if size > ShortMax {
		n := int(size - ShortMax) // 1 to 8 bytes of size
		if len(b) <= n {
			return false, nil, nil, ErrTruncated
		}
		if b[1] == 0 {
			return false, nil, nil, ErrLeadingZero
		}
		size = 0
		for _, c := range b[1 : 1+n] {
			size = size<<8 | uint64(c)
		}
		if size <= ShortMax {
			return false, nil, nil, ErrLongHeader
		}
		header += n
	}
	if size > uint64(len(b)-header) {
		return false, nil, nil, ErrTruncated
	}
	end := header + int(size)
	payload = b[header:end]
	if kind == String && size == 1 && payload[0] < String {
		return false, nil, nil, ErrSingleByte
	}
	return kind == List, payload, b[end:], nil
}

package state

// This file writes the little RLP the account encodings need: byte strings,
// integers as big-endian strings without leading zeros, and a list header,
// appended to a caller's buffer so that encoding allocates nothing. The
// reading side is in decode.go.

const (
	rlpString = 0x80 // the first header byte of a string
	rlpList   = 0xc0 // the first header byte of a list
	// rlpShortMax is the longest payload whose size fits in the header byte.
	rlpShortMax = 55
)

// appendString appends the encoding of s: a single byte below 0x80 as
// itself, anything else after a header.
func appendString(dst, s []byte) []byte {
	if len(s) == 1 && s[0] < rlpString {
		return append(dst, s[0])
	}
	return append(appendHeader(dst, rlpString, len(s)), s...)
}

// stringSize is how many bytes appendString writes for s.
func stringSize(s []byte) int {
	if len(s) == 1 && s[0] < rlpString {
		return 1
	}
	return headerSize(len(s)) + len(s)
}

// appendHeader appends the header of a string or list (kind rlpString or
// rlpList) of size payload bytes: the size in the header byte up to 55, else
// the size's big-endian bytes after a byte that counts them.
func appendHeader(dst []byte, kind byte, size int) []byte {
	if size <= rlpShortMax {
		return append(dst, kind+byte(size))
	}
	n := headerSize(size) - 1
	dst = append(dst, kind+rlpShortMax+byte(n))
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, byte(size>>(8*i)))
	}
	return dst
}

// headerSize is the size of the header of a payload of size bytes.
func headerSize(size int) int {
	n := 1
	if size > rlpShortMax {
		for ; size > 0; size >>= 8 {
			n++
		}
	}
	return n
}

// trimLeadingZeros drops the zero bytes a big-endian integer starts with;
// zero becomes empty.
func trimLeadingZeros(b []byte) []byte {
	for len(b) > 0 && b[0] == 0 {
		b = b[1:]
	}
	return b
}

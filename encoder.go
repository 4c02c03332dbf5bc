package stacktrie

import "math/bits"

// RLP list and string headers: a payload of up to 55 bytes has a one-byte
// header (offset plus length), a longer one a length-of-length header.
const (
	rlpString = 0x80
	rlpList   = 0xc0
	rlpShort  = 55
)

// Hex-prefix flags: the high nibble of the first byte of a compact path.
const (
	flagExtension = 0
	flagLeaf      = 2
	flagOdd       = 1
)

// encoder writes the RLP of one node at a time into a buffer it reuses.
// Sizes are computed first, so every node is written once, front to back.
type encoder struct {
	buf []byte
}

// alloc returns the buffer resized to n bytes, growing it only when a node is
// larger than every node before it.
func (e *encoder) alloc(n int) []byte {
	if cap(e.buf) < n {
		e.buf = make([]byte, n, max(n, 2*cap(e.buf)))
	}
	e.buf = e.buf[:n]
	return e.buf
}

// leaf encodes [compact(key nibbles from start), value].
func (e *encoder) leaf(key []byte, start int, value []byte) []byte {
	end := 2 * len(key)
	pathSize := compactStringSize(end - start)
	payload := pathSize + stringSize(value)
	buf := e.alloc(headerSize(payload) + payload)
	i := putHeader(buf, rlpList, payload)
	i += putCompact(buf[i:], key, start, end, flagLeaf)
	putString(buf[i:], value)
	return buf
}

// extension encodes [compact(key nibbles start..end), child reference].
func (e *encoder) extension(key []byte, start, end int, child []byte) []byte {
	payload := compactStringSize(end-start) + refSize(len(child))
	buf := e.alloc(headerSize(payload) + payload)
	i := putHeader(buf, rlpList, payload)
	i += putCompact(buf[i:], key, start, end, flagExtension)
	putRef(buf[i:], child)
	return buf
}

// branch encodes the 17-item list of a frame: 16 child references and the value.
func (e *encoder) branch(f *frame) []byte {
	payload := 1 // the value slot, empty
	if f.hasValue {
		payload = stringSize(f.value)
	}
	for _, n := range f.refLen {
		payload += refSize(int(n))
	}
	buf := e.alloc(headerSize(payload) + payload)
	i := putHeader(buf, rlpList, payload)
	for slot, n := range f.refLen {
		i += putRef(buf[i:], f.ref[slot][:n])
	}
	if f.hasValue {
		putString(buf[i:], f.value)
	} else {
		buf[i] = rlpString
	}
	return buf
}

// refSize is the encoded size of a child reference of n bytes: an empty
// string, a 32-byte hash as a string, or an embedded node as it is.
func refSize(n int) int {
	switch {
	case n == 0:
		return 1
	case n == 32:
		return 33
	default:
		return n
	}
}

func putRef(dst, ref []byte) int {
	switch len(ref) {
	case 0:
		dst[0] = rlpString
		return 1
	case 32:
		dst[0] = rlpString + 32
		copy(dst[1:], ref)
		return 33
	default:
		return copy(dst, ref)
	}
}

// compactStringSize is the RLP size of the hex-prefix encoding of n nibbles.
// A single compact byte (n < 2) is below 0x80 and so encodes as itself.
func compactStringSize(n int) int {
	size := n/2 + 1
	if size == 1 {
		return 1
	}
	return headerSize(size) + size
}

// putCompact writes the RLP string of the hex-prefix encoding of the nibbles
// of key from start to end, and returns its size.
func putCompact(dst, key []byte, start, end int, flag byte) int {
	n := end - start
	i := 0
	if size := n/2 + 1; size > 1 {
		i = putHeader(dst, rlpString, size)
	}
	if n&1 == 1 {
		dst[i] = (flag|flagOdd)<<4 | nibble(key, start)
		start++
	} else {
		dst[i] = flag << 4
	}
	i++
	if start&1 == 0 {
		return i + copy(dst[i:], key[start/2:end/2])
	}
	for ; start < end; start += 2 {
		dst[i] = nibble(key, start)<<4 | nibble(key, start+1)
		i++
	}
	return i
}

// stringSize is the RLP size of the byte string s.
func stringSize(s []byte) int {
	if len(s) == 1 && s[0] < rlpString {
		return 1
	}
	return headerSize(len(s)) + len(s)
}

func putString(dst, s []byte) int {
	if len(s) == 1 && s[0] < rlpString {
		dst[0] = s[0]
		return 1
	}
	i := putHeader(dst, rlpString, len(s))
	return i + copy(dst[i:], s)
}

// headerSize is the size of the RLP header of a payload of n bytes.
func headerSize(n int) int {
	if n <= rlpShort {
		return 1
	}
	return 1 + lengthSize(n)
}

func putHeader(dst []byte, offset byte, n int) int {
	if n <= rlpShort {
		dst[0] = offset + byte(n)
		return 1
	}
	size := lengthSize(n)
	dst[0] = offset + rlpShort + byte(size)
	for i := size; i > 0; i-- {
		dst[i] = byte(n)
		n >>= 8
	}
	return size + 1
}

// lengthSize is the number of bytes of n in big-endian form without leading zeros.
func lengthSize(n int) int {
	return (bits.Len(uint(n)) + 7) / 8
}

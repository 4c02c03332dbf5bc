package main

import (
	"encoding/binary"

	"github.com/holiman/uint256"
)

// The few RLP encodings the command needs, appended to a buffer. An item
// is a byte string or a list; a list's payload is its items one after
// another.

// rlpString appends the encoding of the byte string s.
func rlpString(dst, s []byte) []byte {
	if len(s) == 1 && s[0] < 0x80 {
		return append(dst, s[0])
	}
	return append(rlpHeader(dst, 0x80, len(s)), s...)
}

// rlpUint appends the encoding of v: its big-endian bytes without leading
// zeros, so 0 is the empty string.
func rlpUint(dst []byte, v uint64) []byte {
	var buf [8]byte
	binary.BigEndian.PutUint64(buf[:], v)
	i := 0
	for i < len(buf) && buf[i] == 0 {
		i++
	}
	return rlpString(dst, buf[i:])
}

// rlpUint256 appends the encoding of v, like rlpUint.
func rlpUint256(dst []byte, v *uint256.Int) []byte {
	return rlpString(dst, v.Bytes())
}

// rlpList appends a list whose items are already encoded in payload.
func rlpList(dst, payload []byte) []byte {
	return append(rlpHeader(dst, 0xc0, len(payload)), payload...)
}

// rlpHeader appends the header of a string (base 0x80) or list (base 0xc0)
// of size bytes: one byte up to 55, else a length of the length.
func rlpHeader(dst []byte, base byte, size int) []byte {
	if size <= 55 {
		return append(dst, base+byte(size))
	}
	var buf [8]byte
	binary.BigEndian.PutUint64(buf[:], uint64(size))
	i := 0
	for buf[i] == 0 {
		i++
	}
	dst = append(dst, base+55+byte(8-i))
	return append(dst, buf[i:]...)
}

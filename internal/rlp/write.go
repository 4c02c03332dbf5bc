package rlp

// This file is the writing side: the canonical encodings the module writes
// (trie nodes, accounts, block headers, DeriveSha's indices), appended to a
// caller's buffer so that writing allocates nothing once it has grown, and
// the sizes that let a writer lay out a node before it writes it.

import "math/bits"

// HeaderSize is the size of the header of an item whose payload is n bytes:
// one byte up to ShortMax, else that byte and the size's big-endian bytes.
func HeaderSize(n int) int {
	if n <= ShortMax {
		return 1
	}
	return 1 + sizeBytes(n)
}

// sizeBytes is how many bytes n takes big-endian, without leading zeros.
func sizeBytes(n int) int { return (bits.Len(uint(n)) + 7) / 8 }

// PutHeader writes the header of a string (kind String) or a list (kind
// List) with a payload of n bytes at the start of dst, which must have
// room, and returns its size, HeaderSize(n).
func PutHeader(dst []byte, kind byte, n int) int {
	if n <= ShortMax {
		dst[0] = kind + byte(n)
		return 1
	}
	size := sizeBytes(n)
	dst[0] = kind + ShortMax + byte(size)
	for i := size; i > 0; i-- {
		dst[i] = byte(n)
		n >>= 8
	}
	return size + 1
}

// AppendHeader appends the header PutHeader writes.
func AppendHeader(dst []byte, kind byte, n int) []byte {
	var h [9]byte
	return append(dst, h[:PutHeader(h[:], kind, n)]...)
}

// StringSize is the size of the encoding of the byte string s.
func StringSize(s []byte) int {
	if len(s) == 1 && s[0] < String {
		return 1
	}
	return HeaderSize(len(s)) + len(s)
}

// AppendString appends the encoding of the byte string s: a single byte
// below String as itself, anything else after a header.
func AppendString(dst, s []byte) []byte {
	if len(s) == 1 && s[0] < String {
		return append(dst, s[0])
	}
	return append(AppendHeader(dst, String, len(s)), s...)
}

// AppendList appends a list whose items, already encoded, are payload.
func AppendList(dst, payload []byte) []byte {
	return append(AppendHeader(dst, List, len(payload)), payload...)
}

// AppendUint appends the encoding of v: its big-endian bytes without
// leading zeros, so that 0 is the empty string.
func AppendUint(dst []byte, v uint64) []byte {
	if v != 0 && v < String {
		return append(dst, byte(v))
	}
	n := (bits.Len64(v) + 7) / 8
	dst = append(dst, String+byte(n))
	for shift := 8 * (n - 1); shift >= 0; shift -= 8 {
		dst = append(dst, byte(v>>shift))
	}
	return dst
}

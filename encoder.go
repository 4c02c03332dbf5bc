package stacktrie

import (
	"math/bits"

	"github.com/stacktrie/stacktrie/internal/rlp"
)

// Hex-prefix flags: the high nibble of the first byte of a compact path.
const (
	flagExtension = 0
	flagLeaf      = 2
	flagOdd       = 1
)

// Nodes are encoded in two steps: the payload size first, so that the caller
// can choose where the node goes (embedded in its parent's reference, or a
// buffer of its own to be hashed), then the bytes, front to back, once.

// listSize is the size of an RLP list with the given payload size.
func listSize(payload int) int {
	return rlp.HeaderSize(payload) + payload
}

// leafPayload is the payload size of [compact(key nibbles from start), value].
func leafPayload(key []byte, start int, value []byte) int {
	return compactStringSize(2*len(key)-start) + rlp.StringSize(value)
}

// maxEmbedded is the largest list payload of a node that is embedded in its
// parent: with its one-byte header, the node takes under 32 bytes.
const maxEmbedded = 30

// writeLeaf writes [compact(key nibbles from start), value], the leaf that
// holds a key's last nibbles and its value, into dst, which has the size
// listSize(payload) gives, and past it the spare capacity of a job's blob.
// fold writes most leaves itself, with putLeafItems: this is for the rest.
func writeLeaf(dst []byte, payload int, key []byte, start int, value []byte) {
	var i int
	if payload <= 0xff {
		i = putShortList(dst, payload)
	} else {
		i = rlp.PutHeader(dst, rlp.List, payload)
	}
	// A leaf's path ends where its key does, on a byte boundary: past the
	// flag byte, which takes an odd first nibble, it is the key's last
	// bytes, copied whole, as putCompact's general case does not.
	from := (start + 1) >> 1 // the key's last whole bytes begin here
	whole := len(key) - from
	if whole > 0 {
		i += rlp.PutHeader(dst[i:], rlp.String, whole+1)
	}
	dst[i] = flagLeaf << 4
	if start&1 == 1 {
		dst[i] = (flagLeaf|flagOdd)<<4 | key[start>>1]&0x0f
	}
	i++
	if whole <= 32 {
		// As putLeafItems copies it: the value is written over the rest.
		copy32(dst[i:i+32], key[from:from+32])
		i += whole
	} else {
		i += copy(dst[i:], key[from:])
	}
	putString(dst[i:], value)
}

// putShortList writes the header of a list whose payload is at most 255
// bytes, as every leaf's but those of long keys or values is, without
// PutHeader's loop, and returns its size.
func putShortList(dst []byte, payload int) int {
	if payload <= rlp.ShortMax {
		dst[0] = rlp.List + byte(payload)
		return 1
	}
	dst[0], dst[1] = rlp.List+rlp.ShortMax+1, byte(payload)
	return 2
}

// leafWindow is the room putLeafItems writes in: a compact string and a
// value of up to 33 bytes each, and the 32-byte words past their ends,
// rounded up so that the value may start anywhere in the first 64 bytes.
const leafWindow = 96

// putLeafItems writes a leaf's list payload, its compact path over the
// key's nibbles from start and its value, at the start of w, when the
// key's last bytes and the value take at most 32 bytes each, as those of
// hashed keys and of most small leaves do. It copies them as whole 32-byte
// words, read past their ends from the spare capacity setOwnLines leaves,
// and written past their ends into what comes next or the rest of w.
func putLeafItems(w *[leafWindow]byte, key []byte, start int, value []byte) {
	from := (start + 1) >> 1 // the key's last whole bytes begin here
	whole := len(key) - from
	w[0] = rlp.String + byte(whole+1) // the flag overwrites it without a header
	i := 0
	if whole > 0 {
		i = 1
	}
	w[i] = flagLeaf << 4
	if start&1 == 1 {
		w[i] = (flagLeaf|flagOdd)<<4 | key[start>>1]&0x0f
	}
	copy32(w[i+1:i+33], key[from:from+32])
	i = (i + 1 + whole) & 63 // the mask changes nothing; it saves bounds checks
	w[i] = rlp.String + byte(len(value))
	copy32(w[i+1:i+33], value[:32])
	if len(value) == 1 && value[0] < rlp.String {
		w[i] = value[0]
	}
}

// extensionPayload is the payload size of an extension over nibbles shared
// nibbles and a child reference of childLen bytes.
func extensionPayload(nibbles, childLen int) int {
	return compactStringSize(nibbles) + refSize(childLen)
}

// writeExtension writes [compact(key nibbles start..end), child] and returns
// where the child reference's own bytes begin.
func writeExtension(dst []byte, payload int, key []byte, start, end int, child []byte) int {
	i := rlp.PutHeader(dst, rlp.List, payload)
	i += putCompact(dst[i:], key, start, end, flagExtension)
	putRef(dst[i:], child)
	if len(child) == 32 {
		return i + 1 // past the string header of the hash
	}
	return i
}

// writeBranch writes a frame's 17-item list: 16 child references and the
// value. hashAt receives, for each slot holding a hash, where the hash begins.
// It visits the filled slots only: the empty strings before each are
// written as one 16-byte store, and every child as 32 bytes, whether it
// takes them or not, into the spare capacity a job's blob has; the bytes
// past what belongs there are overwritten next. dst is a job's blob, of at
// least blobWindow's capacity, or else the buffer of an embedded
// reference, which writeSmallBranch fills.
func writeBranch(dst []byte, payload int, f *frame, hashAt *[16]int32) {
	i := rlp.PutHeader(dst, rlp.List, payload)
	if cap(dst) < blobWindow {
		writeSmallBranch(dst, i, f)
		return
	}
	// The slots end before byte 1024 of a job's blob, within its window:
	// the masks change nothing, and let the compiler leave out the bounds
	// checks.
	w := (*[blobWindow]byte)(dst[:blobWindow])
	next := 0 // the first slot not yet written
	for filled := f.filled; filled != 0; filled &= filled - 1 {
		slot := bits.TrailingZeros16(filled)
		*(*[16]byte)(w[i&1023:]) = emptyRefs
		i += slot - next
		next = slot + 1
		n := int(f.refLen[slot])
		if n == 32 {
			w[i&1023] = rlp.String + 32
			i++
			hashAt[slot] = int32(i)
		}
		copy32(w[i&1023:][:32], f.slot(slot))
		i += n
	}
	*(*[16]byte)(w[i&1023:]) = emptyRefs
	i += 16 - next
	putValue(dst[i:], f)
}

// writeSmallBranch is writeBranch for a branch embedded in its parent,
// whose children are all embedded, with no spare capacity past it.
func writeSmallBranch(dst []byte, i int, f *frame) {
	for slot := range 16 {
		if n := f.refLen[slot]; n == 0 {
			dst[i] = rlp.String
			i++
		} else {
			i += copy(dst[i:], f.slot(slot)[:n])
		}
	}
	putValue(dst[i:], f)
}

// putValue writes a branch's value, the empty string if it has none.
func putValue(dst []byte, f *frame) {
	if f.hasValue {
		putString(dst, f.value)
	} else {
		dst[0] = rlp.String
	}
}

// emptyRefs is sixteen empty slots.
var emptyRefs = [16]byte{rlp.String, rlp.String, rlp.String, rlp.String, rlp.String, rlp.String, rlp.String, rlp.String,
	rlp.String, rlp.String, rlp.String, rlp.String, rlp.String, rlp.String, rlp.String, rlp.String}

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

// putRef writes a child reference of refSize(len(ref)) bytes and returns
// that size: an empty slot, a hash as a string, or an embedded node's RLP
// as it is.
func putRef(dst, ref []byte) int {
	switch len(ref) {
	case 0:
		dst[0] = rlp.String
		return 1
	case 32:
		dst[0] = rlp.String + 32
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
	return rlp.HeaderSize(size) + size
}

// putCompact writes the RLP string of the hex-prefix encoding of the nibbles
// of key from start to end, and returns its size.
func putCompact(dst, key []byte, start, end int, flag byte) int {
	n := end - start
	i := 0
	if size := n/2 + 1; size > 1 {
		i = rlp.PutHeader(dst, rlp.String, size)
	}
	if n&1 == 1 {
		dst[i] = (flag|flagOdd)<<4 | nibble(key, start)
		start++
	} else {
		dst[i] = flag << 4
	}
	i++
	if start&1 == 0 {
		src := key[start>>1 : end>>1]
		if len(src) <= 8 {
			// A leaf's last bytes, as few as sequential keys leave: byte
			// stores cost less than a call to memmove.
			for j, b := range src {
				dst[i+j] = b
			}
			return i + len(src)
		}
		return i + copy(dst[i:], src)
	}
	for ; start < end; start += 2 {
		dst[i] = nibble(key, start)<<4 | nibble(key, start+1)
		i++
	}
	return i
}

// putString writes s as an RLP string and returns rlp.StringSize(s).
func putString(dst, s []byte) int {
	if len(s) == 1 && s[0] < rlp.String {
		dst[0] = s[0]
		return 1
	}
	i := rlp.PutHeader(dst, rlp.String, len(s))
	return i + copy(dst[i:], s)
}

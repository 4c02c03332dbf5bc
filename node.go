package stacktrie

import "github.com/stacktrie/stacktrie/internal/rlp"

// A frame is a branch node on the spine, the path from the root to the most
// recently inserted key. Everything to the left of the spine is already
// hashed; everything on it can still gain children to the right.
//
// Frames are reused: the stack only grows when a key is deeper than any seen
// before, so memory is bounded by the key length, not by the number of keys.
type frame struct {
	// depth is the nibble depth of the branch: its path is the first depth
	// nibbles of the current key and its open slot is the nibble at depth.
	depth int

	// refLen[i] is 0 for an empty slot, 32 for a hash and 1..31 for the
	// RLP of an embedded child; the reference itself is in slot(i). The
	// slots are laid end to end, with room after the last for its window,
	// so that fold can write a leaf in whole 32-byte words that run
	// into the next slots, which are still empty (putLeafItems).
	refLen [16]uint8
	refs   [16*32 + 1 + leafWindow - 32]byte

	// filled marks the slots that are not empty, so that encoding skips
	// the empty ones; pending marks those whose hash a job is still
	// computing: job[i].
	filled  uint16
	pending uint16
	job     [16]int32

	// payload is the size of the branch's RLP list payload, kept as slots
	// fill so that encoding need not add it up.
	payload int

	// value is slot 16: the value of a key that ends at this branch.
	// The frame owns the buffer and keeps it across reuse, so that the same
	// stream grows it once; hasValue says whether it is set.
	value    []byte
	hasValue bool
}

// slot returns the 32 bytes of slot i's reference. i&15 is i, said so
// that the compiler can leave out the bounds checks.
func (f *frame) slot(i int) []byte {
	return f.refs[32*(i&15):][:32]
}

// fill marks slot filled by a reference of n bytes (see refLen), and counts
// its encoding into the payload, where the slot's empty string was.
func (f *frame) fill(slot byte, n int) {
	f.refLen[slot] = uint8(n)
	f.filled |= 1 << slot
	f.payload += refSize(n) - 1
}

// copy32 copies 32 bytes, as src and dst must have, in two 16-byte moves.
// A 32-byte array assigned from one pointer to another is copied through a
// call to memmove, since the compiler cannot rule out that the two overlap
// in part.
func copy32(dst, src []byte) {
	*(*[16]byte)(dst) = [16]byte(src)
	*(*[16]byte)(dst[16:]) = [16]byte(src[16:])
}

// reset empties the frame for reuse at the given depth, keeping its value buffer.
func (f *frame) reset(depth int) {
	f.depth = depth
	f.refLen = [16]uint8{}
	f.filled, f.pending = 0, 0
	f.hasValue = false
	f.payload = 17 // sixteen empty slots and an empty value, a byte each
}

// setValue copies value into slot 16.
func (f *frame) setValue(value []byte) {
	setOwnLines(&f.value, value)
	f.hasValue = true
	f.payload += rlp.StringSize(value) - 1
}

// A childRef is how a parent refers to a finished node: its Keccak-256
// hash when the node's RLP is 32 bytes or longer, or else that RLP itself.
// A hash may still be in the making: then job is the job computing it.
type childRef struct {
	n   uint8
	buf [32]byte
	job int32
}

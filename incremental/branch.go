package incremental

// This file is the codec of stored branch records: erigon's table layout
// with reth's masks, written by Build and Root and read back by Root with a
// strict decoder, so that a damaged store is refused, not trusted.

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/stacktrie/stacktrie"
)

// A Branch is the stored record of a branch node. Bit i of a mask stands
// for child i, the child at the branch's path followed by nibble i.
//
// Its encoding is the three masks, two bytes each, big-endian, in the order
// state, tree, hash; then the 32-byte hash of each child in HashMask, in
// nibble order. A valid Branch has at least two children, its tree and hash
// masks within its state mask, and a tree or a hash bit: a branch without
// either is not stored.
type Branch struct {
	// StateMask has bit i set when child i exists: some key starts with
	// the branch's path and nibble i.
	StateMask uint16
	// TreeMask has bit i set when a stored branch lies under child i: at
	// the child's path or deeper, through extensions too.
	TreeMask uint16
	// HashMask has bit i set when child i is a branch node that its parent
	// refers to by hash; Hashes[i] is that hash.
	HashMask uint16
	// Hashes holds the hash of child i at index i for each bit of HashMask.
	// UnmarshalBinary zeroes the other entries; AppendBinary ignores them.
	Hashes [16]stacktrie.Hash
}

// maskBytes is the size of the three masks that start an encoding.
const maskBytes = 6

// EncodedLen is the size of the branch's encoding.
func (b *Branch) EncodedLen() int {
	return maskBytes + len(stacktrie.Hash{})*bits.OnesCount16(b.HashMask)
}

// AppendBinary appends the branch's encoding to dst. A branch that breaks
// the rules of its type is refused with ErrBranchEncoding, and dst is
// returned as it was.
func (b *Branch) AppendBinary(dst []byte) ([]byte, error) {
	if err := checkMasks(b.StateMask, b.TreeMask, b.HashMask); err != nil {
		return dst, err
	}
	dst = binary.BigEndian.AppendUint16(dst, b.StateMask)
	dst = binary.BigEndian.AppendUint16(dst, b.TreeMask)
	dst = binary.BigEndian.AppendUint16(dst, b.HashMask)
	for m := b.HashMask; m != 0; m &= m - 1 {
		dst = append(dst, b.Hashes[bits.TrailingZeros16(m)][:]...)
	}
	return dst, nil
}

// MarshalBinary returns the branch's encoding, as AppendBinary writes it.
func (b *Branch) MarshalBinary() ([]byte, error) {
	return b.AppendBinary(make([]byte, 0, b.EncodedLen()))
}

// UnmarshalBinary decodes what AppendBinary writes, and nothing else: the
// exact length for the hash mask, and masks that follow the rules of
// Branch. Anything else is refused with ErrBranchEncoding, and b is left
// as it was. It never panics.
func (b *Branch) UnmarshalBinary(data []byte) error {
	v, err := viewRecord(data)
	if err != nil {
		return err
	}
	b.StateMask, b.TreeMask, b.HashMask = v.state, v.tree, v.hash
	for i := range b.Hashes {
		b.Hashes[i] = stacktrie.Hash{}
		if v.hash&(1<<i) != 0 {
			b.Hashes[i] = stacktrie.Hash(v.childHash(i))
		}
	}
	return nil
}

// recordView is a decoded record that leaves its hashes where they are:
// the walk reads a few of them from its copy of the record.
type recordView struct {
	state, tree, hash uint16
	hashes            []byte // the hash-bit children's hashes, in nibble order
}

// viewRecord checks a record as UnmarshalBinary does and views it.
func viewRecord(data []byte) (recordView, error) {
	if len(data) < maskBytes {
		return recordView{}, fmt.Errorf("%w: %d bytes, under the %d of the masks", ErrBranchEncoding, len(data), maskBytes)
	}
	state := binary.BigEndian.Uint16(data)
	tree := binary.BigEndian.Uint16(data[2:])
	hash := binary.BigEndian.Uint16(data[4:])
	if want := maskBytes + len(stacktrie.Hash{})*bits.OnesCount16(hash); len(data) != want {
		return recordView{}, fmt.Errorf("%w: %d bytes for hash mask %016b, want %d", ErrBranchEncoding, len(data), hash, want)
	}
	if err := checkMasks(state, tree, hash); err != nil {
		return recordView{}, err
	}
	return recordView{state, tree, hash, data[maskBytes:]}, nil
}

// childHash returns the hash of child i, which has a hash bit.
func (v *recordView) childHash(i int) []byte {
	k := bits.OnesCount16(v.hash & (1<<i - 1))
	return v.hashes[k*len(stacktrie.Hash{}) : (k+1)*len(stacktrie.Hash{})]
}

// checkMasks applies the rules a stored branch's masks follow.
func checkMasks(state, tree, hash uint16) error {
	switch {
	case bits.OnesCount16(state) < 2:
		return fmt.Errorf("%w: state mask %016b has fewer than two children", ErrBranchEncoding, state)
	case hash&^state != 0:
		return fmt.Errorf("%w: hash mask %016b outside state mask %016b", ErrBranchEncoding, hash, state)
	case tree&^state != 0:
		return fmt.Errorf("%w: tree mask %016b outside state mask %016b", ErrBranchEncoding, tree, state)
	case tree|hash == 0:
		return fmt.Errorf("%w: neither a tree nor a hash bit: such a branch is not stored", ErrBranchEncoding)
	}
	return nil
}

package stacktrie

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrInvalidBranch refuses a branch to mount whose path holds a nibble above
// 15 or whose reference is neither a 32-byte hash nor the RLP list of a node
// shorter than 32 bytes.
var ErrInvalidBranch = errors.New("stacktrie: invalid branch to mount")

// UpdateBranch inserts, in key order, a subtrie known only by the reference
// of its branch node: ref is the node's 32-byte hash, or its RLP encoding
// when that is shorter than 32 bytes, and path is the node's nibble path from
// the root, one nibble (0 to 15) per byte. The trie builds the extensions and
// branches above it as usual and reports only the nodes it builds.
//
// This is how stored intermediate hashes are reused, and how subtries built
// elsewhere are combined (see Subtrie). path must come after the previous key
// or branch; a later key or branch under path is refused with ErrKeyOrder,
// since the mounted subtrie holds all of them. A refused call changes nothing.
func (t *Trie) UpdateBranch(path []byte, ref []byte) error {
	if t.hashed {
		return ErrFinalized
	}
	if err := checkBranch(path, ref); err != nil {
		return err
	}
	t.packed = packNibbles(t.packed[:0], path)
	if t.hasKey {
		split, ok := t.divergenceNibbles(t.packed, len(path))
		if !ok {
			return fmt.Errorf("%w: branch at nibbles %x after %#x", ErrKeyOrder, path, t.key[:(t.keyNibbles+1)/2])
		}
		t.fold(split)
		if t.lanes != nil {
			t.hashReady(false)
		}
	}
	t.key = append(t.key[:0], t.packed...)
	t.keyNibbles = len(path)
	t.mounted = true
	t.mount.n = uint8(copy(t.mount.buf[:], ref))
	t.mount.job = noJob
	if t.onNode != nil {
		t.path = append(t.path[:0], path...)
	}
	t.hasKey = true
	return nil
}

// checkBranch validates a branch to mount.
func checkBranch(path, ref []byte) error {
	for _, n := range path {
		if n > 0x0f {
			return fmt.Errorf("%w: nibble %#x in path %x", ErrInvalidBranch, n, path)
		}
	}
	switch {
	case len(ref) == 32:
		return nil
	case len(ref) == 0 || len(ref) > 32:
		return fmt.Errorf("%w: reference of %d bytes", ErrInvalidBranch, len(ref))
	case ref[0] < rlpList || int(ref[0]-rlpList)+1 != len(ref):
		return fmt.Errorf("%w: %#x is not the RLP list of a node", ErrInvalidBranch, ref)
	}
	return nil
}

// divergenceNibbles is divergence for nibble paths, where the last item or the
// next may be a mounted branch: next holds n nibbles, packed. Nothing may
// follow under a mounted branch.
func (t *Trie) divergenceNibbles(next []byte, n int) (int, bool) {
	last := t.key
	common := min(t.keyNibbles, n)
	i := 0
	for i < common && nibble(last, i) == nibble(next, i) {
		i++
	}
	if i == common {
		return i, n > t.keyNibbles && !t.mounted
	}
	return i, nibble(next, i) > nibble(last, i)
}

// finalizeMount gives a mounted branch to its parent, which hangs it at
// depth start-1: as it is, or under an extension over the nibbles between.
// As the root it is hashed, and reported if its hash is new.
func (t *Trie) finalizeMount(start int, isRoot bool) {
	t.ref = t.mount
	if start < t.keyNibbles {
		t.finalizeExtension(start, t.keyNibbles, isRoot)
		return
	}
	if isRoot && t.ref.n < 32 {
		blob := t.mount.buf[:t.mount.n]
		t.hasher.sum(blob, &t.ref.buf)
		t.ref.n = 32
		if t.onNode != nil {
			t.onNode(t.path[:0], t.ref.buf, blob)
		}
	}
}

// packNibbles appends nibbles packed two to a byte, high nibble first.
func packNibbles(dst, nibbles []byte) []byte {
	for i := 0; i < len(nibbles); i += 2 {
		b := nibbles[i] << 4
		if i+1 < len(nibbles) {
			b |= nibbles[i+1]
		}
		dst = append(dst, b)
	}
	return dst
}

// A Subtrie is the top of a trie in the form another trie takes it: empty,
// a single pair, or a branch known by its reference. Tries built from the
// keys under different prefixes, one prefix each, in separate goroutines,
// processes or machines, combine into the trie of all the keys by mounting
// their Subtries, in key order, into one trie.
type Subtrie struct {
	// Path and Ref give the top branch: its nibble path from the root and
	// its reference (the hash, or the RLP if shorter than 32 bytes).
	Path, Ref []byte
	// Key and Value give the pair of a trie that holds only one. Key is
	// not nil, even for the empty key.
	Key, Value []byte
}

// IsEmpty reports whether the subtrie holds nothing.
func (s Subtrie) IsEmpty() bool {
	return s.Ref == nil && s.Key == nil
}

// Mount inserts the subtrie into t, with Update or UpdateBranch.
func (s Subtrie) Mount(t *Trie) error {
	switch {
	case s.Ref != nil:
		return t.UpdateBranch(s.Path, s.Ref)
	case s.Key != nil:
		return t.Update(s.Key, s.Value)
	}
	return nil
}

// Subtrie collapses the trie into its top: it finalizes every node below the
// top branch, reporting those as Hash would, and returns the branch's
// reference; or the only pair; or nothing for an empty trie. The trie keeps
// the top as its last item, as if UpdateBranch had put it there, so Hash
// still gives the root and later keys may still follow. The Subtrie is a copy
// and stays valid. After Hash, Subtrie fails with ErrFinalized.
func (t *Trie) Subtrie() (Subtrie, error) {
	if t.hashed {
		return Subtrie{}, ErrFinalized
	}
	t.collapse()
	switch {
	case !t.hasKey:
		return Subtrie{}, nil
	case t.mounted:
		path := make([]byte, t.keyNibbles)
		for i := range path {
			path[i] = nibble(t.key, i)
		}
		return Subtrie{Path: path, Ref: bytes.Clone(t.mount.buf[:t.mount.n])}, nil
	}
	return Subtrie{Key: append([]byte{}, t.key...), Value: bytes.Clone(t.value)}, nil
}

// collapse folds the spine into its top branch and makes that the trie's
// mounted last item. The trie must not be hashed.
func (t *Trie) collapse() {
	if len(t.frames) == 0 {
		return
	}
	top := t.frames[0].depth
	t.fold(top)
	t.finalizeBranch(0, false)
	t.frames = t.frames[:0]
	t.mount = t.ref
	if t.ref.job != noJob {
		t.jobs[t.ref.job].to = toMount
		t.hashReady(true)
		t.mount.job = noJob
	}
	t.key = t.key[:(top+1)/2]
	t.keyNibbles = top
	t.mounted = true
	if t.onNode != nil {
		t.path = t.path[:top]
	}
}

// AppendSubtrie is Subtrie in binary form: it collapses the trie as Subtrie
// does and appends to dst what MarshalBinary writes for the Subtrie, without
// the copies Subtrie makes, so that a caller that reuses dst allocates
// nothing. MountSubtrie takes the result. After Hash it fails with
// ErrFinalized and appends nothing.
func (t *Trie) AppendSubtrie(dst []byte) ([]byte, error) {
	if t.hashed {
		return dst, ErrFinalized
	}
	return t.appendTop(dst), nil
}

// MountSubtrie mounts a Subtrie in the binary form MarshalBinary and
// AppendSubtrie write, as UnmarshalBinary then Mount would, but without
// decoding it into copies: Update and UpdateBranch copy what they keep.
// Malformed data is refused with the errors UnmarshalBinary gives, and, like
// every refused call, changes nothing.
func (t *Trie) MountSubtrie(data []byte) error {
	form, first, second, err := splitSubtrie(data)
	switch {
	case err != nil:
		return err
	case form == subtrieBranch:
		return t.UpdateBranch(first, second)
	case form == subtriePair:
		return t.Update(first, second)
	}
	return nil
}

// appendTop collapses the trie and appends its top in the binary form of a
// Subtrie. The trie must not be hashed.
func (t *Trie) appendTop(dst []byte) []byte {
	t.collapse()
	switch {
	case !t.hasKey:
		return append(dst, subtrieEmpty)
	case t.mounted:
		dst = binary.AppendUvarint(append(dst, subtrieBranch), uint64(t.keyNibbles))
		for i := range t.keyNibbles {
			dst = append(dst, nibble(t.key, i))
		}
		return appendField(dst, t.mount.buf[:t.mount.n])
	}
	return appendField(appendField(append(dst, subtriePair), t.key), t.value)
}

// ErrSubtrieEncoding refuses bytes that UnmarshalBinary cannot read as a Subtrie.
var ErrSubtrieEncoding = errors.New("stacktrie: malformed subtrie encoding")

// The first byte of a Subtrie's binary form.
const (
	subtrieEmpty = iota
	subtriePair
	subtrieBranch
)

// MarshalBinary encodes the subtrie compactly, to hand it to another process:
// a form byte, then the key and value, or the path (a byte a nibble) and the
// reference, each as a uvarint length and the bytes.
func (s Subtrie) MarshalBinary() ([]byte, error) {
	switch {
	case s.Ref != nil:
		return appendField(appendField([]byte{subtrieBranch}, s.Path), s.Ref), nil
	case s.Key != nil:
		return appendField(appendField([]byte{subtriePair}, s.Key), s.Value), nil
	}
	return []byte{subtrieEmpty}, nil
}

// UnmarshalBinary decodes what MarshalBinary wrote and checks it as Mount
// would: a branch's path and reference as UpdateBranch does, a pair's value
// as non-empty.
func (s *Subtrie) UnmarshalBinary(data []byte) error {
	form, first, second, err := splitSubtrie(data)
	if err != nil {
		return err
	}
	switch form {
	case subtrieBranch:
		*s = Subtrie{Path: append([]byte{}, first...), Ref: bytes.Clone(second)}
	case subtriePair:
		*s = Subtrie{Key: append([]byte{}, first...), Value: bytes.Clone(second)}
	default:
		*s = Subtrie{}
	}
	return nil
}

// splitSubtrie reads the binary form of a Subtrie: its form byte and its two
// fields (path and reference, or key and value), checked as UnmarshalBinary
// promises.
func splitSubtrie(data []byte) (form byte, first, second []byte, err error) {
	if len(data) == 0 {
		return 0, nil, nil, fmt.Errorf("%w: no bytes", ErrSubtrieEncoding)
	}
	form, rest, ok := data[0], data[1:], true
	if form != subtrieEmpty {
		first, rest, ok = readField(rest)
		if ok {
			second, rest, ok = readField(rest)
		}
	}
	if !ok || len(rest) != 0 || form > subtrieBranch {
		return 0, nil, nil, fmt.Errorf("%w: %d bytes", ErrSubtrieEncoding, len(data))
	}
	switch form {
	case subtrieBranch:
		if err := checkBranch(first, second); err != nil {
			return 0, nil, nil, err
		}
	case subtriePair:
		if len(second) == 0 {
			return 0, nil, nil, fmt.Errorf("%w: a pair without a value", ErrSubtrieEncoding)
		}
	}
	return form, first, second, nil
}

func appendField(dst, field []byte) []byte {
	return append(binary.AppendUvarint(dst, uint64(len(field))), field...)
}

// readField reads a field as appendField writes it. A length in more bytes
// than its shortest uvarint form is refused, so that every accepted encoding
// is the one MarshalBinary writes.
func readField(data []byte) (field, rest []byte, ok bool) {
	n, size := binary.Uvarint(data)
	if size <= 0 || n > uint64(len(data)-size) || size != uvarintSize(n) {
		return nil, nil, false
	}
	end := size + int(n)
	return data[size:end], data[end:], true
}

// uvarintSize is the size of n in its shortest uvarint form.
func uvarintSize(n uint64) int {
	size := 1
	for ; n >= 0x80; n >>= 7 {
		size++
	}
	return size
}

package stacktrie

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

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
	case !t.hasLast:
		return Subtrie{}, nil
	case t.last.mounted:
		path := make([]byte, t.last.nibbles)
		for i := range path {
			path[i] = nibble(t.last.key, i)
		}
		return Subtrie{Path: path, Ref: bytes.Clone(t.last.mount.buf[:t.last.mount.n])}, nil
	}
	return Subtrie{Key: append([]byte{}, t.last.key...), Value: bytes.Clone(t.last.value)}, nil
}

// collapse folds the spine into its top branch and makes that the trie's
// mounted last item. The trie must not be hashed.
func (t *Trie) collapse() {
	if len(t.frames) == 0 {
		return
	}
	top := t.frames[0].depth
	t.fold(top)
	t.finalizeBranch(0, false, &t.last.mount)
	t.frames = t.frames[:0]
	if j := t.last.mount.job; j != noJob {
		t.batch.sendTo(j, destination{kind: toMount})
		t.batch.drain()
		t.last.mount.job = noJob
	}
	t.last.key = t.last.key[:(top+1)/2]
	t.last.nibbles = top
	t.last.mounted = true
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
	case !t.hasLast:
		return append(dst, subtrieEmpty)
	case t.last.mounted:
		dst = binary.AppendUvarint(append(dst, subtrieBranch), uint64(t.last.nibbles))
		for i := range t.last.nibbles {
			dst = append(dst, nibble(t.last.key, i))
		}
		return appendField(dst, t.last.mount.buf[:t.last.mount.n])
	}
	return appendField(appendField(append(dst, subtriePair), t.last.key), t.last.value)
}

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

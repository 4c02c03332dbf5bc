package main

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
)

// storedTrie reads the account trie that the database holds, node by node:
// the path scheme keys a node by "A" and its path, one nibble a byte; the
// hash scheme by its hash.
type storedTrie struct {
	g      *gethDB
	scheme string
	key    []byte // reused
}

// leafFunc receives a leaf of the trie: its 32-byte key and its value.
type leafFunc func(key, value []byte) error

// walk calls leaf with every leaf of the trie whose root is root, in key
// order, checking that each stored node hashes to its parent's reference.
func (t *storedTrie) walk(root []byte, leaf leafFunc) error {
	return t.walkRef(make([]byte, 0, 64), root, leaf)
}

// walkRef walks the subtrie at path that ref refers to: a 32-byte hash of a
// stored node, or the encoding of a node embedded in its parent.
func (t *storedTrie) walkRef(path, ref []byte, leaf leafFunc) error {
	if len(ref) < 32 {
		return t.walkNode(path, ref, leaf)
	}
	blob, err := t.load(path, ref)
	if err != nil {
		return err
	}
	return t.walkNode(path, blob, leaf)
}

// load reads the stored node at path whose hash is hash.
func (t *storedTrie) load(path, hash []byte) ([]byte, error) {
	if t.scheme == pathScheme {
		t.key = append(append(t.key[:0], 'A'), path...)
	} else {
		t.key = append(t.key[:0], hash...)
	}
	blob, err := t.g.get(t.key)
	if err != nil {
		return nil, err
	}
	if blob == nil {
		return nil, fmt.Errorf("the trie's node at path %s is missing", nibbleString(path))
	}
	if h := keccak256(blob); !bytes.Equal(h[:], hash) {
		return nil, fmt.Errorf("the trie's node at path %s hashes to %s, not to its parent's reference %s", nibbleString(path), hex0x(h[:]), hex0x(hash))
	}
	return blob, nil
}

// walkNode walks a node given by its encoding.
func (t *storedTrie) walkNode(path, blob []byte, leaf leafFunc) error {
	isList, payload, rest, err := rlpItem(blob)
	if err == nil && (!isList || len(rest) > 0) {
		err = errRLP
	}
	var items [][]byte
	if err == nil {
		items, err = rlpItems(payload)
	}
	if err != nil {
		return fmt.Errorf("the trie's node at path %s: %w", nibbleString(path), err)
	}
	switch len(items) {
	case 17:
		return t.walkBranch(path, items, leaf)
	case 2:
		return t.walkShort(path, items, leaf)
	}
	return fmt.Errorf("the trie's node at path %s: a list of %d items, neither a branch nor a leaf or extension", nibbleString(path), len(items))
}

func (t *storedTrie) walkBranch(path []byte, items [][]byte, leaf leafFunc) error {
	for i, item := range items[:16] {
		ref, err := childRef(item)
		if err != nil {
			return fmt.Errorf("the trie's branch at path %s, child %x: %w", nibbleString(path), i, err)
		}
		if ref == nil {
			continue
		}
		if err := t.walkRef(append(path, byte(i)), ref, leaf); err != nil {
			return err
		}
	}
	if value, err := rlpStringOf(items[16]); err != nil || len(value) > 0 {
		return fmt.Errorf("the trie's branch at path %s holds a value: keys of an account trie are all 32 bytes", nibbleString(path))
	}
	return nil
}

func (t *storedTrie) walkShort(path []byte, items [][]byte, leaf leafFunc) error {
	compact, err := rlpStringOf(items[0])
	if err != nil || len(compact) == 0 {
		return fmt.Errorf("the trie's node at path %s: no key", nibbleString(path))
	}
	nibbles, isLeaf := compactToNibbles(compact)
	full := append(path, nibbles...)
	if !isLeaf {
		ref, err := childRef(items[1])
		if err != nil || ref == nil {
			return fmt.Errorf("the trie's extension at path %s: no child", nibbleString(path))
		}
		return t.walkRef(full, ref, leaf)
	}
	value, err := rlpStringOf(items[1])
	if err != nil || len(full) != 64 {
		return fmt.Errorf("the trie's leaf at path %s: not a 32-byte key with a value", nibbleString(path))
	}
	return leaf(nibblesToBytes(full), value)
}

// childRef returns a branch or extension's reference to a child: a hash,
// an embedded node's encoding, or nil for none.
func childRef(item []byte) ([]byte, error) {
	isList, payload, _, err := rlpItem(item)
	switch {
	case err != nil:
		return nil, err
	case isList:
		return slices.Clip(item), nil
	case len(payload) == 0:
		return nil, nil
	case len(payload) == 32:
		return payload, nil
	}
	return nil, errors.New("a reference that is neither a hash nor a node")
}

// compactToNibbles decodes a hex-prefix key: its nibbles, and whether it
// ends a leaf.
func compactToNibbles(compact []byte) ([]byte, bool) {
	flag := compact[0] >> 4
	var out []byte
	if flag&1 == 1 {
		out = append(out, compact[0]&0x0f)
	}
	for _, b := range compact[1:] {
		out = append(out, b>>4, b&0x0f)
	}
	return out, flag&2 == 2
}

// nibblesToBytes packs an even number of nibbles two to a byte.
func nibblesToBytes(nibbles []byte) []byte {
	out := make([]byte, len(nibbles)/2)
	for i := range out {
		out[i] = nibbles[2*i]<<4 | nibbles[2*i+1]
	}
	return out
}

// nibbleString writes a path as hex digits, one a nibble, "-" for the root.
func nibbleString(path []byte) string {
	if len(path) == 0 {
		return "-"
	}
	const digits = "0123456789abcdef"
	s := make([]byte, len(path))
	for i, n := range path {
		s[i] = digits[n&0x0f]
	}
	return string(s)
}

package stacktrie

// This file is the decoder that reads back what encoder.go writes: strict
// RLP (through internal/rlp, the module's one reader), hex-prefix paths and
// trie nodes. It accepts only canonical encodings,
// so that a proof node that decodes is one the encoder could have written,
// and it fails with an error, never a panic, on any input. VerifyProof
// (verify.go) and VerifyRange (verify_range.go) read proofs with it.

import (
	"errors"
	"fmt"

	"github.com/stacktrie/stacktrie/internal/rlp"
)

// nodeKind is the kind of a decoded trie node.
type nodeKind uint8

const (
	leafNode nodeKind = iota + 1
	extensionNode
	branchNode
)

// trieNode is a trie node decoded and checked by decodeNode. Its slices
// point into the node's encoding. It is a value, not a tree: the nodes
// embedded in it stay encoded in refs, for decodeNode to decode in turn.
type trieNode struct {
	kind nodeKind
	// path is the hex-prefix path of a leaf or an extension.
	path compactPath
	// value is a leaf's value, never empty, or a branch's slot 16, empty
	// when no key ends at the branch.
	value []byte
	// refs are a branch's 16 child references, or an extension's child in
	// refs[0]. A reference is empty (no child), a 32-byte hash, or the RLP of
	// a node under 32 bytes, embedded in its parent.
	refs [16][]byte
}

// children returns the node's child references: 16 for a branch, one for an
// extension, none for a leaf.
func (n *trieNode) children() [][]byte {
	switch n.kind {
	case branchNode:
		return n.refs[:]
	case extensionNode:
		return n.refs[:1]
	}
	return nil
}

// decodeNode decodes b, which must be exactly one canonical leaf, extension
// or branch, into n, and with isChild requires a branch, as an extension's
// child must be. It checks the form of each child reference but not the
// nodes embedded in them: those are for the caller to decode in turn.
func decodeNode(b []byte, isChild bool, n *trieNode) error {
	var items [17]rlpItem
	count, err := splitNode(b, &items)
	if err != nil {
		return err
	}
	switch count {
	case 17:
		n.kind = branchNode
		for i, it := range items[:16] {
			if n.refs[i], err = decodeRef(it); err != nil {
				return err
			}
		}
		if items[16].list {
			return errors.New("branch value is a list")
		}
		n.value = items[16].content
		return nil
	case 2:
		if isChild {
			return errors.New("extension's child is not a branch")
		}
		path, leaf, err := decodeCompact(items[0])
		if err != nil {
			return err
		}
		n.path = path
		if leaf {
			if items[1].list || len(items[1].content) == 0 {
				return errors.New("leaf value is not a non-empty string")
			}
			n.kind, n.value = leafNode, items[1].content
			return nil
		}
		if path.nibbles() == 0 {
			return errors.New("extension without nibbles")
		}
		if items[1].isEmpty() {
			return errors.New("extension without child")
		}
		n.kind = extensionNode
		n.refs[0], err = decodeRef(items[1])
		return err
	}
	return fmt.Errorf("list of %d items is not a trie node", count)
}

// checkEmbedded decodes the nodes embedded in n, but for the child at
// index skip of n.children() (-1 for none), and the nodes embedded in them
// in turn, only to check them: a node is refused for a bad node embedded
// anywhere in it, as go-ethereum refuses it.
func (n *trieNode) checkEmbedded(skip int) error {
	for i, ref := range n.children() {
		if i != skip && len(ref) > 0 && len(ref) != len(Hash{}) {
			if err := checkEmbeddedNode(ref, n.kind == extensionNode); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkEmbeddedNode decodes node, embedded in its parent, with isChild as
// decodeNode has it, and checks the nodes embedded in it.
func checkEmbeddedNode(node []byte, isChild bool) error {
	var n trieNode
	if err := decodeNode(node, isChild, &n); err != nil {
		return err
	}
	return n.checkEmbedded(-1)
}

// decodeRef checks the form of a child reference and returns it as
// trieNode.refs holds it: empty, a 32-byte hash, or an embedded node's RLP,
// which must be under 32 bytes (a longer node is hashed).
func decodeRef(it rlpItem) ([]byte, error) {
	if !it.list {
		if n := len(it.content); n != 0 && n != len(Hash{}) {
			return nil, fmt.Errorf("reference of %d bytes, neither a hash nor a node", n)
		}
		return it.content, nil
	}
	if len(it.raw) >= len(Hash{}) {
		return nil, fmt.Errorf("embedded node of %d bytes, which should be hashed", len(it.raw))
	}
	return it.raw, nil
}

// compactPath is the hex-prefix encoding of a nibble path, flag nibble
// first (Yellow Paper, appendix C).
type compactPath []byte

func (c compactPath) odd() bool { return c[0]>>4&flagOdd != 0 }

func (c compactPath) nibbles() int {
	if c.odd() {
		return 2*len(c) - 1
	}
	return 2*len(c) - 2
}

// nibble returns nibble j of the path, past the flag nibble and, for an even
// path, its padding nibble.
func (c compactPath) nibble(j int) byte {
	if c.odd() {
		j++
	} else {
		j += 2
	}
	return nibble(c, j)
}

// decodeCompact checks the first item of a two-item node: a hex-prefix
// path with an extension's or a leaf's flag, odd or even, and a zero
// padding nibble when the path is even.
func decodeCompact(it rlpItem) (path compactPath, leaf bool, err error) {
	if it.list || len(it.content) == 0 {
		return nil, false, errors.New("node path is not a hex-prefix string")
	}
	flag := it.content[0] >> 4
	if flag > flagLeaf|flagOdd {
		return nil, false, fmt.Errorf("hex-prefix flag %d", flag)
	}
	if flag&flagOdd == 0 && it.content[0]&0x0f != 0 {
		return nil, false, errors.New("hex-prefix padding nibble is not zero")
	}
	return compactPath(it.content), flag&flagLeaf != 0, nil
}

// rlpItem is one RLP item: raw is its whole encoding, content its payload.
type rlpItem struct {
	list         bool
	raw, content []byte
}

// isEmpty reports whether the item is the empty string, an empty slot.
func (it rlpItem) isEmpty() bool { return !it.list && len(it.content) == 0 }

// splitNode decodes node, which must be exactly one RLP list, into its items,
// and returns how many there are. A trie node has 2 or 17; splitNode fails
// on more than 17.
func splitNode(node []byte, items *[17]rlpItem) (int, error) {
	list, err := splitRLP(node)
	if err != nil {
		return 0, err
	}
	if !list.list {
		return 0, errors.New("node is not a list")
	}
	if len(list.raw) != len(node) {
		return 0, fmt.Errorf("%d bytes after the node", len(node)-len(list.raw))
	}
	n := 0
	for rest := list.content; len(rest) > 0; n++ {
		if n == len(items) {
			return 0, errors.New("list of more than 17 items is not a trie node")
		}
		it, err := splitRLP(rest)
		if err != nil {
			return 0, err
		}
		items[n] = it
		rest = rest[len(it.raw):]
	}
	return n, nil
}

// splitRLP decodes the RLP item at the start of b, canonical only.
func splitRLP(b []byte) (rlpItem, error) {
	list, content, rest, err := rlp.Split(b)
	if err != nil {
		return rlpItem{}, err
	}
	return rlpItem{list: list, raw: b[:len(b)-len(rest)], content: content}, nil
}

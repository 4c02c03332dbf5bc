package trietest

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// Node is a committed trie node: its path from the root as nibbles (one per
// byte), the Keccak-256 hash of its RLP encoding, and the encoding.
type Node struct {
	Path []byte
	Hash common.Hash
	Blob []byte
}

// String shows the node in one line, for failure messages.
func (n Node) String() string {
	return fmt.Sprintf("path=%s hash=%s blob=%#x", NibbleString(n.Path), n.Hash.Hex(), n.Blob)
}

// newNode copies the arguments of a node callback, whose slices are only valid
// during the call.
func newNode(path []byte, hash common.Hash, blob []byte) Node {
	return Node{Path: slices.Clone(path), Hash: hash, Blob: slices.Clone(blob)}
}

// NibbleString writes a nibble path as hex digits, one per nibble.
func NibbleString(path []byte) string {
	var b strings.Builder
	for _, n := range path {
		b.WriteByte("0123456789abcdef"[n&0x0f])
	}
	return b.String()
}

// SortedByPath returns a copy of nodes ordered by path, which identifies a
// node within one trie, so that node sets compare independently of the order
// in which they were reported.
func SortedByPath(nodes []Node) []Node {
	sorted := slices.Clone(nodes)
	slices.SortFunc(sorted, func(a, b Node) int { return bytes.Compare(a.Path, b.Path) })
	return sorted
}

// CheckChildrenFirst returns an error if a node in the reported sequence
// comes before one of its descendants, that is before a node whose path
// extends its own; and if a path is reported twice.
func CheckChildrenFirst(nodes []Node) error {
	seen := make(map[string]bool, len(nodes))
	for i, n := range nodes {
		if seen[string(n.Path)] {
			return fmt.Errorf("node %d reported twice: %v", i, n)
		}
		for depth := range len(n.Path) {
			if seen[string(n.Path[:depth])] {
				return fmt.Errorf("node %d (%v) reported after its ancestor at path %q",
					i, n, NibbleString(n.Path[:depth]))
			}
		}
		seen[string(n.Path)] = true
	}
	return nil
}

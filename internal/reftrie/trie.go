// Package reftrie is a plain, recursive, in-memory Ethereum
// Merkle-Patricia trie (Yellow Paper appendix D), written for clarity rather
// than speed. It is the reference that faster implementations are tested
// against.
//
// The trie only stores the key/value set. Every query rebuilds the node
// structure from the sorted keys, so the shape is canonical by construction
// no matter in which order keys were put or deleted.
package reftrie

import (
	"bytes"
	"sort"

	"golang.org/x/crypto/sha3"
)

// EmptyRoot is the root hash of the empty trie, keccak256(rlp("")).
var EmptyRoot = keccak([]byte{0x80})

// Node is a node that a committing trie would store: every node whose RLP
// encoding is 32 bytes or more, plus the root whatever its size.
type Node struct {
	Path []byte // nibble path from the root, one nibble (0..15) per byte; empty for the root
	Hash [32]byte
	Blob []byte // the node's RLP encoding
}

// Trie is a set of key/value pairs with Merkle-Patricia hashing.
// The zero value is not usable; call New.
type Trie struct {
	kv map[string][]byte
}

// New returns an empty trie.
func New() *Trie {
	return &Trie{kv: make(map[string][]byte)}
}

// Put sets key to value. Keys may be any length, including empty, and may
// be prefixes of each other. An empty value deletes the key.
func (t *Trie) Put(key, value []byte) {
	if len(value) == 0 {
		delete(t.kv, string(key))
		return
	}
	t.kv[string(key)] = bytes.Clone(value)
}

// Get returns a copy of key's value and whether the key is present.
func (t *Trie) Get(key []byte) ([]byte, bool) {
	v, ok := t.kv[string(key)]
	return bytes.Clone(v), ok
}

// Root returns the root hash; the empty trie's root is EmptyRoot.
func (t *Trie) Root() [32]byte {
	root := t.build()
	if root == nil {
		return EmptyRoot
	}
	return keccak(root.blob)
}

// Nodes returns every node whose RLP is 32 bytes or more, and the root node
// whatever its size (none for the empty trie), in post-order: each node after
// all its descendants, children in slot order 0..15.
func (t *Trie) Nodes() []Node {
	root := t.build()
	var out []Node
	walk(root, []byte{}, func(n *node, path []byte, after bool) {
		if after && (len(n.blob) >= 32 || n == root) {
			out = append(out, Node{Path: path, Hash: keccak(n.blob), Blob: n.blob})
		}
	})
	return out
}

// walk visits n and the nodes below it, in slot order, with their nibble
// paths: visit is called before a node's children (after false) and again
// after them (after true).
func walk(n *node, path []byte, visit func(n *node, path []byte, after bool)) {
	if n == nil {
		return
	}
	visit(n, path, false)
	switch n.kind {
	case extension:
		walk(n.child, append(bytes.Clone(path), n.path...), visit)
	case branch:
		for i, c := range n.children {
			walk(c, append(bytes.Clone(path), byte(i)), visit)
		}
	}
	visit(n, path, true)
}

// Branch is a branch node as a parent refers to it, which is how a subtrie
// known only by its top branch is mounted into another trie: its nibble
// path from the root, and its reference, the Keccak-256 hash of its RLP when
// that is 32 bytes or more, else the RLP itself.
type Branch struct {
	Path []byte
	Ref  []byte
}

// Branches returns every branch node of the trie, embedded ones included,
// in pre-order: each branch before the branches below it, children in slot
// order 0..15. That is the key order of their paths.
func (t *Trie) Branches() []Branch {
	var out []Branch
	walk(t.build(), []byte{}, func(n *node, path []byte, after bool) {
		if after || n.kind != branch {
			return
		}
		ref := bytes.Clone(n.blob)
		if len(n.blob) >= 32 {
			h := keccak(n.blob)
			ref = h[:]
		}
		out = append(out, Branch{Path: path, Ref: ref})
	})
	return out
}

// Prove returns the RLP blobs of the nodes on key's path from the root, root
// first, stopping where the path ends or leaves the trie. Nodes under 32
// bytes other than the root are embedded in their parent and not listed.
// An absent key gets a proof of absence; the empty trie gets an empty proof.
func (t *Trie) Prove(key []byte) [][]byte {
	var proof [][]byte
	rest := KeyNibbles(key)
	for n := t.build(); n != nil; {
		if len(proof) == 0 || len(n.blob) >= 32 {
			proof = append(proof, n.blob)
		}
		switch n.kind {
		case leaf:
			n = nil
		case extension:
			if !bytes.HasPrefix(rest, n.path) {
				n = nil
				break
			}
			rest = rest[len(n.path):]
			n = n.child
		case branch:
			if len(rest) == 0 {
				n = nil
				break
			}
			n, rest = n.children[rest[0]], rest[1:]
		}
	}
	return proof
}

type kind int

const (
	leaf kind = iota
	extension
	branch
)

// node is one node of a built trie, together with its RLP encoding.
type node struct {
	kind     kind
	path     []byte    // leaf: remaining key nibbles; extension: shared nibbles
	value    []byte    // leaf value, or branch value (nil if none)
	child    *node     // extension only
	children [16]*node // branch only
	blob     []byte    // RLP encoding of this node
}

// entry is a key/value pair with the key as the nibbles still to consume.
type entry struct {
	rest  []byte
	value []byte
}

// build constructs the node tree of the current key set; nil if it is empty.
func (t *Trie) build() *node {
	if len(t.kv) == 0 {
		return nil
	}
	entries := make([]entry, 0, len(t.kv))
	for k, v := range t.kv {
		entries = append(entries, entry{KeyNibbles([]byte(k)), v})
	}
	sort.Slice(entries, func(i, j int) bool {
		return bytes.Compare(entries[i].rest, entries[j].rest) < 0
	})
	return buildNode(entries)
}

// buildNode builds the subtrie of a non-empty, sorted set of distinct keys.
func buildNode(entries []entry) *node {
	if len(entries) == 1 {
		n := &node{kind: leaf, path: entries[0].rest, value: entries[0].value}
		n.blob = rlpList(rlpString(hexPrefix(n.path, true)), rlpString(n.value))
		return n
	}
	// Sorted, so the first and last keys share the prefix common to all.
	if p := commonPrefix(entries[0].rest, entries[len(entries)-1].rest); p > 0 {
		n := &node{kind: extension, path: entries[0].rest[:p]}
		n.child = buildNode(advance(entries, p))
		n.blob = rlpList(rlpString(hexPrefix(n.path, false)), ref(n.child))
		return n
	}
	n := &node{kind: branch}
	// A key ending here sorts first; at most one can, since keys are distinct.
	if len(entries[0].rest) == 0 {
		n.value = entries[0].value
		entries = entries[1:]
	}
	for len(entries) > 0 {
		nib := entries[0].rest[0]
		end := 1
		for end < len(entries) && entries[end].rest[0] == nib {
			end++
		}
		n.children[nib] = buildNode(advance(entries[:end], 1))
		entries = entries[end:]
	}
	items := make([][]byte, 17)
	for i, c := range n.children {
		items[i] = []byte{0x80}
		if c != nil {
			items[i] = ref(c)
		}
	}
	items[16] = rlpString(n.value) // nil value encodes as 0x80
	n.blob = rlpList(items...)
	return n
}

// ref is how a parent refers to child: the child's RLP itself when shorter
// than 32 bytes, otherwise its hash as an RLP string.
func ref(child *node) []byte {
	if len(child.blob) < 32 {
		return child.blob
	}
	h := keccak(child.blob)
	return rlpString(h[:])
}

// advance drops the first k nibbles of every key.
func advance(entries []entry, k int) []entry {
	out := make([]entry, len(entries))
	for i, e := range entries {
		out[i] = entry{e.rest[k:], e.value}
	}
	return out
}

func commonPrefix(a, b []byte) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

func keccak(b []byte) [32]byte {
	var h [32]byte
	d := sha3.NewLegacyKeccak256()
	d.Write(b)
	d.Sum(h[:0])
	return h
}

package stacktrie

// This file checks proofs: VerifyProof hashes each proof node and walks the
// key down the nodes, which decode.go decodes and checks.

import (
	"fmt"
	"sync"
)

// VerifyProof checks a proof of key against a trie root and returns key's
// value, or nil and no error when the proof shows that key is not in the
// trie. proof holds RLP-encoded nodes, root first, as ProofSet.Proof and
// go-ethereum's Trie.Prove give them: the first must hash to root, and each
// next one to the hash its parent holds on key's path. Nodes under 32 bytes
// are found inside their parents, not in the proof. The value returned is a
// slice of the proof's last node, not a copy.
//
// Any key is accepted, including the empty key and keys that end at a
// branch. The empty proof proves every key absent from the empty trie, whose
// root is EmptyRoot (go-ethereum's VerifyProof has no proof for that case).
// VerifyProof is stricter than go-ethereum's in what it accepts, never looser:
// nodes must be canonical, the root the only node under 32 bytes, and the
// proof must end where the key's path does.
//
// Errors wrap ErrProofHash, ErrProofMissingNode or ErrProofMalformed, with
// the index of the node at fault. No input makes VerifyProof panic.
func VerifyProof(root Hash, key []byte, proof [][]byte) (value []byte, err error) {
	if len(proof) == 0 && root == EmptyRoot {
		return nil, nil
	}
	w := proofWalk{key: key, want: root, nibbles: 2 * len(key)}
	h := proofHashers.Get().(*proofHasher)
	defer proofHashers.Put(h)
	for i := 0; ; i++ {
		if i == len(proof) {
			return nil, fmt.Errorf("%w: node %d, hash %x, after %d of %d key nibbles", ErrProofMissingNode, i, w.want, w.pos, w.nibbles)
		}
		node := proof[i]
		if got := h.sum(node); *got != w.want {
			return nil, fmt.Errorf("%w: node %d hashes to %x, want %x", ErrProofHash, i, *got, w.want)
		}
		if i > 0 && len(node) < 32 {
			return nil, fmt.Errorf("%w: node %d: a node of %d bytes is embedded in its parent, not hashed", ErrProofMalformed, i, len(node))
		}
		if err := w.step(node); err != nil {
			return nil, fmt.Errorf("%w: node %d: %s", ErrProofMalformed, i, err)
		}
		if w.done {
			if extra := len(proof) - i - 1; extra > 0 {
				return nil, fmt.Errorf("%w: %d nodes past the end of the key's path at node %d", ErrProofMalformed, extra, i)
			}
			return w.value, nil
		}
	}
}

// proofHasher is the scalar hasher with room for a digest, pooled so that
// VerifyProof allocates nothing.
type proofHasher struct {
	hasher
	out Hash
}

var proofHashers = sync.Pool{New: func() any { return &proofHasher{hasher: newHasher()} }}

// sum returns keccak256(b), valid until the next call.
func (h *proofHasher) sum(b []byte) *Hash {
	h.hasher.sum(b, (*[32]byte)(&h.out))
	return &h.out
}

// proofWalk follows a key down the nodes of a proof.
type proofWalk struct {
	key     []byte
	pos     int  // key nibbles consumed
	nibbles int  // 2 * len(key)
	want    Hash // the hash the next proof node must have
	// afterExtension says that the node to come is an extension's child,
	// which must be a branch.
	afterExtension bool
	done           bool
	value          []byte // when done: the value, or nil for absence
}

// step walks key through one hashed node, and the nodes embedded in it,
// until the path ends (done) or leads to another hashed node (want).
func (w *proofWalk) step(node []byte) error {
	return w.visit(node, w.afterExtension)
}

// visit decodes node, on the key's path, with isChild as decodeNode has it,
// and takes the key through it and into the child the key goes to: the
// next proof node's hash, or a node embedded here, visited in turn. The
// nodes embedded off the path are decoded only to be checked
// (checkEmbedded). Each node is decoded once, and a node's own defects are
// found before those of the nodes embedded in it.
func (w *proofWalk) visit(node []byte, isChild bool) error {
	var n trieNode
	if err := decodeNode(node, isChild, &n); err != nil {
		return err
	}
	next := w.enter(&n)
	if err := n.checkEmbedded(next); err != nil {
		return err
	}
	if next < 0 {
		return nil
	}
	ref := n.children()[next]
	if len(ref) == len(w.want) { // a hash: the next proof node's
		w.want, w.afterExtension = Hash(ref), n.kind == extensionNode
		return nil
	}
	return w.visit(ref, n.kind == extensionNode)
}

// enter takes the key into n, a node on its path, and returns the index in
// n.children() of the child the key goes to, or -1 when the path ends at n:
// then the walk is done, with the key's value or nil.
func (w *proofWalk) enter(n *trieNode) int {
	switch n.kind {
	case branchNode:
		if w.pos == w.nibbles {
			w.done = true
			if len(n.value) > 0 {
				w.value = n.value
			}
			return -1
		}
		slot := int(nibble(w.key, w.pos))
		w.pos++
		if len(n.refs[slot]) == 0 {
			w.done = true // no child where the key goes
			return -1
		}
		return slot
	case extensionNode:
		if !w.matchPath(n.path) {
			w.done = true // the key leaves the extension's path
			return -1
		}
		w.pos += n.path.nibbles()
		return 0
	default: // a leaf
		w.done = true
		if w.matchPath(n.path) && w.pos+n.path.nibbles() == w.nibbles {
			w.value = n.value
		}
		return -1
	}
}

// matchPath reports whether the key continues, from the nibbles consumed,
// with path.
func (w *proofWalk) matchPath(path compactPath) bool {
	n := path.nibbles()
	if w.pos+n > w.nibbles {
		return false
	}
	for j := range n {
		if path.nibble(j) != nibble(w.key, w.pos+j) {
			return false
		}
	}
	return true
}

package stacktrie

// This file checks snap-sync ranges in one streaming pass. The proofs of the
// range's two edges give, beside their paths, the references of everything
// left of the first edge and right of the last: VerifyRange mounts those on
// a Trie with UpdateBranch, streams the range's pairs in between, and
// compares the root. Nothing of the range is held but the Trie's spine.

import (
	"bytes"
	"fmt"
	"slices"
	"sync"
)

// VerifyRange checks that keys and values are exactly the leaves of the trie
// with the given root from first up to the last key, with proof holding the
// nodes of the proofs of first and of the last key (any order; extra nodes
// allowed), as go-ethereum's trie.VerifyRangeProof does and with the same
// verdicts. With a nil proof the range must be the whole trie. hasMore
// reports whether the trie has leaves after the last key.
//
// Like go-ethereum, VerifyRange takes keys in strictly ascending order, none
// a prefix of the next, and non-empty values; first no greater than the
// first key; and, where the range has more than one key or starts before
// its only key, edges of one length. State and storage keys all have 32
// bytes; ranges over keys of mixed lengths are refused with ErrRangeInput.
//
// Where go-ethereum misjudges, VerifyRange follows the trie: on edges that
// are prefixes of the trie's keys, or that its keys are prefixes of, and on
// a key that is a prefix of the last one, left out of the range. Its proof
// nodes must be canonical, as VerifyProof's must, so it refuses some proofs
// whose nodes go-ethereum reads past (bytes after a node, a bad hex-prefix
// flag or padding, a value at a branch at an odd nibble). No range of keys
// of one length, proved by an honest peer, meets either case.
//
// Errors wrap ErrRangeInput, ErrRangeMismatch, ErrRangeMore,
// ErrProofMissingNode or ErrProofMalformed. No input makes it panic.
func VerifyRange(root Hash, first []byte, keys, values [][]byte, proof [][]byte) (hasMore bool, err error) {
	v := rangeVerifiers.Get().(*RangeVerifier)
	defer rangeVerifiers.Put(v)
	return v.Verify(root, first, keys, values, proof)
}

var rangeVerifiers = sync.Pool{New: func() any { return NewRangeVerifier(nil) }}

// A RangeVerifier verifies ranges as VerifyRange does, reusing its trie and
// buffers: once warm, Verify allocates nothing. It is not safe for
// concurrent use.
//
// With a node callback, Verify reports the nodes of the full trie whose
// every leaf lies in the range: those a syncer can store from this range
// alone, each with its path in the full trie and after its hashed
// descendants, and the root when the range is the whole trie. They are
// reported as they are final, before the verdict: write them to a batch,
// and drop the batch when Verify refuses the range.
type RangeVerifier struct {
	onNode NodeFunc
	trie   *Trie
	hasher proofHasher
	nodes  map[Hash][]byte   // the proof's nodes by hash
	lookup func(Hash) []byte // VerifyFunc's source of nodes, in place of nodes
	root   Hash              // the root being verified, which the root's item may refer to
	padded []byte            // the proof's nodes copied with room for padding, for the lanes
	hashes []Hash

	// The edges' nibble paths, and the items off them: left of the first
	// edge and right of the last, each a node to mount or a value at a
	// branch, with how deep along its edge the deepest of them hangs.
	first, last           []byte
	left, right           []rangeItem
	leftReach, rightReach int
	key                   []byte // a value item's key, packed
}

// A rangeItem is a subtrie off an edge's path, mounted by its reference, or
// the value of a key that ends at a branch on the path.
type rangeItem struct {
	path  []byte // nibbles, one a byte
	ref   []byte // the node's reference, or nil for a value
	value []byte
}

// NewRangeVerifier returns a RangeVerifier; onNode, which may be nil,
// receives the nodes that lie wholly in each verified range.
func NewRangeVerifier(onNode NodeFunc) *RangeVerifier {
	v := &RangeVerifier{onNode: onNode, hasher: proofHasher{hasher: newHasher()}, nodes: make(map[Hash][]byte)}
	if onNode != nil {
		v.trie = New(v.report)
	} else {
		v.trie = New(nil)
	}
	return v
}

// Verify is VerifyRange on v's buffers.
func (v *RangeVerifier) Verify(root Hash, first []byte, keys, values [][]byte, proof [][]byte) (hasMore bool, err error) {
	if err := checkRange(keys, values); err != nil {
		return false, err
	}
	if proof != nil {
		v.index(proof)
	}
	return v.verify(root, first, keys, values, proof != nil)
}

// VerifyFunc is Verify with the proof's nodes looked up by hash: node returns
// the node with the given hash, or nil when the proof lacks it; a nil node
// means no proof. This serves proofs kept in a database, as go-ethereum
// keeps them, without collecting them first.
func (v *RangeVerifier) VerifyFunc(root Hash, first []byte, keys, values [][]byte, node func(hash Hash) []byte) (hasMore bool, err error) {
	if err := checkRange(keys, values); err != nil {
		return false, err
	}
	v.lookup = node
	defer func() { v.lookup = nil }()
	return v.verify(root, first, keys, values, node != nil)
}

// index hashes the proof's nodes, in the trie's lanes where it has them,
// and keys them by hash.
func (v *RangeVerifier) index(proof [][]byte) {
	clear(v.nodes)
	v.hashes = slices.Grow(v.hashes[:0], len(proof))[:len(proof)]
	l := v.trie.batch.lanes
	if l == nil {
		for i, node := range proof {
			v.hashes[i] = *v.hasher.sum(node)
		}
	} else {
		v.trie.Reset() // no job of an earlier range may be left in the lanes
		v.padded = l.sumEach(proof, v.hashes, v.padded)
	}
	for i, node := range proof {
		v.nodes[v.hashes[i]] = node
	}
}

// verify checks a range once its proof can be looked up.
func (v *RangeVerifier) verify(root Hash, first []byte, keys, values [][]byte, withProof bool) (hasMore bool, err error) {
	v.left, v.right = v.left[:0], v.right[:0]
	v.leftReach, v.rightReach = -1, -1
	v.first = appendNibbles(v.first[:0], first)
	if !withProof {
		// The whole trie, with nothing to mount.
		v.last = v.last[:0]
		return false, v.rebuild(root, keys, values)
	}
	if len(keys) == 0 {
		// An empty range: first must be absent, and nothing after it.
		value, err := v.walk(root, v.first, true, &v.right, &v.rightReach)
		if err != nil {
			return false, err
		}
		if value != nil || len(v.right) > 0 {
			return false, fmt.Errorf("%w: leaves at or after %#x", ErrRangeMore, first)
		}
		return false, nil
	}
	if bytes.Compare(first, keys[0]) > 0 {
		return false, fmt.Errorf("%w: key %#x before the range's start %#x", ErrRangeInput, keys[0], first)
	}
	// A range of one key from that key itself has one proof, for both edges.
	last := keys[len(keys)-1]
	if len(first) != len(last) {
		return false, fmt.Errorf("%w: edges %#x and %#x of different lengths", ErrRangeInput, first, last)
	}
	v.last = appendNibbles(v.last[:0], last)
	if _, err := v.walk(root, v.first, false, &v.left, &v.leftReach); err != nil {
		return false, err
	}
	if _, err := v.walk(root, v.last, true, &v.right, &v.rightReach); err != nil {
		return false, err
	}
	// The right items were found top down: the stream takes them in key
	// order, deepest first.
	slices.SortFunc(v.right, func(a, b rangeItem) int { return bytes.Compare(a.path, b.path) })
	return len(v.right) > 0, v.rebuild(root, keys, values)
}

// checkRange refuses what go-ethereum refuses before looking at a proof.
func checkRange(keys, values [][]byte) error {
	if len(keys) != len(values) {
		return fmt.Errorf("%w: %d keys and %d values", ErrRangeInput, len(keys), len(values))
	}
	for i, key := range keys {
		if len(values[i]) == 0 {
			return fmt.Errorf("%w: empty value for key %#x", ErrRangeInput, key)
		}
		if i == 0 {
			continue
		}
		if bytes.Compare(keys[i-1], key) >= 0 {
			return fmt.Errorf("%w: key %#x after %#x", ErrRangeInput, key, keys[i-1])
		}
		if bytes.HasPrefix(key, keys[i-1]) {
			return fmt.Errorf("%w: key %#x under key %#x", ErrRangeInput, key, keys[i-1])
		}
	}
	return nil
}

// rebuild streams the left items, the pairs and the right items through the
// trie and compares its root with root.
func (v *RangeVerifier) rebuild(root Hash, keys, values [][]byte) error {
	t := v.trie
	t.Reset()
	for i := range v.left {
		if err := v.add(&v.left[i]); err != nil {
			return err
		}
	}
	for i, key := range keys {
		if err := t.Update(key, values[i]); err != nil {
			return fmt.Errorf("%w: %w", ErrRangeMismatch, err)
		}
	}
	for i := range v.right {
		if err := v.add(&v.right[i]); err != nil {
			return err
		}
	}
	if got := t.Hash(); got != root {
		return fmt.Errorf("%w: root %x, want %x", ErrRangeMismatch, got, root)
	}
	return nil
}

// add gives an item off the edges to the trie.
func (v *RangeVerifier) add(it *rangeItem) error {
	var err error
	if it.ref != nil {
		err = v.trie.UpdateBranch(it.path, it.ref)
	} else {
		v.key = packNibbles(v.key[:0], it.path)
		err = v.trie.Update(v.key, it.value)
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrRangeMismatch, err)
	}
	return nil
}

// walk follows the edge path down the proof from root and appends to items
// what lies off the path on one side: left of the edge, or with right,
// right of it, raising reach to the depth along the edge of the deepest. It
// returns the edge key's value, or nil when the proof shows the key absent.
func (v *RangeVerifier) walk(root Hash, edge []byte, right bool, items *[]rangeItem, reach *int) ([]byte, error) {
	v.root = root
	ref := v.root[:]
	afterExtension := false
	depth := 0
	add := func(slot int, ref, value []byte) { addItem(items, reach, edge[:depth], slot, ref, value) }
	for {
		node, hashed := ref, len(ref) == len(Hash{})
		if hashed {
			if node = v.node(Hash(ref)); node == nil {
				return nil, fmt.Errorf("%w: hash %x, at nibble %d of %x", ErrProofMissingNode, ref, depth, edge)
			}
		}
		var n trieNode
		if err := decodeNode(node, afterExtension, &n); err != nil {
			return nil, fmt.Errorf("%w: at nibble %d of %x: %s", ErrProofMalformed, depth, edge, err)
		}
		// A hashed node's check takes in every node embedded in it, the
		// ones the walk goes on into too.
		if hashed {
			if err := n.checkEmbedded(-1); err != nil {
				return nil, fmt.Errorf("%w: at nibble %d of %x: %s", ErrProofMalformed, depth, edge, err)
			}
		}
		switch n.kind {
		case branchNode:
			if depth == len(edge) {
				// The edge ends here: every child lies after it.
				if right {
					for i, child := range n.refs {
						add(i, child, nil)
					}
				}
				return nonEmpty(n.value), nil
			}
			slot := int(edge[depth])
			if len(n.value) > 0 && depth%2 == 1 {
				// No key of whole bytes ends at an odd nibble.
				return nil, fmt.Errorf("%w: a value at nibble %d of %x", ErrProofMalformed, depth, edge)
			}
			if right {
				for i := slot + 1; i < 16; i++ {
					add(i, n.refs[i], nil)
				}
			} else {
				if len(n.value) > 0 {
					add(-1, nil, n.value)
				}
				for i := range slot {
					add(i, n.refs[i], nil)
				}
			}
			if len(n.refs[slot]) == 0 {
				return nil, nil
			}
			ref, afterExtension, depth = n.refs[slot], false, depth+1
		case extensionNode:
			order := comparePath(n.path, edge[depth:], false)
			if order == 0 {
				ref, afterExtension, depth = n.refs[0], true, depth+n.path.nibbles()
				continue
			}
			if (order > 0) == right {
				add(-1, ref, nil)
			}
			return nil, nil
		default: // a leaf
			order := comparePath(n.path, edge[depth:], true)
			if order == 0 {
				return n.value, nil
			}
			if (order > 0) == right {
				add(-1, ref, nil)
			}
			return nil, nil
		}
	}
}

// node returns the proof's node with the given hash, or nil. A node looked
// up through VerifyFunc is checked against its hash here, since nothing
// else hashed it.
func (v *RangeVerifier) node(hash Hash) []byte {
	if v.lookup == nil {
		return v.nodes[hash]
	}
	node := v.lookup(hash)
	if node == nil || *v.hasher.sum(node) != hash {
		return nil
	}
	return node
}

// addItem appends to items the child at slot of the branch at path, if
// there is one, or with slot -1 the node at path itself (ref) or the value
// that ends there, and raises reach to len(path): how deep along the edge
// the item hangs. Items keep their buffers across uses.
func addItem(items *[]rangeItem, reach *int, path []byte, slot int, ref, value []byte) {
	if ref == nil && value == nil || ref != nil && len(ref) == 0 {
		return
	}
	n := len(*items)
	if n < cap(*items) {
		*items = (*items)[:n+1]
	} else {
		*items = append(*items, rangeItem{})
	}
	it := &(*items)[n]
	it.path = append(it.path[:0], path...)
	if slot >= 0 {
		it.path = append(it.path, byte(slot))
	}
	it.ref, it.value = ref, value
	*reach = max(*reach, len(path))
}

// comparePath compares a node's path with the edge's nibbles from the
// node's depth: 0 when the edge goes through the node (for a leaf, ends
// exactly at it), below 0 when the node lies before the edge, above 0 after.
func comparePath(path compactPath, edge []byte, leaf bool) int {
	n := path.nibbles()
	for j := range min(n, len(edge)) {
		if a, b := path.nibble(j), edge[j]; a != b {
			if a < b {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(edge) < n:
		return 1 // the edge ends inside the path: the node's keys are longer
	case leaf && len(edge) > n:
		return -1 // the leaf's key is a prefix of the edge
	}
	return 0
}

// nonEmpty is b, or nil when b is empty.
func nonEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

// report passes on the trie's nodes that hold no item off the edges: a
// node holds one when its path leads along an edge no deeper than that
// edge's deepest item.
func (v *RangeVerifier) report(path []byte, hash Hash, blob []byte) {
	if len(path) <= v.leftReach && bytes.HasPrefix(v.first, path) ||
		len(path) <= v.rightReach && bytes.HasPrefix(v.last, path) {
		return
	}
	v.onNode(path, hash, blob)
}

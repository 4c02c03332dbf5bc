package stacktrie

import (
	"bytes"
	"slices"
)

// ProofSet keeps, while a Trie computes its root, the Merkle proofs of a
// chosen set of keys: for each key, the nodes go-ethereum's Trie.Prove would
// write for it, root first. A proof shows that the key is in the trie, and
// gives its value, or that it is not.
//
// Pass OnNode to New, or call it from a NodeFunc of your own, then insert the
// pairs and call Hash; after that, Proof gives each key's proof. A node is on
// a key's proof exactly when its nibble path is a prefix of the key's
// nibbles, so the ProofSet copies only such nodes and lets every other node
// pass without allocating. The nodes near the root are shared: the memory
// held is that of the distinct nodes on the keys' paths.
//
// A ProofSet belongs to one trie at a time: to use it for another trie with
// the same keys, call Reset first. Reset keeps the node buffers, so a
// ProofSet reused over tries of the same shape allocates nothing after the
// first. It is not safe for concurrent use.
type ProofSet struct {
	// targets are the keys' nibble paths (one nibble per byte), sorted and
	// without repeats, so that a node's path can be matched against them by
	// binary search.
	targets [][]byte
	// nodes holds the blobs of the reported nodes on some target's path,
	// keyed by their nibble path. An entry outlives Reset with its buffer,
	// and counts only while its generation is the set's: the paths are
	// bounded by the targets', so the map stops growing once warm.
	nodes      map[string]*proofNode
	generation uint64
	// path is AppendProof's buffer for a key's nibbles.
	path []byte
}

type proofNode struct {
	blob       []byte
	generation uint64
}

// NewProofSet returns a ProofSet for keys. The keys may be in any order and
// repeat, and need not be in the trie: a key that is not gets a proof of its
// absence. NewProofSet copies the keys.
func NewProofSet(keys ...[]byte) *ProofSet {
	targets := make([][]byte, 0, len(keys))
	for _, k := range keys {
		targets = append(targets, appendNibbles(make([]byte, 0, 2*len(k)), k))
	}
	slices.SortFunc(targets, bytes.Compare)
	targets = slices.CompactFunc(targets, bytes.Equal)
	return &ProofSet{targets: targets, nodes: make(map[string]*proofNode)}
}

// OnNode is a NodeFunc: it keeps a copy of the node if the node lies on the
// path of one of the keys, and ignores it, without allocating, otherwise.
// Nodes may come in any order; a node reported again at the same path
// replaces the one kept.
func (p *ProofSet) OnNode(path []byte, hash Hash, blob []byte) {
	if !p.onPath(path) {
		return
	}
	n, ok := p.nodes[string(path)]
	if !ok {
		n = new(proofNode)
		p.nodes[string(path)] = n
	}
	n.blob = append(n.blob[:0], blob...)
	n.generation = p.generation
}

// Proof returns the proof of key: the RLP encodings of the nodes on its path,
// root first, as go-ethereum's Trie.Prove writes them and as VerifyProof
// takes them. Call it after the trie's Hash; before, the proof lacks the
// nodes not yet final.
//
// Proof returns nil for a key that was not given to NewProofSet, and an
// empty, non-nil proof for a key of an empty trie, which has no nodes
// (VerifyProof takes it as a proof of absence under EmptyRoot). The nodes
// are shared between the proofs of the set and must not be modified; they
// stay valid until Reset.
func (p *ProofSet) Proof(key []byte) [][]byte {
	return p.AppendProof(nil, key)
}

// AppendProof is Proof appending to dst, so that a caller that keeps dst
// gets proofs without allocating. For a key that was not given to
// NewProofSet it returns nil; otherwise a non-nil slice.
func (p *ProofSet) AppendProof(dst [][]byte, key []byte) [][]byte {
	path := appendNibbles(p.path[:0], key)
	p.path = path
	if !p.isTarget(path) {
		return nil
	}
	if dst == nil {
		dst = [][]byte{}
	}
	for end := 0; end <= len(path); end++ {
		if n, ok := p.nodes[string(path[:end])]; ok && n.generation == p.generation {
			dst = append(dst, n.blob)
		}
	}
	return dst
}

// RangeProof returns the proof of a range of keys from first to last, as a
// snap-sync server sends it with the range and as go-ethereum's
// trie.VerifyRangeProof takes it: the nodes of the proofs of first and of
// last, each once, first's proof first, root first. The edges need not be in
// the trie: first is often the start of the requested range, and its proof
// one of absence. Call it after the trie's Hash.
//
// RangeProof returns nil unless both keys were given to NewProofSet. The
// nodes are shared as Proof's are, and stay valid until Reset.
func (p *ProofSet) RangeProof(first, last []byte) [][]byte {
	return p.AppendRangeProof(nil, first, last)
}

// AppendRangeProof is RangeProof appending to dst, so that a caller that
// keeps dst gets range proofs without allocating.
func (p *ProofSet) AppendRangeProof(dst [][]byte, first, last []byte) [][]byte {
	start := len(dst)
	dst = p.AppendProof(dst, first)
	if dst == nil {
		return nil
	}
	firstNodes := len(dst)
	path := appendNibbles(p.path, last) // p.path holds first's nibbles
	p.path = path
	firstPath, lastPath := path[:2*len(first)], path[2*len(first):]
	if !p.isTarget(lastPath) {
		return nil
	}
	// The nodes at the paths both keys share are on first's proof already.
	// Below, a node of last's proof may still equal one of first's at
	// another path (equal subtries, such as under runs of equal values);
	// go-ethereum keys proof nodes by hash and so writes it once.
	shared := 0
	for shared < min(len(firstPath), len(lastPath)) && firstPath[shared] == lastPath[shared] {
		shared++
	}
	for end := shared + 1; end <= len(lastPath); end++ {
		n, ok := p.nodes[string(lastPath[:end])]
		if !ok || n.generation != p.generation || slices.ContainsFunc(dst[start:firstNodes], n.equal) {
			continue
		}
		dst = append(dst, n.blob)
	}
	return dst
}

// equal reports whether blob is the node's.
func (n *proofNode) equal(blob []byte) bool { return bytes.Equal(n.blob, blob) }

// Reset drops the nodes kept so far, keeping their buffers, and keeps the
// keys, so that the ProofSet can serve another trie. Proofs returned before
// Reset share those buffers and are overwritten by the next trie's nodes.
func (p *ProofSet) Reset() {
	p.generation++
}

// onPath reports whether path is a prefix of some target. The targets it
// prefixes are those from the first target not below path onwards, and if
// there is any, that first one is among them.
func (p *ProofSet) onPath(path []byte) bool {
	i := p.search(path)
	return i < len(p.targets) && bytes.HasPrefix(p.targets[i], path)
}

// isTarget reports whether path is one of the targets.
func (p *ProofSet) isTarget(path []byte) bool {
	i := p.search(path)
	return i < len(p.targets) && bytes.Equal(p.targets[i], path)
}

// search returns the index of the first target not below path.
func (p *ProofSet) search(path []byte) int {
	lo, hi := 0, len(p.targets)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if bytes.Compare(p.targets[mid], path) < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

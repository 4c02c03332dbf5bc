package stacktrie

import (
	"errors"
	"fmt"
	"sync"
)

// Errors returned by VerifyProof, wrapped with the index of the proof node at
// fault and what was wrong with it; test with errors.Is.
var (
	// ErrProofHash is a proof node whose Keccak-256 hash is not the
	// reference its parent (or, for the first node, the root) holds.
	ErrProofHash = errors.New("stacktrie: proof node does not match its hash")
	// ErrProofMissingNode is a proof that ends before the key's path does.
	ErrProofMissingNode = errors.New("stacktrie: proof node missing")
	// ErrProofMalformed is a proof node that is not a canonical trie node:
	// bad RLP, a list that is neither a leaf, an extension nor a branch, a
	// reference that is neither a hash nor a node under 32 bytes; or a proof
	// with nodes past the end of the key's path.
	ErrProofMalformed = errors.New("stacktrie: malformed proof node")
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
// until the path ends (done) or leads to another hashed node (want). The
// node is checked whole first, so the walk can take its shape for granted.
func (w *proofWalk) step(node []byte) error {
	if err := checkNode(node, w.afterExtension); err != nil {
		return err
	}
	for {
		var items [17]rlpItem
		n, err := splitNode(node, &items)
		if err != nil {
			return err // checked already; kept so that no slip can panic
		}
		var ref rlpItem
		if n == 17 {
			w.afterExtension = false
			if w.pos == w.nibbles {
				w.done = true
				if len(items[16].content) > 0 {
					w.value = items[16].content
				}
				return nil
			}
			ref = items[w.keyNibble(w.pos)]
			w.pos++
			if ref.isEmpty() {
				w.done = true // no child where the key goes
				return nil
			}
		} else {
			path, leaf, err := decodeCompact(items[0])
			if err != nil {
				return err // checked already
			}
			matched := w.matchPath(path)
			if leaf {
				w.done = true
				if matched && w.pos+path.nibbles() == w.nibbles {
					w.value = items[1].content
				}
				return nil
			}
			if !matched {
				w.done = true // the key leaves the extension's path
				return nil
			}
			w.pos += path.nibbles()
			w.afterExtension = true
			ref = items[1]
		}
		// ref is a checked, non-empty reference to the next node on the path.
		if !ref.list {
			if len(ref.content) != len(w.want) {
				return errors.New("bad reference") // checked already
			}
			w.want = Hash(ref.content)
			return nil
		}
		node = ref.raw
	}
}

// checkNode checks that node, and every node embedded in it, is a canonical
// leaf, extension or branch, and with isChild that it is a branch, as an
// extension's child must be. The walk reads only the slots on the key's
// path; checkNode makes sure that a node is refused for a bad slot off the
// path too, as go-ethereum refuses it.
func checkNode(node []byte, isChild bool) error {
	var items [17]rlpItem
	n, err := splitNode(node, &items)
	if err != nil {
		return err
	}
	switch n {
	case 17:
		for _, ref := range items[:16] {
			if err := checkRef(ref, false); err != nil {
				return err
			}
		}
		if items[16].list {
			return errors.New("branch value is a list")
		}
		return nil
	case 2:
		if isChild {
			return errors.New("extension's child is not a branch")
		}
		path, leaf, err := decodeCompact(items[0])
		if err != nil {
			return err
		}
		if leaf {
			if items[1].list || len(items[1].content) == 0 {
				return errors.New("leaf value is not a non-empty string")
			}
			return nil
		}
		if path.nibbles() == 0 {
			return errors.New("extension without nibbles")
		}
		if items[1].isEmpty() {
			return errors.New("extension without child")
		}
		return checkRef(items[1], true)
	}
	return fmt.Errorf("list of %d items is not a trie node", n)
}

// checkRef checks a child reference: empty, a 32-byte hash, or a node under
// 32 bytes, which checkNode checks in turn.
func checkRef(ref rlpItem, isChild bool) error {
	if !ref.list {
		if n := len(ref.content); n != 0 && n != 32 {
			return fmt.Errorf("reference of %d bytes, neither a hash nor a node", n)
		}
		return nil
	}
	if len(ref.raw) >= 32 {
		return fmt.Errorf("embedded node of %d bytes, which should be hashed", len(ref.raw))
	}
	return checkNode(ref.raw, isChild)
}

// keyNibble returns the i-th nibble of the key, high nibble first.
func (w *proofWalk) keyNibble(i int) byte {
	b := w.key[i>>1]
	if i&1 == 0 {
		return b >> 4
	}
	return b & 0x0f
}

// matchPath reports whether the key continues, from the nibbles consumed,
// with path.
func (w *proofWalk) matchPath(path compactPath) bool {
	n := path.nibbles()
	if w.pos+n > w.nibbles {
		return false
	}
	for j := range n {
		if path.nibble(j) != w.keyNibble(w.pos+j) {
			return false
		}
	}
	return true
}

// compactPath is the hex-prefix encoding of a nibble path, flag nibble
// first (Yellow Paper, appendix C).
type compactPath []byte

func (c compactPath) odd() bool { return c[0]&0x10 != 0 }

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
	b := c[j>>1]
	if j&1 == 0 {
		return b >> 4
	}
	return b & 0x0f
}

// decodeCompact checks the first item of a two-item node: a hex-prefix
// path with flag 0 or 1 (extension) or 2 or 3 (leaf), and a zero padding
// nibble when the path is even.
func decodeCompact(it rlpItem) (path compactPath, leaf bool, err error) {
	if it.list || len(it.content) == 0 {
		return nil, false, errors.New("node path is not a hex-prefix string")
	}
	flag := it.content[0] >> 4
	if flag > 3 {
		return nil, false, fmt.Errorf("hex-prefix flag %d", flag)
	}
	if flag&1 == 0 && it.content[0]&0x0f != 0 {
		return nil, false, errors.New("hex-prefix padding nibble is not zero")
	}
	return compactPath(it.content), flag >= 2, nil
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

// splitRLP decodes the RLP item at the start of b. It accepts only the
// canonical encoding: a single byte below 0x80 as itself, the shortest
// length header, lengths without leading zeros.
func splitRLP(b []byte) (rlpItem, error) {
	if len(b) == 0 {
		return rlpItem{}, errors.New("RLP: empty input")
	}
	h := b[0]
	var it rlpItem
	var header, size int
	switch {
	case h < 0x80:
		return rlpItem{raw: b[:1], content: b[:1]}, nil
	case h <= 0xb7:
		header, size = 1, int(h-0x80)
	case h < 0xc0:
		n, err := rlpLength(b, int(h-0xb7))
		if err != nil {
			return rlpItem{}, err
		}
		header, size = 1+int(h-0xb7), n
	case h <= 0xf7:
		it.list = true
		header, size = 1, int(h-0xc0)
	default:
		it.list = true
		n, err := rlpLength(b, int(h-0xf7))
		if err != nil {
			return rlpItem{}, err
		}
		header, size = 1+int(h-0xf7), n
	}
	if size > len(b)-header {
		return rlpItem{}, fmt.Errorf("RLP: item of %d bytes in %d", size, len(b)-header)
	}
	it.raw, it.content = b[:header+size], b[header:header+size]
	if !it.list && size == 1 && it.content[0] < 0x80 {
		return rlpItem{}, errors.New("RLP: single byte below 0x80 with a string header")
	}
	return it, nil
}

// rlpLength reads the length of a long item: the n bytes after b's first
// byte, big-endian, without leading zeros, over 55.
func rlpLength(b []byte, n int) (int, error) {
	if n > len(b)-1 {
		return 0, errors.New("RLP: length cut short")
	}
	if b[1] == 0 {
		return 0, errors.New("RLP: length with leading zero")
	}
	size := 0
	for _, c := range b[1 : 1+n] {
		if size > (len(b) >> 8) {
			// Already past any size that fits in b; stop before overflow.
			return 0, fmt.Errorf("RLP: item longer than the %d bytes left", len(b))
		}
		size = size<<8 | int(c)
	}
	if size <= 55 {
		return 0, errors.New("RLP: long header for a short item")
	}
	return size, nil
}

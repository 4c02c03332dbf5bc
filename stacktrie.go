// Package stacktrie computes Ethereum Merkle-Patricia trie roots over key/value
// pairs given in ascending key order, without building the trie in memory.
//
// A Trie keeps only the spine: the branch nodes on the path from the root to
// the most recent key. When a key arrives, every node to the left of its path
// is final, so it is encoded at once and hashed with other such nodes side by
// side in SIMD lanes where the machine has them (AVX-512, AVX2, NEON), then
// forgotten. Memory is bounded by the key length, and after the first use a
// Trie makes no heap allocations.
//
// The roots, and the nodes reported to a NodeFunc, are those of go-ethereum's
// trie for the same pairs, including keys that are prefixes of other keys.
// Parallel spreads one stream over several cores; HashLater hashes many
// small tries side by side; Subtrie and UpdateBranch combine tries built
// apart; ProofSet keeps proofs of chosen keys while the root is computed,
// and VerifyProof checks them.
package stacktrie

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/stacktrie/stacktrie/internal/rlp"
)

// NodeFunc receives a node when it is final: its nibble path from the root (one
// nibble, 0 to 15, per byte), its Keccak-256 hash and its RLP encoding. It is
// called for every node whose encoding is 32 bytes or longer and for the root,
// each node after all its hashed descendants. The slices are only valid during
// the call, and the function must not call back into the Trie.
type NodeFunc func(path []byte, hash Hash, blob []byte)

// Trie computes the root of a Merkle-Patricia trie from pairs given in
// strictly ascending key order. The zero value is not usable; call New.
// A Trie is not safe for concurrent use.
type Trie struct {
	// frames is the spine: branches at increasing depths, all on the path of
	// the last item.
	frames []frame
	// last is the last item inserted, whose place the next one decides.
	last    lastItem
	hasLast bool
	hashed  bool
	root    Hash
	// packed holds a path to mount, packed, before it is accepted.
	packed []byte
	// later holds where the roots of tries ended with HashLater go, by
	// the index their root jobs carry; laterFree the indexes delivered.
	later     []*Hash
	laterFree []int32
	dropped   Hash // where HashLater(nil) puts the root

	batch batcher // encodes nothing, hashes everything
}

// A lastItem is a pair, or a branch mounted by its reference (UpdateBranch).
type lastItem struct {
	key     []byte // the pair's key, or the branch's nibble path packed
	nibbles int    // how many nibbles of key count: 2*len(key) for a pair
	value   []byte // the pair's value
	mounted bool   // a branch, whose reference is mount
	mount   childRef
}

// New returns an empty Trie. onNode, which may be nil, receives every node
// that a database would store, as it is finalized.
func New(onNode NodeFunc) *Trie {
	t := &Trie{}
	t.batch = newBatcher(t, onNode, newLanes())
	return t
}

// Update inserts a pair. Keys must be strictly ascending in byte order; keys
// of any length are accepted, including the empty key and keys that are
// prefixes of later keys. Values must not be empty. Update copies what it
// keeps, so the caller may reuse key and value at once.
//
// A refused pair leaves the Trie as it was: the caller may go on, and the root
// is that of the accepted pairs.
func (t *Trie) Update(key, value []byte) error {
	if t.hashed {
		return ErrFinalized
	}
	if len(value) == 0 {
		return errorWithKeys(ErrEmptyValue, key, nil)
	}
	if !t.advance(key, 2*len(key)) {
		return errorWithKeys(ErrKeyOrder, key, t.last.key)
	}
	setOwnLines(&t.last.key, key)
	t.last.nibbles = 2 * len(key)
	setOwnLines(&t.last.value, value)
	t.last.mounted = false
	return nil
}

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
	if !t.hangSibling(path) {
		t.packed = packNibbles(t.packed[:0], path)
		if !t.advance(t.packed, len(path)) {
			return fmt.Errorf("%w: branch at nibbles %x after %#x", ErrKeyOrder, path, t.last.key[:(t.last.nibbles+1)/2])
		}
		setOwnLines(&t.last.key, t.packed)
		t.last.nibbles = len(path)
		t.last.mounted = true
	}
	t.last.mount.n = uint8(copy(t.last.mount.buf[:], ref))
	t.last.mount.job = noJob
	return nil
}

// hangSibling is UpdateBranch's most common case, in short, as an
// incremental walk mounts the unchanged children of a stored branch one
// after another: the last item is a mounted branch, the deepest frame is
// its parent, and path is a later child of that parent. The last branch
// is hung in its slot, as fold would hang it, and the last key becomes
// path, whose reference the caller sets. It reports whether the case
// applied; if not, it changes nothing.
func (t *Trie) hangSibling(path []byte) bool {
	n, top := len(path), len(t.frames)-1
	if !t.last.mounted || n != t.last.nibbles || top < 0 || t.frames[top].depth != n-1 {
		return false
	}
	key := t.last.key
	for i, p := range path[:n-1] {
		if nibble(key, i) != p {
			return false
		}
	}
	last := nibble(key, n-1)
	if path[n-1] <= last {
		return false // not after the last: advance says so
	}
	t.hang(top, last, &t.last.mount)
	if b := &key[(n-1)>>1]; (n-1)&1 == 0 {
		*b = *b&0x0f | path[n-1]<<4
	} else {
		*b = *b&0xf0 | path[n-1]
	}
	return true
}

// advance makes room for the next item, whose packed key holds nibbles
// nibbles: it finalizes the spine where the next item leaves the last one.
// It returns false, and changes nothing, if the next item does not come
// after the last.
func (t *Trie) advance(next []byte, nibbles int) bool {
	if t.hasLast {
		var split int
		var ok bool
		switch last := t.last.key; {
		case t.last.mounted || nibbles&1 == 1:
			split, ok = t.divergenceNibbles(next, nibbles)
		case len(last) >= 8 && len(next) >= 8 && binary.BigEndian.Uint64(last) != binary.BigEndian.Uint64(next):
			// Keys that leave each other in their first eight bytes, as
			// most do, without a call: 2% of Insert100K on AVX2.
			a, b := binary.BigEndian.Uint64(last), binary.BigEndian.Uint64(next)
			split, ok = bits.LeadingZeros64(a^b)/4, b > a
		default:
			split, ok = t.divergence(next)
		}
		if !ok {
			return false
		}
		t.fold(split)
		if t.batch.mustHash() {
			t.batch.hash(false)
		}
	}
	t.hasLast = true
	return true
}

// Hash finalizes the trie and returns its root; EmptyRoot if no pair was
// inserted. It may be called again and returns the same root. After Hash,
// Update fails with ErrFinalized until Reset or HashLater.
func (t *Trie) Hash() Hash {
	if !t.hashed {
		t.root = EmptyRoot
		if t.hasLast {
			root := t.foldAll()
			if root.job == noJob {
				t.root = root.buf
			} else {
				t.batch.sendTo(root.job, destination{kind: toRoot})
				t.batch.drain()
			}
		}
		t.hashed = true
	}
	return t.root
}

// Reset empties the trie for a new set of pairs, keeping its node callback
// and its buffers. Roots still due to HashLater are written first.
func (t *Trie) Reset() {
	t.Flush()
	t.restart()
	t.batch.reset()
}

// divergence returns the nibble depth at which key leaves the last key, and
// false if key is not greater than the last key. The last item must be a
// pair: this is the fast path, on bytes.
func (t *Trie) divergence(key []byte) (int, bool) {
	last := t.last.key
	n := min(len(last), len(key))
	i := 0
	// Eight bytes at a time first: keys that share a long prefix, as
	// sequential keys do, leave each other in one compare.
	for ; i+8 <= n; i += 8 {
		a, b := binary.BigEndian.Uint64(last[i:]), binary.BigEndian.Uint64(key[i:])
		if a != b {
			return 2*i + bits.LeadingZeros64(a^b)/4, b > a
		}
	}
	for i < n && last[i] == key[i] {
		i++
	}
	if i == n {
		// One key is a prefix of the other; only the longer may come later.
		return 2 * i, len(key) > len(last)
	}
	if key[i] < last[i] {
		return 0, false
	}
	if key[i]>>4 == last[i]>>4 {
		return 2*i + 1, true
	}
	return 2 * i, true
}

// divergenceNibbles is divergence for nibble paths, where the last item or the
// next may be a mounted branch: next holds n nibbles, packed. Nothing may
// follow under a mounted branch.
func (t *Trie) divergenceNibbles(next []byte, n int) (int, bool) {
	last := t.last.key
	common := min(t.last.nibbles, n)
	i := 0
	for i+1 < common && last[i>>1] == next[i>>1] {
		i += 2 // a whole byte at a time while both nibbles count
	}
	for i < common && nibble(last, i) == nibble(next, i) {
		i++
	}
	if i == common {
		return i, n > t.last.nibbles && !t.last.mounted
	}
	return i, nibble(next, i) > nibble(last, i)
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
	case ref[0] < rlp.List || int(ref[0]-rlp.List)+1 != len(ref):
		return fmt.Errorf("%w: %#x is not the RLP list of a node", ErrInvalidBranch, ref)
	}
	return nil
}

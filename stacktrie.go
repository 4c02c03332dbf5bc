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
// Parallel spreads one stream over several cores; Subtrie and UpdateBranch
// combine tries built apart; ProofSet keeps proofs of chosen keys while the
// root is computed, and VerifyProof checks them.
package stacktrie

import (
	"bytes"
	"errors"
	"fmt"
	"math/bits"
)

// Errors returned by Update (and UpdateBranch, Parallel.Update). They may be
// wrapped with context; test with errors.Is.
var (
	// ErrEmptyValue refuses an empty value: the trie has no way to store one.
	ErrEmptyValue = errors.New("stacktrie: empty value")
	// ErrKeyOrder refuses a key that is not greater than the previous key.
	ErrKeyOrder = errors.New("stacktrie: key not in ascending order")
	// ErrFinalized refuses an Update after Hash, until Reset.
	ErrFinalized = errors.New("stacktrie: update after hash")
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
	onNode NodeFunc

	// frames is the spine: branches at increasing depths, all on the path of key.
	frames []frame

	// key and value are the last pair inserted: a leaf whose place is decided
	// by the next key. Or, when mounted, the last item is a branch given by
	// its reference (UpdateBranch): key then holds its nibble path, packed.
	// keyNibbles is the length of key in nibbles; path holds key as
	// nibbles, kept only for onNode.
	key        []byte
	keyNibbles int
	value      []byte
	mounted    bool
	mount      childRef
	packed     []byte // a path to mount, packed, before it is accepted
	path       []byte
	hasKey     bool
	hashed     bool
	root       Hash
	ref        childRef // the reference of the node finalized last

	// Hashing: one node at a time through hasher, or, where the machine
	// has SIMD Keccak, deferred into jobs hashed side by side in lanes.
	hasher      hasher
	lanes       *lanes
	jobs        []job
	slab        []byte  // the blobs of the first jobs
	free        []int32 // jobs not in use
	ready       []int32 // jobs whose blob is complete, waiting for a lane
	outstanding int     // jobs in use
	done        [maxLanes]laneDone
}

// New returns an empty Trie. onNode, which may be nil, receives every node
// that a database would store, as it is finalized.
func New(onNode NodeFunc) *Trie {
	return &Trie{onNode: onNode, hasher: newHasher(), lanes: newLanes()}
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
	if t.hasKey {
		var split int
		var ok bool
		if t.mounted {
			split, ok = t.divergenceNibbles(key, 2*len(key))
		} else {
			split, ok = t.divergence(key)
		}
		if !ok {
			return errorWithKeys(ErrKeyOrder, key, t.key)
		}
		t.fold(split)
		if t.lanes != nil {
			t.hashReady(false)
		}
	}
	t.key = append(t.key[:0], key...)
	t.keyNibbles = 2 * len(key)
	t.value = append(t.value[:0], value...)
	t.mounted = false
	if t.onNode != nil {
		t.path = appendNibbles(t.path[:0], key)
	}
	t.hasKey = true
	return nil
}

// Hash finalizes the trie and returns its root; EmptyRoot if no pair was
// inserted. It may be called again and returns the same root. After Hash,
// Update fails with ErrFinalized until Reset.
func (t *Trie) Hash() Hash {
	if !t.hashed {
		t.root = EmptyRoot
		if t.hasKey {
			t.fold(-1)
			if t.ref.job == noJob {
				t.root = t.ref.buf
			} else {
				t.jobs[t.ref.job].to = toRoot
				t.hashReady(true)
			}
		}
		t.hashed = true
	}
	return t.root
}

// Reset empties the trie for a new set of pairs, keeping its node callback
// and its buffers.
func (t *Trie) Reset() {
	t.frames = t.frames[:0]
	t.key = t.key[:0]
	t.hasKey = false
	t.hashed = false
	t.resetJobs()
}

// errorWithKeys wraps err with the keys involved. It copies them, so that
// the caller's key does not escape and Update allocates only when it fails.
func errorWithKeys(err error, key, last []byte) error {
	if last == nil {
		return fmt.Errorf("%w: key %#x", err, bytes.Clone(key))
	}
	return fmt.Errorf("%w: key %#x after %#x", err, bytes.Clone(key), bytes.Clone(last))
}

// divergence returns the nibble depth at which key leaves the last key, and
// false if key is not greater than the last key. The last item must be a
// pair: this is the fast path, on bytes.
func (t *Trie) divergence(key []byte) (int, bool) {
	last := t.key
	n := min(len(last), len(key))
	i := 0
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

// fold finalizes the spine below nibble depth split, where the next key leaves
// the last one, and hangs the result in the branch at depth split, which it
// creates if needed. fold(-1) finalizes the whole spine and leaves the root's
// reference in t.ref.
func (t *Trie) fold(split int) {
	if split == t.keyNibbles {
		// The last key is a prefix of the next: its value moves to slot 16
		// of a new branch where it ends. No frame is that deep, and a
		// mounted branch is never a prefix of what follows.
		t.push(split).setValue(t.value)
		return
	}
	top := len(t.frames) - 1
	t.finalizeLeaf(t.parentDepth(top, split)+1, split < 0 && top < 0)
	for ; top >= 0 && t.frames[top].depth > split; top-- {
		depth := t.frames[top].depth
		t.hang(top, nibble(t.key, depth))
		parent := t.parentDepth(top-1, split)
		isRoot := split < 0 && top == 0
		t.finalizeBranch(top, isRoot && depth == 0)
		if depth > parent+1 {
			t.finalizeExtension(parent+1, depth, isRoot)
		}
	}
	t.frames = t.frames[:top+1]
	if split < 0 {
		return
	}
	if top < 0 || t.frames[top].depth != split {
		t.push(split)
		top++
	}
	t.hang(top, nibble(t.key, split))
}

// parentDepth is the depth of the branch that a node below frame top+1 hangs
// in: frame top if it is deeper than split, or else the branch at split.
func (t *Trie) parentDepth(top, split int) int {
	if top >= 0 && t.frames[top].depth > split {
		return t.frames[top].depth
	}
	return split
}

// push adds a branch at depth to the spine, reusing a frame left from earlier
// use where one is left.
func (t *Trie) push(depth int) *frame {
	n := len(t.frames)
	if n == cap(t.frames) {
		grown := make([]frame, n, 2*n+8)
		copy(grown, t.frames)
		t.frames = grown
	}
	t.frames = t.frames[:n+1]
	f := &t.frames[n]
	f.reset(depth)
	return f
}

// hang puts t.ref in slot of frame fi; a hash still in the making will be
// delivered there.
func (t *Trie) hang(fi int, slot byte) {
	f := &t.frames[fi]
	f.refLen[slot] = t.ref.n
	f.ref[slot] = t.ref.buf
	f.payload += refSize(int(t.ref.n)) - 1
	if j := t.ref.job; j != noJob {
		f.pending |= 1 << slot
		f.job[slot] = j
		jb := &t.jobs[j]
		jb.to, jb.index, jb.at = toFrame, int32(fi), int32(slot)
	}
}

// place returns where to encode a node of size bytes at depth and points
// t.ref at it: the reference itself if the node is embedded in its parent,
// or else the blob of a new job that will hash it. The root is always hashed.
func (t *Trie) place(size, depth int, isRoot bool) []byte {
	if size < 32 && !isRoot {
		t.ref.n, t.ref.job = uint8(size), noJob
		return t.ref.buf[:size]
	}
	t.ref.n, t.ref.job = 32, t.newJob(size, depth)
	return t.jobs[t.ref.job].blob
}

func (t *Trie) finalizeLeaf(start int, isRoot bool) {
	if t.mounted {
		t.finalizeMount(start, isRoot)
		return
	}
	payload := leafPayload(t.key, start, t.value)
	writeLeaf(t.place(listSize(payload), start, isRoot), payload, t.key, start, t.value)
	if j := t.ref.job; j != noJob {
		t.seal(j)
	}
}

func (t *Trie) finalizeBranch(fi int, isRoot bool) {
	f := &t.frames[fi]
	payload := f.payload
	var hashAt [16]int32
	writeBranch(t.place(listSize(payload), f.depth, isRoot), payload, f, &hashAt)
	j := t.ref.job
	if j == noJob {
		return
	}
	for p := f.pending; p != 0; p &= p - 1 {
		slot := bits.TrailingZeros16(p)
		t.waitFor(j, f.job[slot], hashAt[slot])
	}
	t.seal(j)
}

func (t *Trie) finalizeExtension(start, end int, isRoot bool) {
	child := t.ref
	payload := extensionPayload(end-start, int(child.n))
	at := writeExtension(t.place(listSize(payload), start, isRoot), payload, t.key, start, end, child.buf[:child.n])
	j := t.ref.job
	if j == noJob {
		return
	}
	if child.job != noJob {
		t.waitFor(j, child.job, int32(at))
	}
	t.seal(j)
}

// appendNibbles appends the nibbles of key, high nibble first.
func appendNibbles(dst, key []byte) []byte {
	for _, b := range key {
		dst = append(dst, b>>4, b&0x0f)
	}
	return dst
}

package stacktrie

import (
	"math/bits"

	"github.com/stacktrie/stacktrie/internal/rlp"
)

// The spine is folded as keys arrive: when the next item leaves the last one
// at some nibble depth, every node below that depth is final. fold encodes
// them bottom-up, the last item first, then each deeper frame with the
// reference of what was finalized below it hung in its slot, with an
// extension above a frame where the frame's parent is more than one nibble
// up. Each finalize step writes the reference of the node it finalized
// into the one reference the fold passes down, which the next step hangs or
// wraps. The reference is updated in place rather than returned, field by
// field: a 40-byte value returned through memory and read back in 16-byte
// loads stalls on store forwarding, which cost Insert100K 17% (p=0.001).

// fold finalizes the spine below nibble depth split, where the next item
// leaves the last one, and hangs the result in the branch at depth split,
// which it creates if needed.
func (t *Trie) fold(split int) {
	if split == t.last.nibbles {
		// The last key is a prefix of the next: its value moves to slot 16
		// of a new branch where it ends. No frame is that deep, and a
		// mounted branch is never a prefix of what follows.
		t.push(split).setValue(t.last.value)
		return
	}
	top := len(t.frames) - 1
	if t.last.mounted {
		var ref childRef
		if top < 0 || t.frames[top].depth <= split {
			t.finalizeMount(split+1, false, &ref)
		} else {
			depth := t.frames[top].depth
			t.finalizeMount(depth+1, false, &ref)
			t.hang(top, nibble(t.last.key, depth), &ref)
			top = t.finalizeFrames(top, split, &ref)
		}
		t.hangAt(top, split, &ref)
		return
	}
	// The last item is a pair, whose leaf hangs in the deepest frame: the
	// branch at split, made now, if no frame is that deep. It is written
	// here rather than in a function of its own, since most pairs do
	// nothing else: an embedded leaf straight into its slot, a larger one
	// into a job of its own, which goes to the lanes and whose hash the
	// slot waits for (what seal and hang do for other nodes).
	if top < 0 || t.frames[top].depth < split {
		t.push(split)
		top++
	}
	f := &t.frames[top]
	key, start, value := t.last.key, f.depth+1, t.last.value
	slot := nibble(key, f.depth)
	// The payload, as compactStringSize and rlp.StringSize give it for
	// strings of at most 55 bytes, which any leaf small enough to embed has.
	whole := len(key) - (start+1)>>1 // the key's last whole bytes
	compact := 1
	if whole > 0 {
		compact = whole + 2
	}
	payload := compact + len(value) + 1
	if len(value) == 1 && value[0] < rlp.String {
		payload = compact + 1
	}
	if payload <= maxEmbedded {
		// Written into the slot's window, which runs into the next slot,
		// still empty, or the frame's spare bytes after the last. The mask
		// changes nothing (slot < 16); it saves bounds checks.
		at := 32 * (int(slot) & 15)
		f.refs[at] = rlp.List + byte(payload)
		putLeafItems((*[leafWindow]byte)(f.refs[at+1:]), key, start, value)
		f.fill(slot, payload+1)
	} else {
		if whole >= rlp.ShortMax || len(value) > rlp.ShortMax {
			payload = leafPayload(key, start, value)
		}
		b := &t.batch
		j, blob := b.newReady(listSize(payload), key, start)
		if whole <= 32 && len(value) <= 32 {
			// Most leaves too large to embed, those of hashed keys
			// among them, as putLeafItems writes them.
			i := putShortList(blob, payload)
			putLeafItems((*[leafWindow]byte)(blob[i:i+leafWindow]), key, start, value)
		} else {
			writeLeaf(blob, payload, key, start, value)
		}
		f.fill(slot, 32)
		if b.lanes == nil {
			copy32(f.slot(int(slot)), b.hashNow(j)[:])
		} else {
			f.pending |= 1 << slot
			f.job[slot] = j
			b.sendTo(j, destination{kind: toFrame, index: int32(top), at: int32(slot)})
			switch {
			case j >= b.laneJobs:
				b.enqueue(j)
			case len(blob) <= keccakRate-2:
				b.lanes.startOwn(j, blob)
			default:
				b.lanes.startIn(j, j, blob)
			}
		}
	}
	if f.depth == split {
		return // nothing but the leaf is final
	}
	var ref childRef
	top = t.finalizeFrames(top, split, &ref)
	t.hangAt(top, split, &ref)
}

// hangAt hangs ref in the branch at depth split, which is frame top or,
// if that is shallower, a new frame.
func (t *Trie) hangAt(top, split int, ref *childRef) {
	if top < 0 || t.frames[top].depth != split {
		t.push(split)
		top++
	}
	t.hang(top, nibble(t.last.key, split), ref)
}

// foldAll finalizes the whole spine and returns the root's reference, which
// is always hashed.
func (t *Trie) foldAll() childRef {
	var ref childRef
	if len(t.frames) == 0 {
		// The last item is the whole trie.
		if t.last.mounted {
			t.finalizeMount(0, true, &ref)
		} else {
			payload := leafPayload(t.last.key, 0, t.last.value)
			writeLeaf(t.place(&ref, listSize(payload), 0, true), payload, t.last.key, 0, t.last.value)
			t.batch.seal(&ref)
		}
		return ref
	}
	// Everything folds into the top branch, which is the root, or under
	// an extension from the root.
	depth := t.frames[0].depth
	t.fold(depth)
	t.finalizeBranch(0, depth == 0, &ref)
	if depth > 0 {
		t.finalizeExtension(0, depth, true, &ref)
	}
	t.frames = t.frames[:0]
	return ref
}

// finalizeFrames finalizes frame top, whose last child is hung, and every
// frame above it deeper than split, each hung in the next: the reference
// of each node finalized goes in ref, which the next step hangs or wraps
// in an extension where its parent is more than one nibble up. It drops
// those frames and returns the index of the deepest frame left (-1 for
// none); ref is then the topmost node's reference.
func (t *Trie) finalizeFrames(top, split int, ref *childRef) int {
	for {
		depth := t.frames[top].depth
		parent := t.parentDepth(top-1, split)
		t.finalizeBranch(top, false, ref)
		if depth > parent+1 {
			t.finalizeExtension(parent+1, depth, false, ref)
		}
		top--
		if top < 0 || t.frames[top].depth <= split {
			break
		}
		t.hang(top, nibble(t.last.key, t.frames[top].depth), ref)
	}
	t.frames = t.frames[:top+1]
	return top
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

// hang puts ref in slot of frame fi; a hash still in the making will be
// delivered there.
func (t *Trie) hang(fi int, slot byte, ref *childRef) {
	f := &t.frames[fi]
	f.fill(slot, int(ref.n))
	if ref.job == noJob {
		copy32(f.slot(int(slot)), ref.buf[:])
		return
	}
	f.pending |= 1 << slot
	f.job[slot] = ref.job
	t.batch.sendTo(ref.job, destination{kind: toFrame, index: int32(fi), at: int32(slot)})
}

// fillSlot takes a hash the batcher computed for slot at of frame fi, where
// most hashes that leave the batcher go; deliver takes the others. It is
// apart from deliver so that batcher.deliver can inline it: with deliver's
// other cases it is too large.
func (t *Trie) fillSlot(fi, at int32, hash *[32]byte) {
	f := &t.frames[fi]
	copy32(f.slot(int(at)), hash[:])
	f.pending &^= 1 << at
}

// deliver takes a hash the batcher computed for the trie's own state
// elsewhere than in a frame: the root, the branch Subtrie collapses the
// spine into, or the root of a trie ended with HashLater.
func (t *Trie) deliver(to destination, hash *[32]byte) {
	switch to.kind {
	case toRoot:
		t.root = *hash
	case toMount:
		t.last.mount.buf = *hash
	case toLater:
		t.deliverLater(to.index, hash)
	}
}

// place sets ref for a node of size bytes at depth and returns where to
// encode the node: in ref itself if it is embedded in its parent, or in the
// blob of a new job that will hash it. The root is always hashed.
func (t *Trie) place(ref *childRef, size, depth int, isRoot bool) []byte {
	if size < 32 && !isRoot {
		ref.n, ref.job = uint8(size), noJob
		return ref.buf[:size]
	}
	j, blob := t.batch.newJob(size, t.last.key, depth)
	ref.n, ref.job = 32, j
	return blob
}

// finalizeBranch encodes frame fi. The hashes still in the making for its
// slots will be written into its blob, which waits for them; a branch
// with none to wait for goes into a lane at once, as fold's leaves do.
func (t *Trie) finalizeBranch(fi int, isRoot bool, ref *childRef) {
	f := &t.frames[fi]
	var hashAt [16]int32
	size := listSize(f.payload)
	if f.pending == 0 && (size >= 32 || isRoot) {
		// No child's hash is still to come, as when every child is an
		// embedded leaf (Insert100K's lowest branches): the branch
		// skips the free list, the ready queue and retire. It is
		// started as fold starts a leaf; a helper shared by the two
		// would not inline (startOwn alone costs 66 of the 80), and
		// would put a call on every leaf's path.
		b := &t.batch
		j, blob := b.newReady(size, t.last.key, f.depth)
		writeBranch(blob, f.payload, f, &hashAt)
		ref.n, ref.job = 32, j
		if j >= b.laneJobs {
			b.seal(ref)
		} else if size <= keccakRate-2 {
			b.lanes.startOwn(j, blob)
		} else {
			b.lanes.startIn(j, j, blob)
		}
		return
	}
	writeBranch(t.place(ref, size, f.depth, isRoot), f.payload, f, &hashAt)
	if ref.job == noJob {
		return
	}
	for p := f.pending; p != 0; p &= p - 1 {
		slot := bits.TrailingZeros16(p)
		t.batch.waitFor(ref.job, f.job[slot], hashAt[slot])
	}
	t.batch.seal(ref)
}

// finalizeExtension encodes the extension over the last key's nibbles from
// start to end, above the child ref refers to, and sets ref to refer to the
// extension.
func (t *Trie) finalizeExtension(start, end int, isRoot bool, ref *childRef) {
	child := *ref // an embedded extension is written where the child's bytes are
	payload := extensionPayload(end-start, int(child.n))
	at := writeExtension(t.place(ref, listSize(payload), start, isRoot), payload, t.last.key, start, end, child.buf[:child.n])
	if ref.job == noJob {
		return
	}
	if child.job != noJob {
		t.batch.waitFor(ref.job, child.job, int32(at))
	}
	t.batch.seal(ref)
}

// finalizeMount gives a mounted branch to its parent, which hangs it at
// depth start-1: as it is, or under an extension over the nibbles between.
// As the root it is hashed, and reported if its hash is new.
func (t *Trie) finalizeMount(start int, isRoot bool, ref *childRef) {
	*ref = t.last.mount
	if start < t.last.nibbles {
		t.finalizeExtension(start, t.last.nibbles, isRoot, ref)
		return
	}
	if isRoot && ref.n < 32 {
		ref.buf = t.batch.hashRoot(t.last.mount.buf[:ref.n])
		ref.n = 32
	}
}

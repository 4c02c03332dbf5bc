package incremental

// This file takes what the trie reports to the assembler, which makes
// branch records of the nodes and keeps the walk's mount groups. On the
// caller's goroutine the trie reports straight to the assembler. On the
// engine's, the trie's side of a Root is often the longer one, and the
// assembler a fifth of it: there the reports are copied into batches
// (leaves, most nodes, left out) and assembled by whichever goroutine
// would otherwise wait, the walk's for a free item batch or the end, the
// engine's for work. A mutex keeps the assembler to one goroutine at a
// time and the batches in the order the trie reported them.

import (
	"encoding/binary"
	"sync"

	"github.com/stacktrie/stacktrie"
)

// reportBatch holds reports in the order the trie made them.
type reportBatch struct {
	data    []byte
	entries []reportEntry
}

// reportEntry locates a report in its batch's data: data[start:mid] is a
// path; data[mid:end] a node's hash and RLP, or a mount group's masks.
type reportEntry struct {
	group           bool
	start, mid, end int32
}

type reports struct {
	asm   assembler
	built records // the records the trie built, in the order it finished them
	// relay: the trie runs on the engine's goroutine, and its reports go
	// into filling, a batch only that goroutine touches.
	relay   bool
	filling *reportBatch
	mu      sync.Mutex     // guards asm, built, waiting and spare while the engine's goroutine feeds the trie
	waiting []*reportBatch // full batches, oldest first
	spare   []*reportBatch // assembled batches, to fill again
	ready   chan struct{}  // a batch joined waiting
}

// addSpares makes the report batches, all at once, before the engine's
// goroutine starts.
func (r *reports) addSpares() {
	for range batchesInFlight {
		r.spare = append(r.spare, &reportBatch{data: make([]byte, 0, batchBytes+batchSpare), entries: make([]reportEntry, 0, batchItems)})
	}
}

// onNode is the trie's NodeFunc.
func (r *reports) onNode(path []byte, hash stacktrie.Hash, blob []byte) {
	if !r.relay {
		r.asm.onNode(path, hash, blob)
		return
	}
	if assembles(path, blob) {
		r.add(false, path, hash[:], blob)
	}
}

// group records the children of the record at path that the walk mounted,
// and which of them have stored branches at or below them: masks is a
// groupItem's, the two masks big-endian.
func (r *reports) group(path, masks []byte) {
	if !r.relay {
		r.addGroup(path, masks)
		return
	}
	r.add(true, path, masks, nil)
}

func (r *reports) addGroup(path, masks []byte) {
	r.asm.mounts.add(path, binary.BigEndian.Uint16(masks), binary.BigEndian.Uint16(masks[2:]))
}

// add copies a report into the batch being filled; a full batch joins
// those waiting.
func (r *reports) add(group bool, path, first, second []byte) {
	if r.filling == nil {
		r.filling = r.takeSpare()
	}
	b := r.filling
	start := len(b.data)
	b.data = append(append(append(b.data, path...), first...), second...)
	b.entries = append(b.entries, reportEntry{group: group, start: int32(start), mid: int32(start + len(path)), end: int32(len(b.data))})
	if len(b.entries) == batchItems || len(b.data) >= batchBytes {
		r.hand(b)
	}
}

// hand puts the batch being filled among those waiting.
func (r *reports) hand(b *reportBatch) {
	r.filling = nil
	r.mu.Lock()
	r.waiting = append(r.waiting, b)
	r.mu.Unlock()
	select {
	case r.ready <- struct{}{}:
	default:
	}
}

// takeSpare returns an empty batch, assembling those waiting if none is
// spare: every batch not being filled is one or the other.
func (r *reports) takeSpare() *reportBatch {
	r.mu.Lock()
	if len(r.spare) == 0 {
		r.assembleLocked()
	}
	b := r.spare[len(r.spare)-1]
	r.spare = r.spare[:len(r.spare)-1]
	r.mu.Unlock()
	b.data, b.entries = b.data[:0], b.entries[:0]
	return b
}

// assembleWaiting assembles every batch waiting.
func (r *reports) assembleWaiting() {
	r.mu.Lock()
	r.assembleLocked()
	r.mu.Unlock()
}

// assembleAll assembles every report so far, those in the batch being
// filled too: on the engine's goroutine, between batches of items.
func (r *reports) assembleAll() {
	if r.filling != nil && len(r.filling.entries) > 0 {
		r.hand(r.filling)
	}
	r.assembleWaiting()
}

func (r *reports) assembleLocked() {
	for _, b := range r.waiting {
		for _, e := range b.entries {
			path, rest := b.data[e.start:e.mid], b.data[e.mid:e.end]
			if e.group {
				r.addGroup(path, rest)
				continue
			}
			r.asm.onNode(path, stacktrie.Hash(rest), rest[len(stacktrie.Hash{}):])
		}
		r.spare = append(r.spare, b)
	}
	clear(r.waiting)
	r.waiting = r.waiting[:0]
}

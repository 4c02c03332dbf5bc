package incremental

// This file splits Root over two goroutines: the walk, which reads the
// cursors and decides what to reuse, and the trie, which encodes and
// hashes what the walk decided, take about as long as each other. The walk
// copies each leaf, and the hashes of each run of siblings it mounts, into
// a batch; a goroutine of the Builder's own feeds full batches to the trie
// while the walk goes on. A few batches go round and round, so that
// nothing is allocated once their buffers have grown.

import (
	"math/bits"

	"github.com/stacktrie/stacktrie"
)

const (
	// batchItems and batchBytes bound a batch: a hand-over costs a few
	// microseconds, a thousand items some hundred.
	batchItems = 1024
	batchBytes = 64 << 10
	// batchSpare is room past batchBytes for the item that fills a batch:
	// a value longer than that makes its batch grow once.
	batchSpare = 4 << 10
	// batchesInFlight is how many batches go round: one filling, one being
	// fed, and two ready in between.
	batchesInFlight = 4
)

type itemKind uint8

const (
	leafItem  itemKind = iota // an Update: the key, then the value
	mountItem                 // UpdateBranch for children of one branch: its path, then their hashes
)

// item locates an update in its batch's data: data[start:mid] is the key
// or path, data[mid:end] the value or the hashes.
type item struct {
	kind itemKind
	// For a mountItem: the children of the branch at the path to mount,
	// in nibble order, and those of them with stored branches at or below
	// them.
	children, stored uint16
	start, mid, end  int32
}

type itemBatch struct {
	data  []byte
	items []item
}

// engine is the trie and all it reports to: the part of a Builder its
// goroutine uses, apart, so that a Builder dropped without a word becomes
// unreachable, and its cleanup ends the goroutine.
type engine struct {
	trie    *stacktrie.Trie
	asm     assembler
	built   records // the records the trie built, in the order it finished them
	path    []byte  // the path of the child being mounted
	running bool
	work    chan *itemBatch // batches to feed; nil ends a Root
	free    chan *itemBatch // batches fed, to fill again
	done    chan error      // the first error of a Root's feeding
}

func newEngine() *engine {
	e := &engine{
		work: make(chan *itemBatch, batchesInFlight+1),
		free: make(chan *itemBatch, batchesInFlight),
		done: make(chan error),
	}
	e.trie = stacktrie.New(e.asm.onNode)
	return e
}

// feedLoop feeds the trie batch after batch until work is closed.
func (e *engine) feedLoop() {
	var err error
	for batch := range e.work {
		if batch == nil {
			e.done <- err
			err = nil
			continue
		}
		if err == nil {
			err = e.feed(batch)
		}
		e.free <- batch
	}
}

func (e *engine) feed(batch *itemBatch) error {
	for _, it := range batch.items {
		first, second := batch.data[it.start:it.mid], batch.data[it.mid:it.end]
		if it.kind == leafItem {
			if err := e.trie.Update(first, second); err != nil {
				return err
			}
			continue
		}
		if err := e.mountChildren(first, it.children, it.stored, second); err != nil {
			return err
		}
	}
	return nil
}

// mountChildren mounts the children of the branch at parent that children
// has bits for, their hashes back to back in hashes, and tells the
// assembler which have stored branches at or below them.
func (e *engine) mountChildren(parent []byte, children, stored uint16, hashes []byte) error {
	path := append(append(e.path[:0], parent...), 0)
	e.path = path
	for c := children; c != 0; c &= c - 1 {
		i := bits.TrailingZeros16(c)
		path[len(parent)] = byte(i)
		hash := (*stacktrie.Hash)(hashes)
		hashes = hashes[len(stacktrie.Hash{}):]
		if err := e.trie.UpdateBranch(path, hash[:]); err != nil {
			return err
		}
		e.asm.mounted(hash, stored&(1<<i) != 0)
	}
	return nil
}

// feeder is the walk's side: it fills batches and hands them over.
type feeder struct {
	e       *engine
	current *itemBatch
	busy    bool // a Root started and not finished: one that panicked
}

// settle waits until the trie is idle: it drains what a Root that
// panicked (in a caller's cursor, say) left behind, whose error has no one
// to go to.
func (f *feeder) settle() {
	if f.busy {
		_ = f.finish()
	}
}

// start readies the engine's goroutine and batches for a Root, once the
// trie is idle. The batches are made whole at once, so that which of them
// a Root happens to use never decides what it allocates.
func (f *feeder) start() {
	f.settle()
	f.busy = true
	if f.e.running {
		return
	}
	for range batchesInFlight {
		f.e.free <- &itemBatch{data: make([]byte, 0, batchBytes+batchSpare), items: make([]item, 0, batchItems)}
	}
	go f.e.feedLoop()
	f.e.running = true
}

func (f *feeder) leaf(key, value []byte) {
	b := f.batch()
	start := len(b.data)
	b.data = append(append(b.data, key...), value...)
	f.add(item{kind: leafItem, start: int32(start), mid: int32(start + len(key)), end: int32(len(b.data))})
}

// mountRun mounts the children of the stored branch rec at path that
// children has bits for (all with hash bits), and tells the assembler
// which have stored branches at or below them: rec's tree bits, exact in a
// store that Build and Root wrote. A stale tree bit from elsewhere is
// carried over, as reth carries it, and costs nothing but a look for
// branches that are not there once a change falls under the child. A run
// of siblings goes over as one item, a few hundred bytes at most.
func (f *feeder) mountRun(path []byte, children uint16, rec *Branch) {
	b := f.batch()
	start := len(b.data)
	b.data = append(b.data, path...)
	for c := children; c != 0; c &= c - 1 {
		b.data = append(b.data, rec.Hashes[bits.TrailingZeros16(c)][:]...)
	}
	f.add(item{kind: mountItem, children: children, stored: rec.TreeMask & children,
		start: int32(start), mid: int32(start + len(path)), end: int32(len(b.data))})
}

// batch returns the batch being filled, taking a free one if needed.
func (f *feeder) batch() *itemBatch {
	if f.current == nil {
		f.current = <-f.e.free
		f.current.data = f.current.data[:0]
		f.current.items = f.current.items[:0]
	}
	return f.current
}

// add appends the item whose bytes were just written, and hands the batch
// over once it is full.
func (f *feeder) add(it item) {
	b := f.current
	b.items = append(b.items, it)
	if len(b.items) == batchItems || len(b.data) >= batchBytes {
		f.e.work <- b
		f.current = nil
	}
}

// finish hands over the last batch and waits until the trie has taken
// everything; it returns the first error the trie gave.
func (f *feeder) finish() error {
	if f.current != nil {
		f.e.work <- f.current
		f.current = nil
	}
	f.e.work <- nil
	f.busy = false
	return <-f.e.done
}

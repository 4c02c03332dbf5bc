package incremental

// This file splits Root over two goroutines: the walk, which reads the
// cursors and decides what to reuse, and the trie, which encodes and
// hashes what the walk decided. The walk copies each leaf and each mounted
// branch into a batch; a goroutine of the Builder's own feeds full batches
// to the trie while the walk goes on. A few batches go round and round, so
// that nothing is allocated once their buffers have grown. A Root that
// never fills a batch, such as one over a small storage trie, feeds it to
// the trie itself at the end: the hand-over and the wait would cost more
// than the feeding. What the trie reports goes to the assembler through
// reports.go.

import (
	"encoding/binary"

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
	// fed, and two ready in between. As many report batches go round.
	batchesInFlight = 4
)

type itemKind uint8

const (
	leafItem  itemKind = iota // an Update: the key, then the value
	mountItem                 // an UpdateBranch: the path, then the hash
	groupItem                 // a record's mounted children: its path, then their masks
)

// item locates an update in its batch's data: data[start:mid] is the key
// or path, data[mid:end] the value, hash or masks.
type item struct {
	kind            itemKind
	start, mid, end int32
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
	running bool
	work    chan *itemBatch // batches to feed; nil ends a Root
	free    chan *itemBatch // batches fed, to fill again
	done    chan error      // the first error of a Root's feeding
	reports
}

func newEngine() *engine {
	e := &engine{
		work: make(chan *itemBatch, batchesInFlight+1),
		free: make(chan *itemBatch, batchesInFlight),
		done: make(chan error),
	}
	e.ready = make(chan struct{}, 1)
	e.trie = stacktrie.New(e.onNode)
	return e
}

// feedLoop feeds the trie batch after batch until work is closed. Before
// it waits for a batch, it assembles the reports that wait: then the walk
// is the slower side. At the end of a Root it assembles every report and
// leaves the trie to the walk's goroutine.
func (e *engine) feedLoop() {
	var err error
	for {
		var batch *itemBatch
		ok := true
		select {
		case batch, ok = <-e.work:
		default:
			e.assembleAll()
			batch, ok = <-e.work
		}
		if !ok {
			return
		}
		if batch == nil {
			e.assembleAll()
			e.relay = false
			e.done <- err
			err = nil
			continue
		}
		e.relay = true
		if err == nil {
			err = e.feed(batch)
		}
		e.free <- batch
	}
}

func (e *engine) feed(batch *itemBatch) error {
	for _, it := range batch.items {
		first, second := batch.data[it.start:it.mid], batch.data[it.mid:it.end]
		var err error
		switch it.kind {
		case leafItem:
			err = e.trie.Update(first, second)
		case mountItem:
			err = e.trie.UpdateBranch(first, second)
		case groupItem:
			e.group(first, second)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// feeder is the walk's side: it fills batches and hands them over.
type feeder struct {
	e       *engine
	current *itemBatch
	busy    bool // a Root started and not finished: one that panicked
	sent    bool // a batch of this Root went to the engine's goroutine
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
	f.busy, f.sent = true, false
	if f.e.running {
		return
	}
	for range batchesInFlight {
		f.e.free <- &itemBatch{data: make([]byte, 0, batchBytes+batchSpare), items: make([]item, 0, batchItems)}
	}
	f.e.addSpares()
	go f.e.feedLoop()
	f.e.running = true
}

func (f *feeder) leaf(key, value []byte) { f.add(leafItem, key, value) }

func (f *feeder) mount(path, hash []byte) { f.add(mountItem, path, hash) }

// group tells the assembler which children of the record at path the walk
// mounted, and which of them have stored branches at or below them; it
// comes after the mounts, before the trie can report the record's branch.
func (f *feeder) group(path []byte, mounted, stored uint16) {
	var masks [4]byte
	binary.BigEndian.PutUint16(masks[:], mounted)
	binary.BigEndian.PutUint16(masks[2:], stored)
	f.add(groupItem, path, masks[:])
}

func (f *feeder) add(kind itemKind, first, second []byte) {
	if f.current == nil {
		f.current = f.takeBatch()
	}
	b := f.current
	start := len(b.data)
	b.data = append(append(b.data, first...), second...)
	b.items = append(b.items, item{kind: kind, start: int32(start), mid: int32(start + len(first)), end: int32(len(b.data))})
	if len(b.items) == batchItems || len(b.data) >= batchBytes {
		f.e.work <- b
		f.current = nil
		f.sent = true
	}
}

// takeBatch returns an empty batch. While none is free, the trie is the
// slower side, and the walk assembles the reports that wait.
func (f *feeder) takeBatch() *itemBatch {
	for {
		select {
		case b := <-f.e.free:
			b.data, b.items = b.data[:0], b.items[:0]
			return b
		case <-f.e.ready:
			f.e.assembleWaiting()
		}
	}
}

// finish hands over the last batch and waits until the trie has taken
// everything, assembling reports meanwhile; it returns the first error
// the trie gave. If no batch went over, the engine's goroutine is idle,
// and the one batch is fed here.
func (f *feeder) finish() error {
	f.busy = false
	b := f.current
	f.current = nil
	if !f.sent {
		if b == nil {
			return nil
		}
		err := f.e.feed(b)
		f.e.free <- b
		return err
	}
	if b != nil {
		f.e.work <- b
	}
	f.e.work <- nil
	for {
		select {
		case <-f.e.ready:
			f.e.assembleWaiting()
		case err := <-f.e.done:
			return err
		}
	}
}

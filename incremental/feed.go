package incremental

// This file splits Root over two goroutines: the walk, which reads the
// cursors and decides what to reuse, and the trie, which encodes and
// hashes what the walk decided. The walk copies each leaf and each mounted
// branch into a batch; a goroutine of the Builder's own feeds full batches
// to the trie while the walk goes on. The nodes the trie reports come back
// the other way, leaves left out, and the walk's goroutine makes records of
// them whenever it would otherwise wait: the trie's side is the longer
// one, and the assembler about a fifth of it. A few batches go round and
// round each way, so that nothing is allocated once their buffers have
// grown. A Root that never fills a batch, such as one over a small storage
// trie, feeds it to the trie itself at the end: the hand-over and the wait
// would cost more than the feeding.

import (
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
	// fed, and two ready in between. As many report batches go round the
	// other way.
	batchesInFlight = 4
)

type itemKind uint8

const (
	leafItem  itemKind = iota // an Update: the key, then the value
	mountItem                 // an UpdateBranch: the path, then the hash
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

// reportBatch holds nodes the trie reported on the engine's goroutine, for
// the assembler on the walk's. The last batch of a Root says so, and
// carries the first error of its feeding.
type reportBatch struct {
	data  []byte
	nodes []reportedNode
	last  bool
	err   error
}

// reportedNode locates a node in its batch's data: data[start:hash] is its
// path, the 32 bytes from hash its hash, and data[hash+32:end] its RLP.
type reportedNode struct {
	start, hash, end int32
}

func newReportBatch() *reportBatch {
	return &reportBatch{data: make([]byte, 0, batchBytes+batchSpare), nodes: make([]reportedNode, 0, batchItems)}
}

// engine is the trie and all it reports to: the part of a Builder its
// goroutine uses, apart, so that a Builder dropped without a word becomes
// unreachable, and its cleanup ends the goroutine.
type engine struct {
	trie    *stacktrie.Trie
	asm     assembler
	built   records // the records the trie built, in the order it finished them
	running bool
	work    chan *itemBatch // batches to feed; nil ends a Root
	free    chan *itemBatch // batches fed, to fill again
	// The trie's reports, while it runs on the engine's goroutine: relay
	// is set there, and report is the batch being filled.
	relay       bool
	report      *reportBatch
	reports     chan *reportBatch // to the walk's goroutine
	freeReports chan *reportBatch // assembled, to fill again
	quit        chan struct{}     // closed once the Builder is dropped
}

func newEngine() *engine {
	e := &engine{
		work:        make(chan *itemBatch, batchesInFlight+1),
		free:        make(chan *itemBatch, batchesInFlight),
		reports:     make(chan *reportBatch, batchesInFlight),
		freeReports: make(chan *reportBatch, batchesInFlight),
		quit:        make(chan struct{}),
	}
	e.trie = stacktrie.New(e.onNode)
	return e
}

// stop ends the engine's goroutine, wherever it waits; the Builder's
// cleanup calls it.
func (e *engine) stop() {
	close(e.work)
	close(e.quit)
}

// feedLoop feeds the trie batch after batch until work is closed. At the
// end of a Root it sends the last report batch, and leaves the trie to the
// walk's goroutine, which assembles what the trie reports there itself.
func (e *engine) feedLoop() {
	var err error
	for batch := range e.work {
		if batch == nil {
			e.relay = false
			r := e.takeReport()
			if r == nil {
				return
			}
			r.last, r.err = true, err
			e.reports <- r
			e.report, err = nil, nil
			continue
		}
		e.relay = true
		if err == nil {
			err = e.feed(batch)
		}
		e.free <- batch
	}
}

// onNode is the trie's NodeFunc: it assembles the node at once, unless the
// trie runs on the engine's goroutine; then the node goes to the walk's, if
// the assembler can make anything of it.
func (e *engine) onNode(path []byte, hash stacktrie.Hash, blob []byte) {
	if !e.relay {
		e.asm.onNode(path, hash, blob)
		return
	}
	if !assembles(path, blob) {
		return
	}
	r := e.takeReport()
	if r == nil {
		return
	}
	start := len(r.data)
	r.data = append(append(append(r.data, path...), hash[:]...), blob...)
	r.nodes = append(r.nodes, reportedNode{start: int32(start), hash: int32(start + len(path)), end: int32(len(r.data))})
	if len(r.nodes) == batchItems || len(r.data) >= batchBytes {
		e.reports <- r
		e.report = nil
	}
}

// takeReport returns the report batch being filled, or an empty one once
// the walk's goroutine has one free; nil once the Builder is dropped, when
// no one reads reports any more.
func (e *engine) takeReport() *reportBatch {
	if e.report != nil {
		return e.report
	}
	select {
	case r := <-e.freeReports:
		r.data, r.nodes, r.last, r.err = r.data[:0], r.nodes[:0], false, nil
		e.report = r
		return r
	case <-e.quit:
		return nil
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
		f.e.freeReports <- newReportBatch()
	}
	go f.e.feedLoop()
	f.e.running = true
}

func (f *feeder) leaf(key, value []byte) { f.add(leafItem, key, value) }

func (f *feeder) mount(path []byte, hash *stacktrie.Hash) { f.add(mountItem, path, hash[:]) }

// group tells the assembler which children of the record at path the walk
// mounted, and which of them have stored branches at or below them. The
// walk has fed the record's last child, so the trie cannot have finished
// the record's branch, and the assembler, on this goroutine, takes the
// branch later.
func (f *feeder) group(path []byte, mounted, stored uint16) {
	f.e.asm.mounts.add(path, mounted, stored)
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
		f.assembleWaiting()
	}
}

// takeBatch returns an empty batch, assembling the trie's reports while
// none is free.
func (f *feeder) takeBatch() *itemBatch {
	for {
		select {
		case b := <-f.e.free:
			b.data, b.items = b.data[:0], b.items[:0]
			return b
		case r := <-f.e.reports:
			f.assemble(r)
		}
	}
}

// assembleWaiting assembles the report batches the trie has sent, without
// waiting for more.
func (f *feeder) assembleWaiting() {
	for {
		select {
		case r := <-f.e.reports:
			f.assemble(r)
		default:
			return
		}
	}
}

// assemble passes a report batch's nodes to the assembler, in the order
// the trie reported them, and gives the batch back.
func (f *feeder) assemble(r *reportBatch) {
	for _, n := range r.nodes {
		f.e.asm.onNode(r.data[n.start:n.hash], stacktrie.Hash(r.data[n.hash:]), r.data[n.hash+int32(len(stacktrie.Hash{})):n.end])
	}
	f.e.freeReports <- r
}

// finish hands over the last batch and assembles the trie's reports until
// the trie has taken everything; it returns the first error the trie gave.
// If no batch went over, the engine's goroutine is idle, and the one batch
// is fed here.
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
		r := <-f.e.reports
		last, err := r.last, r.err
		f.assemble(r)
		if last {
			return err
		}
	}
}

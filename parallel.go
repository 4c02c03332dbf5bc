package stacktrie

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"sync"
)

// Parallel computes the root a Trie computes for the same sorted stream,
// hashing on several cores. It routes the pairs by their key's first byte:
// the pairs under one first byte form a partition, built in a worker's own
// Trie while the stream goes on to the next partitions, and the partitions'
// tops (see Subtrie) are mounted in key order into one Trie at Hash. Keys
// spread over the key space, such as the hashed keys of state and storage
// tries, keep every worker busy; keys that share their first byte all go to
// one worker.
//
// Update has Trie's contract: the same errors, and a refused pair changes
// nothing. Pairs already in memory, sorted, may instead be given all at
// once to HashAll, whose workers read them where they are. onNode is never
// called concurrently, and sees exactly the nodes a Trie reports, each
// after its hashed descendants. A Parallel is not safe for concurrent use.
//
// The workers start with the first pair and wait between streams, so that a
// Parallel reused for stream after stream starts no goroutine and, once its
// buffers have grown, makes no heap allocation. Close ends them: defer it
// right after NewParallel. A Parallel dropped without Close has its workers
// ended once the garbage collector finds it unreachable.
type Parallel struct {
	*workers // what the worker goroutines use, apart, so that Parallel can become unreachable

	top    *Trie // the empty key, then the partitions' tops
	hasKey bool
	// last is the last key accepted, read where a batch holds it rather
	// than copied for every pair. Its batch, even once sent, is not written
	// again before the next pair is compared with it and last moves on.
	last   []byte
	hashed bool
	root   Hash

	current *batch // the batch being filled
	cleanup runtime.Cleanup
}

// workers is the part of a Parallel its goroutines share.
type workers struct {
	n      int
	onNode NodeFunc
	report sync.Mutex // serializes onNode across tries

	running bool
	yield   bool          // the workers take every core: each yields to the caller after a batch
	tries   []*Trie       // a Trie per worker, kept from stream to stream
	work    []chan *batch // each worker's batches; nil marks a stream's end, close the worker's
	batches chan *batch   // batches free for reuse, bounding memory
	flushed sync.WaitGroup
	exited  sync.WaitGroup

	// tops holds each partition's top, in the binary form of a Subtrie,
	// written by the partition's worker; empty for a partition with no
	// keys. The buffers are kept from stream to stream.
	tops [partitions][]byte
	// refused marks the partitions of a HashAll whose pairs a worker's
	// Trie refused.
	refused [partitions]bool
}

// batch carries consecutive pairs of one partition to a worker.
type batch struct {
	part  int
	data  []byte     // keys and values, back to back
	pairs [][2]int32 // the end of each key and of its value in data
	last  bool       // the partition ends with this batch

	// For HashAll, the partition's pairs where the caller holds them,
	// instead of data and pairs.
	keys, values [][]byte
}

const (
	// batchBytes is about how much key and value data a batch carries: it
	// is sent once it holds that much, so a batch holds up to batchBytes
	// plus one pair.
	batchBytes = 64 << 10
	batchSlack = 4 << 10
	// batchesPerWorker bounds the batches in flight: the caller waits
	// when workers fall this far behind.
	batchesPerWorker = 4
	partitions       = 256
)

// NewParallel returns an empty Parallel with n workers; n <= 0 means
// GOMAXPROCS. onNode, which may be nil, is as for New.
func NewParallel(n int, onNode NodeFunc) *Parallel {
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	p := &Parallel{workers: &workers{n: n, onNode: onNode}}
	p.top = New(p.reporter())
	return p
}

// reporter returns the NodeFunc the tries report to: onNode behind a lock.
func (w *workers) reporter() NodeFunc {
	if w.onNode == nil {
		return nil
	}
	return func(path []byte, hash Hash, blob []byte) {
		w.report.Lock()
		defer w.report.Unlock()
		w.onNode(path, hash, blob)
	}
}

// Update inserts a pair, as Trie.Update does.
func (p *Parallel) Update(key, value []byte) error {
	if p.hashed {
		return ErrFinalized
	}
	if len(value) == 0 {
		return errorWithKeys(ErrEmptyValue, key, nil)
	}
	if p.hasKey && !after(key, p.last) {
		return errorWithKeys(ErrKeyOrder, key, p.last)
	}
	p.hasKey = true
	if len(key) == 0 {
		// Only the first key can be empty; it belongs to no partition.
		p.last = []byte{}
		return p.top.Update(key, value)
	}
	b := p.current
	if b == nil || b.part != int(key[0]) || len(b.data) >= batchBytes {
		b = p.nextBatch(int(key[0]))
	}
	p.last = b.add(key, value)
	return nil
}

// nextBatch sends the batch being filled, if there is one, as the last of
// its partition unless part is the same, and takes a free batch for part,
// starting the workers if they are not running.
func (p *Parallel) nextBatch(part int) *batch {
	if b := p.current; b != nil {
		b.last = b.part != part
		p.send()
	}
	p.start()
	b := <-p.batches
	b.part = part
	p.current = b
	return b
}

// add appends a pair to the batch and returns its key where the batch
// holds it.
func (b *batch) add(key, value []byte) []byte {
	start := len(b.data)
	b.data = append(append(b.data, key...), value...)
	keyEnd := start + len(key)
	b.pairs = append(b.pairs, [2]int32{int32(keyEnd), int32(len(b.data))})
	return b.data[start:keyEnd]
}

// after reports whether key comes after last in byte order. Hashed keys
// almost always differ in their first eight bytes, which one comparison of
// two words settles.
func after(key, last []byte) bool {
	if len(key) >= 8 && len(last) >= 8 {
		k, l := binary.BigEndian.Uint64(key), binary.BigEndian.Uint64(last)
		if k != l {
			return k > l
		}
	}
	return bytes.Compare(key, last) > 0
}

// send hands the current batch to the worker of its partition: consecutive
// partitions go to different workers.
func (p *Parallel) send() {
	b := p.current
	p.current = nil
	p.work[b.part%p.n] <- b
}

// start starts the workers, if they are not running, and arranges for them
// to end if the Parallel is dropped without Close. The batches and the
// workers' tries are made with the first stream, and kept.
func (p *Parallel) start() {
	if p.running {
		return
	}
	p.running = true
	// With a core to spare, the runtime wakes it for the caller.
	p.yield = p.n >= runtime.GOMAXPROCS(0)
	if p.batches == nil {
		p.batches = make(chan *batch, batchesPerWorker*p.n)
		for range cap(p.batches) {
			// Sized for a full batch of small pairs, so that they do not
			// grow in the first streams; a larger pair grows its batch once.
			p.batches <- &batch{
				data:  make([]byte, 0, batchBytes+batchSlack),
				pairs: make([][2]int32, 0, batchBytes/32),
			}
		}
		p.tries = make([]*Trie, p.n)
		for i := range p.tries {
			p.tries[i] = New(p.reporter())
		}
	}
	p.work = make([]chan *batch, p.n)
	for i := range p.work {
		p.work[i] = make(chan *batch, batchesPerWorker)
		p.exited.Add(1)
		go p.run(p.tries[i], p.work[i])
	}
	p.cleanup = runtime.AddCleanup(p, (*workers).stop, p.workers)
}

// run is a worker: it builds each partition sent to it in t and hands back
// the partition's top. It marks the end of each stream on flushed and ends
// when its channel is closed.
func (w *workers) run(t *Trie, work <-chan *batch) {
	defer w.exited.Done()
	for b := range work {
		if b == nil {
			w.flushed.Done()
			continue
		}
		if b.keys != nil {
			w.buildInPlace(t, b)
		} else {
			start := int32(0)
			for _, end := range b.pairs {
				// Keys and values were checked by Update: this cannot fail.
				_ = t.Update(b.data[start:end[0]], b.data[end[0]:end[1]])
				start = end[1]
			}
		}
		if b.last {
			w.tops[b.part] = t.appendTop(w.tops[b.part][:0])
			t.Reset()
		}
		b.data, b.pairs, b.last = b.data[:0], b.pairs[:0], false
		w.batches <- b
		if w.yield {
			// The caller, if this send or the receive of b woke it,
			// waits to run on this worker's core until the worker
			// blocks, a whole queue of batches later, while the other
			// workers run dry. Let it run now: the workers then idled 4%
			// of the time, not 14%.
			runtime.Gosched()
		}
	}
}

// finishStream ends the partition being filled and waits until the workers
// have built every partition sent; each partition's top is then in tops.
func (p *Parallel) finishStream() {
	if !p.running {
		return
	}
	if p.current != nil {
		p.current.last = true
		p.send()
	}
	p.flushed.Add(p.n)
	for _, work := range p.work {
		work <- nil
	}
	p.flushed.Wait()
}

// mountTops mounts the partitions' tops in key order into the top trie, and
// empties them for the next stream.
func (p *Parallel) mountTops() {
	for _, top := range p.tops {
		if len(top) > 0 {
			// Each top lies under its own first byte, after the empty key:
			// in key order, mounting cannot fail.
			_ = p.top.MountSubtrie(top)
		}
	}
	p.dropTops()
}

// dropTops empties the partitions' tops, keeping their buffers.
func (p *Parallel) dropTops() {
	for part, top := range p.tops {
		p.tops[part] = top[:0]
	}
}

// stop ends the worker goroutines once they have built what was sent to
// them. Close calls it after Reset; the cleanup of a Parallel dropped
// without Close, with whatever it left in flight.
func (w *workers) stop() {
	if !w.running {
		return
	}
	for _, work := range w.work {
		close(work)
	}
	w.exited.Wait()
	w.running = false
}

// Hash waits for the workers, combines their partitions and returns the
// root, as Trie.Hash does. The workers wait for the next stream.
func (p *Parallel) Hash() Hash {
	if !p.hashed {
		p.finishStream()
		p.mountTops()
		p.root = p.top.Hash()
		p.hashed = true
	}
	return p.root
}

// Reset empties the Parallel for a new stream, dropping the pairs in flight.
func (p *Parallel) Reset() {
	p.finishStream()
	p.dropTops()
	p.top.Reset()
	p.hasKey, p.last = false, nil
	p.hashed = false
}

// Close ends the workers. A stream not yet hashed is dropped, as Reset drops
// it; the root of a hashed one stays. Close may be called any number of
// times, and the Parallel stays usable: the next Update starts the workers
// again. It always returns nil; the error is there for io.Closer.
func (p *Parallel) Close() error {
	if !p.hashed {
		p.Reset()
	}
	if p.running {
		p.cleanup.Stop()
		p.stop()
	}
	return nil
}

package stacktrie

import (
	"bytes"
	"runtime"
	"sync"
)

// Parallel computes the root a Trie computes for the same sorted stream,
// hashing on several cores. It routes the pairs by their key's first byte:
// the pairs under one first byte form a partition, built in a worker's own
// Trie while the stream goes on to the next partitions, and the partitions'
// tops (see Subtrie) are mounted in key order into one Trie at Hash. Keys spread over the
// key space, such as the hashed keys of state and storage tries, keep every
// worker busy; keys that share their first byte all go to one worker.
//
// Update has Trie's contract: the same errors, and a refused pair changes
// nothing. onNode is never called concurrently, and sees exactly the nodes a
// Trie reports, each after its hashed descendants. Workers start with the
// first pair and end at Hash or Reset: a stream given up before either
// leaves them waiting. A Parallel is not safe for concurrent use.
type Parallel struct {
	workers int
	onNode  NodeFunc
	report  sync.Mutex // serializes onNode across workers

	top    *Trie  // the empty key, then the partitions' tops
	last   []byte // the last key accepted
	hasKey bool
	hashed bool
	root   Hash

	running bool
	tries   []*Trie // a Trie per worker, kept from run to run
	work    []chan *batch
	batches chan *batch // batches free for reuse, bounding memory
	wg      sync.WaitGroup
	current *batch // the batch being filled

	// tops holds each partition's top, in the binary form of a Subtrie,
	// written by the partition's worker; empty for a partition with no
	// keys. The buffers are kept from run to run.
	tops [partitions][]byte
}

// batch carries consecutive pairs of one partition to a worker.
type batch struct {
	part  int
	data  []byte     // keys and values, back to back
	pairs [][2]int32 // the end of each key and of its value in data
	last  bool       // the partition ends with this batch
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

// NewParallel returns an empty Parallel with the given number of workers;
// workers <= 0 means GOMAXPROCS. onNode, which may be nil, is as for New.
func NewParallel(workers int, onNode NodeFunc) *Parallel {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	p := &Parallel{workers: workers, onNode: onNode}
	p.top = New(p.reporter())
	return p
}

// reporter returns the NodeFunc the tries report to: onNode behind a lock.
func (p *Parallel) reporter() NodeFunc {
	if p.onNode == nil {
		return nil
	}
	return func(path []byte, hash Hash, blob []byte) {
		p.report.Lock()
		defer p.report.Unlock()
		p.onNode(path, hash, blob)
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
	if p.hasKey && bytes.Compare(key, p.last) <= 0 {
		return errorWithKeys(ErrKeyOrder, key, p.last)
	}
	p.last = append(p.last[:0], key...)
	p.hasKey = true
	if len(key) == 0 {
		// Only the first key can be empty; it belongs to no partition.
		return p.top.Update(key, value)
	}
	p.start()
	if b := p.current; b != nil && (b.part != int(key[0]) || len(b.data) >= batchBytes) {
		b.last = b.part != int(key[0])
		p.send()
	}
	if p.current == nil {
		p.current = <-p.batches
		p.current.part = int(key[0])
	}
	b := p.current
	b.data = append(b.data, key...)
	keyEnd := len(b.data)
	b.data = append(b.data, value...)
	b.pairs = append(b.pairs, [2]int32{int32(keyEnd), int32(len(b.data))})
	return nil
}

// send hands the current batch to the worker of its partition: consecutive
// partitions go to different workers.
func (p *Parallel) send() {
	b := p.current
	p.current = nil
	p.work[b.part%p.workers] <- b
}

// start starts the workers, if they are not running.
func (p *Parallel) start() {
	if p.running {
		return
	}
	p.running = true
	if p.batches == nil {
		p.batches = make(chan *batch, batchesPerWorker*p.workers)
		for range cap(p.batches) {
			// Sized for a full batch of small pairs, so that they do not
			// grow in the first runs; a larger pair grows its batch once.
			p.batches <- &batch{
				data:  make([]byte, 0, batchBytes+batchSlack),
				pairs: make([][2]int32, 0, batchBytes/32),
			}
		}
		p.tries = make([]*Trie, p.workers)
		for w := range p.tries {
			p.tries[w] = New(p.reporter())
		}
	}
	p.work = make([]chan *batch, p.workers)
	for w := range p.work {
		p.work[w] = make(chan *batch, batchesPerWorker)
		p.wg.Add(1)
		go p.run(p.tries[w], p.work[w])
	}
}

// run is a worker: it builds each partition sent to it in t and hands back
// the partition's top.
func (p *Parallel) run(t *Trie, work <-chan *batch) {
	defer p.wg.Done()
	for b := range work {
		start := int32(0)
		for _, end := range b.pairs {
			// Keys and values were checked by Update: this cannot fail.
			_ = t.Update(b.data[start:end[0]], b.data[end[0]:end[1]])
			start = end[1]
		}
		if b.last {
			p.tops[b.part] = t.appendTop(p.tops[b.part][:0])
			t.Reset()
		}
		b.data, b.pairs, b.last = b.data[:0], b.pairs[:0], false
		p.batches <- b
	}
}

// stop ends the partition being filled and waits for the workers to finish
// and end. With mount, it mounts the partitions' tops in key order into the
// top trie; without, it drops them.
func (p *Parallel) stop(mount bool) {
	if !p.running {
		return
	}
	if p.current != nil {
		p.current.last = true
		p.send()
	}
	for _, w := range p.work {
		close(w)
	}
	p.wg.Wait()
	p.running = false
	for part, top := range p.tops {
		if mount && len(top) > 0 {
			// Each top lies under its own first byte, after the empty key:
			// in key order, mounting cannot fail.
			_ = mountEncoded(p.top, top)
		}
		p.tops[part] = top[:0]
	}
}

// Hash waits for the workers, combines their partitions and returns the
// root, as Trie.Hash does. No worker outlives it.
func (p *Parallel) Hash() Hash {
	if !p.hashed {
		p.stop(true)
		p.root = p.top.Hash()
		p.hashed = true
	}
	return p.root
}

// Reset empties the Parallel for a new stream, stopping its workers.
func (p *Parallel) Reset() {
	p.stop(false)
	p.top.Reset()
	p.last = p.last[:0]
	p.hasKey = false
	p.hashed = false
}

package state

// This file wires the Builder's goroutines together: the job pools, the
// channels, and starting and stopping.

import (
	"runtime"
	"sync"

	"github.com/stacktrie/stacktrie"
)

// The pipeline is the Builder's goroutines and what they share, apart from
// the Builder so that a Builder dropped without Close can become unreachable
// and have its goroutines ended.
//
// The caller's goroutine reads the stream into storage jobs, which go both
// to the workers (any of them, in any order) and, in stream order, to the
// sequencer. The sequencer waits for each job in turn to be built, completes
// its accounts in order and writes their leaves into account-trie jobs,
// which go to the workers and, in order, to the mounter, which combines
// them into the state root. Every job comes from one of two fixed pools and
// returns to it, so that memory is bounded by the pools, and every
// goroutine waits only on the ones after it: the workers never wait.
type pipeline struct {
	workers   int
	onNode    NodeFunc
	onAccount func(AccountResult)
	report    sync.Mutex // serializes onNode and onAccount

	running   bool // the goroutines run
	yield     bool // the workers take every core: each yields after a job
	streaming bool // a stream is open: jobs may be in flight

	storageJobs, accountJobs  []*job
	freeStorage, freeAccounts chan *job
	work                      chan *job
	storageOrder              chan *job // storage jobs in stream order; nil ends the stream
	accountOrder              chan *job // account-trie jobs in order; nil ends the stream
	roots                     chan stacktrie.Hash
	exited                    sync.WaitGroup

	seq sequencer
	mnt mounter

	// mismatches counts the stream's accounts whose stored storage root is
	// not the computed one; the sequencer sets it before it ends the stream.
	mismatches uint64
}

// Pool sizes: enough jobs per worker that workers do not wait for the
// sequencer to free one, and few enough to bound memory.
const (
	storageJobsPerWorker = 4
	accountJobsPerWorker = 2
)

func newPipeline(opts Options) *pipeline {
	n := opts.Workers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	return &pipeline{workers: n, onNode: opts.OnNode, onAccount: opts.OnAccount}
}

// reporter returns the node callback of a Trie whose nodes belong to
// *owner: the Builder's OnNode behind the lock, or nil without one.
func (p *pipeline) reporter(owner *stacktrie.Hash) stacktrie.NodeFunc {
	if p.onNode == nil {
		return nil
	}
	return func(path []byte, hash stacktrie.Hash, blob []byte) {
		p.report.Lock()
		defer p.report.Unlock()
		p.onNode(*owner, path, hash, blob)
	}
}

// start starts the goroutines if they are not running. The jobs and tries
// are made the first time and kept.
func (p *pipeline) start() {
	if p.running {
		return
	}
	p.running = true
	// With a core to spare, the runtime wakes it for the woken goroutine.
	p.yield = p.workers >= runtime.GOMAXPROCS(0)
	if p.storageJobs == nil {
		p.storageJobs = p.makeJobs(storageJobsPerWorker*p.workers+2, jobItems)
		p.accountJobs = p.makeJobs(accountJobsPerWorker*p.workers+2, 1) // an account-trie job holds one item
		p.freeStorage = make(chan *job, len(p.storageJobs))
		p.freeAccounts = make(chan *job, len(p.accountJobs))
		p.fillPools()
		p.roots = make(chan stacktrie.Hash, 1)
		p.seq.storage = stacktrie.New(p.reporter(&p.seq.owner))
		p.mnt.trie = stacktrie.New(p.reporter(&p.mnt.owner))
	}
	p.work = make(chan *job, len(p.storageJobs)+len(p.accountJobs))
	p.storageOrder = make(chan *job, len(p.storageJobs)+1)
	p.accountOrder = make(chan *job, len(p.accountJobs)+1)
	p.exited.Add(p.workers + 2)
	for range p.workers {
		go p.runWorker()
	}
	go p.sequence()
	go p.mount()
}

func (p *pipeline) makeJobs(n, items int) []*job {
	jobs := make([]*job, n)
	for i := range jobs {
		jobs[i] = newJob(items, p.reporter)
	}
	return jobs
}

// fillPools puts every job in its pool in a fixed order. Called between
// streams, when every job is back, it makes each stream hand out the jobs
// in the same order, so that a stream like an earlier one finds its buffers
// grown.
func (p *pipeline) fillPools() {
	for _, pool := range []struct {
		jobs []*job
		free chan *job
	}{{p.storageJobs, p.freeStorage}, {p.accountJobs, p.freeAccounts}} {
		for len(pool.free) > 0 {
			<-pool.free
		}
		for _, j := range pool.jobs {
			j.reset()
			pool.free <- j
		}
	}
}

// runWorker is a worker: it builds any job it is given.
func (p *pipeline) runWorker() {
	defer p.exited.Done()
	for j := range p.work {
		j.build()
		j.done <- struct{}{}
		if p.yield {
			// The goroutine the send woke waits to run on this worker's
			// core until the worker blocks, jobs later: let it run now.
			runtime.Gosched()
		}
	}
}

// send hands a job to the workers and, in order, to the goroutine that
// completes it.
func (p *pipeline) send(j *job, order chan<- *job) {
	p.work <- j
	order <- j
}

// endStream ends the stream once every job sent is built and combined, and
// returns the state root of the accounts the sequencer completed.
func (p *pipeline) endStream() stacktrie.Hash {
	p.storageOrder <- nil
	root := <-p.roots
	p.streaming = false
	p.fillPools()
	return root
}

// stop ends the goroutines, after the stream in flight if one is open. A
// Builder's cleanup calls it when the Builder is dropped without Close.
func (p *pipeline) stop() {
	if !p.running {
		return
	}
	if p.streaming {
		p.endStream()
	}
	close(p.storageOrder)
	close(p.accountOrder)
	close(p.work)
	p.exited.Wait()
	p.running = false
}

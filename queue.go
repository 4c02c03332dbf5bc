package stacktrie

// Deferred hashing. With SIMD lanes, a node that is final is encoded into a
// job of its own and hashed later, together with other nodes, instead of at
// once. A job whose children are still being hashed holds placeholders where
// their hashes go; it becomes ready when the last one arrives. Ready jobs go
// into the lanes as lanes free up, so a batch only waits for jobs that exist.
//
// Without lanes, a job is hashed as soon as it is encoded, and its hash goes
// straight into the reference its parent takes: the plain one-at-a-time path.

// noJob marks a reference whose bytes are final.
const noJob = -1

// maxOutstanding bounds the jobs not yet hashed. Beyond it, lanes run even
// when some of them are idle, so memory stays bounded by the key length.
const maxOutstanding = 64

// Where a job delivers its hash.
const (
	toFrame = iota // slot at of frame index, a branch on the spine
	toJob          // byte at of the blob of job index, its parent's encoding
	toRoot         // the trie's root
	toMount        // the trie's mounted branch, when Subtrie collapses the spine
)

type job struct {
	blob    []byte // the node's RLP, with placeholders for pending children
	path    []byte // the node's nibble path, kept only for onNode
	waiting int32  // children whose hash has not arrived
	to      uint8
	index   int32
	at      int32
}

// The first jobs of a trie take their blobs from one slab: in the workloads
// measured, fewer than 10 jobs are ever in use at once, and a branch of 16
// hashes takes 535 bytes.
const (
	slabJobs = 16
	slabBlob = 576
)

// newJob returns a job with a blob of size bytes for the node at depth.
func (t *Trie) newJob(size, depth int) int32 {
	var j int32
	if n := len(t.free); n > 0 {
		j = t.free[n-1]
		t.free = t.free[:n-1]
	} else {
		j = t.addJob()
	}
	jb := &t.jobs[j]
	if cap(jb.blob) < size {
		jb.blob = make([]byte, size, max(size, 2*cap(jb.blob)))
	}
	jb.blob = jb.blob[:size]
	if t.onNode != nil {
		jb.path = append(jb.path[:0], t.path[:depth]...)
	}
	jb.waiting = 0
	t.outstanding++
	return j
}

// addJob makes a new job, the first ones with their queues and blobs made
// at once, so that a new trie allocates a handful of times, not once a job.
func (t *Trie) addJob() int32 {
	if t.jobs == nil {
		t.jobs = make([]job, 0, slabJobs)
		t.free = make([]int32, 0, slabJobs)
		t.ready = make([]int32, 0, slabJobs)
		t.slab = make([]byte, slabJobs*slabBlob)
	}
	j := len(t.jobs)
	var blob []byte
	if j < slabJobs {
		blob = t.slab[j*slabBlob : j*slabBlob : (j+1)*slabBlob]
	}
	t.jobs = append(t.jobs, job{blob: blob})
	return int32(j)
}

// waitFor makes job parent wait for the hash of job child, which goes to
// byte at of parent's blob.
func (t *Trie) waitFor(parent, child int32, at int32) {
	c := &t.jobs[child]
	c.to, c.index, c.at = toJob, parent, at
	t.jobs[parent].waiting++
}

// seal is called once a job's blob is written. Without lanes it hashes the
// job now, into t.ref; with lanes it queues the job if nothing holds it up.
func (t *Trie) seal(j int32) {
	jb := &t.jobs[j]
	if t.lanes == nil {
		t.hasher.sum(jb.blob, &t.ref.buf)
		t.ref.job = noJob
		t.report(j, &t.ref.buf)
		return
	}
	if jb.waiting == 0 {
		t.ready = append(t.ready, j)
	}
}

// deliver puts the hash of job j where it belongs and retires the job.
func (t *Trie) deliver(j int32, hash *[32]byte) {
	jb := &t.jobs[j]
	switch jb.to {
	case toFrame:
		f := &t.frames[jb.index]
		f.ref[jb.at] = *hash
		f.pending &^= 1 << jb.at
	case toJob:
		parent := &t.jobs[jb.index]
		copy(parent.blob[jb.at:], hash[:])
		if parent.waiting--; parent.waiting == 0 {
			t.ready = append(t.ready, jb.index)
		}
	case toRoot:
		t.root = *hash
	case toMount:
		t.mount.buf = *hash
	}
	t.report(j, hash)
}

// report passes a hashed node to onNode and frees its job.
func (t *Trie) report(j int32, hash *[32]byte) {
	jb := &t.jobs[j]
	if t.onNode != nil {
		t.onNode(jb.path, *hash, jb.blob)
	}
	t.free = append(t.free, j)
	t.outstanding--
}

// hashReady feeds ready jobs to the lanes and runs them while every lane has
// work, or, with flush, until no job is left.
func (t *Trie) hashReady(flush bool) {
	l := t.lanes
	for {
		for l.idle > 0 && len(t.ready) > 0 {
			j := t.ready[len(t.ready)-1]
			t.ready = t.ready[:len(t.ready)-1]
			l.start(j, t.jobs[j].blob)
		}
		if l.idle == l.n {
			return
		}
		if l.idle > 0 && !flush && t.outstanding < maxOutstanding {
			return // wait for more ready jobs rather than run a lane empty
		}
		for _, d := range t.done[:l.step(&t.done)] {
			t.deliver(d.job, &d.hash)
		}
	}
}

// resetJobs drops every job, in flight or not. The free list hands the jobs
// out again from job 0 up, the order in which addJob made them, so that the
// same stream gives every job the same nodes as before, and no blob grows.
func (t *Trie) resetJobs() {
	t.free = t.free[:0]
	for j := len(t.jobs) - 1; j >= 0; j-- {
		t.free = append(t.free, int32(j))
	}
	t.ready = t.ready[:0]
	t.outstanding = 0
	if t.lanes != nil {
		t.lanes.reset()
	}
}

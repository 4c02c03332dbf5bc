package stacktrie

// The batcher hashes the nodes a trie finalizes. Without SIMD lanes it
// hashes a node as soon as it is encoded: the plain one-at-a-time path. With
// lanes, a final node becomes a job, hashed later together with other jobs:
// a job whose children are still being hashed holds placeholders where their
// hashes go, and becomes ready when the last one arrives; ready jobs go into
// the lanes as lanes free up, so a batch only waits for jobs that exist. A
// node with no hash to wait for, as every leaf is, is written into the job
// an idle lane keeps for itself and goes straight in (newReady).
//
// A hash that leaves the queue for the trie's own state (a frame of the
// spine, the root, a mounted branch) goes to the trie's deliver; a hash
// that goes into a parent job stays inside.

import "math/bits"

// noJob marks a reference whose bytes are final.
const noJob = -1

// maxOutstanding bounds the jobs not yet hashed. Beyond it, lanes run even
// when some of them are idle, so memory stays bounded by the key length.
const maxOutstanding = 64

// The first jobs of a trie take their blobs from one slab: in the workloads
// measured, fewer than 10 jobs are ever in use at once. A blob has
// blobSpare bytes of capacity past the node: room for Keccak's padding,
// which the lanes write in place, for writeBranch to copy every child as
// 32 bytes, and for the window a leaf is written in (putLeafItems), which
// starts within the node's first bytes.
const (
	slabJobs  = 16
	blobSpare = max(padSpare, leafWindow)
)

// blobWindow is the least capacity of a job's blob: more than a branch of
// 16 hashes (535 bytes) and its spare bytes, 1024 bytes and 32 more, so
// that writeBranch may mask where it writes a slot with 1023, and copy 32
// bytes there, without bounds checks. A slab blob has that much.
const blobWindow = 1024 + 32

// A destination is where a job's hash goes.
type destination struct {
	kind  destinationKind
	index int32 // the frame (toFrame), the parent job (toJob) or the root's place (toLater)
	at    int32 // the frame's slot, or where in the parent's blob the hash goes
}

type destinationKind uint8

const (
	toFrame destinationKind = iota // a slot of a branch on the spine
	toJob                          // the blob of the parent's job
	toRoot                         // the trie's root
	toMount                        // the trie's mounted branch, when Subtrie collapses the spine
	toLater                        // the root of a trie ended with HashLater
)

type job struct {
	blob    []byte // the node's RLP, with placeholders for pending children
	path    []byte // the node's nibble path, kept only for onNode
	waiting int32  // children whose hash has not arrived
	to      destination
}

type batcher struct {
	trie   *Trie // takes the hashes for every destination but toJob: a direct call, where an interface cost a dynamic one a node
	onNode NodeFunc

	hasher      hasher
	digest      [32]byte // the scalar hasher's output: a field, since the sponge's Read makes its buffer escape
	lanes       *lanes   // nil: hash one node at a time
	jobs        []job
	slab        []byte  // the blobs of the first jobs
	free        []int32 // jobs not in use, the next to use last
	laneJobs    int32   // jobs 0 to laneJobs-1 are the lanes' own (newReady)
	ready       []int32 // jobs whose blob is complete, waiting for a lane
	outstanding int     // jobs in use, but for the lanes' own
}

func newBatcher(t *Trie, onNode NodeFunc, lanes *lanes) batcher {
	return batcher{trie: t, onNode: onNode, hasher: newHasher(), lanes: lanes}
}

// newJob returns a job with a blob of size bytes for the node whose path is
// the first depth nibbles of the packed key; they are spelt out, one a byte,
// only for onNode.
func (b *batcher) newJob(size int, key []byte, depth int) (int32, []byte) {
	var j int32
	if n := len(b.free); n > 0 {
		j = b.free[n-1]
		b.free = b.free[:n-1]
	} else {
		j = b.addJob()
	}
	jb := &b.jobs[j]
	if need := size + blobSpare; cap(jb.blob) < need {
		// At least a slab blob: a job that held a leaf may later hold a
		// branch, and a reused trie would then allocate again.
		jb.blob = make([]byte, size, wholeLines(max(need, 2*cap(jb.blob), blobWindow)))
	}
	jb.waiting = 0
	b.outstanding++
	b.handOut(jb, size, key, depth)
	return j, jb.blob
}

// handOut gives job jb's blob, which has room, size bytes, and the job its
// path for onNode: what newJob and newReady both do to a job they hand out.
func (b *batcher) handOut(jb *job, size int, key []byte, depth int) {
	jb.blob = jb.blob[:size]
	if b.onNode != nil {
		jb.path = spellPath(jb.path, key, depth)
	}
}

// spellPath returns the path of a node, the first depth nibbles of the
// packed key, one a byte, for onNode, in path's buffer where it has room.
// It is not inlined: its callers would keep their arguments on the stack
// for it, and most run without onNode.
//
//go:noinline
func spellPath(path, key []byte, depth int) []byte {
	if path == nil || cap(path) < depth {
		// Room for the deepest node of 32-byte keys at once, so that a
		// job that held a shallow node takes a deep one without
		// allocating; not nil, so that the root's path is empty, not nil.
		path = make([]byte, 0, max(depth, 2*len(Hash{})))
	}
	return appendNibblePrefix(path[:0], key, depth)
}

// newReady returns a job for a node of size bytes with no child's hash to
// wait for, a leaf or a branch of embedded children, and its blob, which
// the caller writes and then starts: where a lane is idle, and the node
// fits a slab blob, the job is that lane's own, which the caller starts
// in it (lanes.startOwn or startIn); else a job from newJob, to enqueue
// or seal. Jobs 0 to laneJobs-1 are the lanes' own and never on the free
// list: a ready node goes into a lane at once, so it needs neither a free
// job nor the ready queue.
func (b *batcher) newReady(size int, key []byte, depth int) (int32, []byte) {
	if b.jobs == nil {
		b.makeJobs() // so that the first leaf, too, takes a lane's job
	}
	if b.laneJobs == 0 || !b.lanes.hasIdle() || size > blobWindow-blobSpare {
		return b.newJob(size, key, depth)
	}
	j := b.lanes.idle()
	jb := &b.jobs[j]
	b.handOut(jb, size, key, depth)
	return j, jb.blob
}

// addJob makes a new job.
func (b *batcher) addJob() int32 {
	if b.jobs == nil {
		b.makeJobs()
	}
	j := len(b.jobs)
	b.jobs = append(b.jobs, job{blob: b.slabBlob(j)})
	return int32(j)
}

// makeJobs makes the job queues and the slab at once, so that a new trie
// allocates a handful of times, not once a job, and with lanes the lanes'
// own jobs (newReady).
func (b *batcher) makeJobs() {
	if b.lanes != nil {
		b.laneJobs = int32(b.lanes.n)
	}
	slab := slabJobs + int(b.laneJobs)
	b.jobs = make([]job, 0, slab)
	b.free = make([]int32, 0, slab)
	b.ready = make([]int32, 0, slab)
	b.slab = make([]byte, slab*blobWindow)
	for range b.laneJobs {
		b.jobs = append(b.jobs, job{blob: b.slabBlob(len(b.jobs))})
	}
}

// slabBlob is job j's blob in the slab, or nil past it.
func (b *batcher) slabBlob(j int) []byte {
	if (j+1)*blobWindow > len(b.slab) {
		return nil
	}
	return b.slab[j*blobWindow : j*blobWindow : (j+1)*blobWindow]
}

// waitFor makes job parent wait for the hash of job child, which goes to
// byte at of parent's blob.
func (b *batcher) waitFor(parent, child, at int32) {
	b.jobs[child].to = destination{kind: toJob, index: parent, at: at}
	b.jobs[parent].waiting++
}

// sendTo sets where the hash of job j goes, when it leaves the batcher.
func (b *batcher) sendTo(j int32, to destination) {
	b.jobs[j].to = to
}

// seal is called once the blob of ref's job is written. Without lanes it
// hashes the job now and makes ref the hash itself; with lanes ref stays
// the job, whose hash will come.
func (b *batcher) seal(ref *childRef) {
	j := ref.job
	if b.lanes == nil {
		ref.buf, ref.job = *b.hashNow(j), noJob
		return
	}
	if b.jobs[j].waiting == 0 {
		b.enqueue(j)
	}
}

// hashNow hashes job j at once, without lanes, and retires it. The hash
// stays in digest until the next.
func (b *batcher) hashNow(j int32) *[32]byte {
	b.hasher.sum(b.jobs[j].blob, &b.digest)
	b.retire(j, &b.jobs[j], &b.digest)
	return &b.digest
}

// enqueue hands job j, whose blob is complete, to an idle lane at once, or
// else to ready, to wait for one.
func (b *batcher) enqueue(j int32) {
	if l := b.lanes; l.hasIdle() {
		l.start(j, b.jobs[j].blob)
		return
	}
	b.ready = append(b.ready, j)
}

// rootPath is the root's path as onNode gets it: empty, but not nil, as
// the reference trie and go-ethereum give it. It has no capacity, so that
// a path appended to it never writes into it.
var rootPath = []byte{}

// hashRoot hashes blob, the root node, at once, and reports it.
func (b *batcher) hashRoot(blob []byte) [32]byte {
	b.hasher.sum(blob, &b.digest)
	if b.onNode != nil {
		b.onNode(rootPath, b.digest, blob)
	}
	return b.digest
}

// deliver puts the hash of job j where it belongs and retires the job.
func (b *batcher) deliver(j int32, hash *[32]byte) {
	jb := &b.jobs[j]
	switch to := jb.to; to.kind {
	case toJob:
		parent := &b.jobs[to.index]
		copy32(parent.blob[to.at:to.at+32], hash[:])
		if parent.waiting--; parent.waiting == 0 {
			b.enqueue(to.index)
		}
	case toFrame:
		b.trie.fillSlot(to.index, to.at, hash)
	default:
		b.trie.deliver(to, hash)
	}
	if j >= b.laneJobs || b.onNode != nil {
		b.retire(j, jb, hash) // a lane's own job has nothing else to do
	}
}

// retire passes a hashed node to onNode and frees its job, j, at jb.
func (b *batcher) retire(j int32, jb *job, hash *[32]byte) {
	if b.onNode != nil {
		b.onNode(jb.path, *hash, jb.blob)
	}
	if j >= b.laneJobs {
		b.free = append(b.free, j)
		b.outstanding--
	}
}

// mustHash reports whether the lanes have to run: jobs are ready, every
// lane is busy, or too many jobs are out. Where it holds, hash(false)
// hashes ready jobs while they fill every lane, or while too many are out,
// and leaves a partial batch to wait for more work. Most pairs find nothing
// to do, which this settles inline, before a call.
func (b *batcher) mustHash() bool {
	return b.lanes != nil && (len(b.ready) != 0 || !b.canWait())
}

// canWait reports whether the lanes may wait for more ready jobs rather
// than run with a lane empty: one is idle, and not too many jobs are out.
func (b *batcher) canWait() bool {
	return b.lanes.hasIdle() && b.outstanding < maxOutstanding
}

// drain hashes every job, whether or not the lanes are full.
func (b *batcher) drain() { b.hash(true) }

func (b *batcher) hash(drain bool) {
	l := b.lanes
	if l == nil {
		return
	}
	for {
		for l.hasIdle() && len(b.ready) > 0 {
			j := b.ready[len(b.ready)-1]
			b.ready = b.ready[:len(b.ready)-1]
			l.start(j, b.jobs[j].blob)
		}
		if l.allIdle() {
			return
		}
		if !drain && b.canWait() {
			return
		}
		for ended := l.step(); ended != 0; ended &= ended - 1 {
			i := bits.TrailingZeros8(ended)
			b.deliver(l.finish(i), &l.digests[i])
		}
	}
}

// reset drops every job, in flight or not. The free list hands the jobs out
// again from job 0 up, the order in which addJob made them, so that the
// same stream gives every job the same nodes as before, and no blob grows.
func (b *batcher) reset() {
	b.free = b.free[:0]
	for j := len(b.jobs) - 1; j >= int(b.laneJobs); j-- {
		b.free = append(b.free, int32(j))
	}
	b.ready = b.ready[:0]
	b.outstanding = 0
	if b.lanes != nil {
		b.lanes.reset()
	}
}

package state

// This file holds the job, the unit of work the Builder's goroutines pass
// around, and how a full job is cut so that large tries stream in chunks.

import (
	"encoding/binary"
	"math/bits"

	"github.com/stacktrie/stacktrie"
)

// A job is the unit of work the Builder hands to its workers: pairs of
// 32-byte keys and their values, back to back in buffers that are reused
// from job to job, the items they belong to, and the Trie that builds them.
// Jobs are sized so that a handful per worker bound the Builder's memory.
// Each job keeps its own Trie, rather than each worker, so that the buffers
// a stream grows do not depend on which worker took which job: the same
// stream again allocates nothing.
type job struct {
	keys   []stacktrie.Hash
	ends   []int32 // the end of each pair's value in values
	values []byte
	items  []item

	// tops holds, for items that are chunks of a larger trie, the tops of
	// their groups (see groupDepth) in the binary form of
	// stacktrie.Subtrie, back to back; topEnds the end of each.
	tops    []byte
	topEnds []int32

	trie  *stacktrie.Trie
	owner stacktrie.Hash // the owner of the item being built, for the node callback
	done  chan struct{}  // a worker signals here when it has built the job
}

// An item is the pairs of one trie in a job, or a chunk of them.
type item struct {
	owner      stacktrie.Hash // the account whose storage the pairs are; zero in the account trie
	first, end int32          // the item's pairs
	hasBefore  bool           // whether the trie has keys before the item's: a chunk after another
	hasAfter   bool           // whether it has keys after the item's
	before     stacktrie.Hash // the key just before the item's, if any
	after      stacktrie.Hash // the key just after the item's, if any
	root       stacktrie.Hash // a whole trie's root, set by the worker
	topsFrom   int32          // a chunk's tops in topEnds, set by the worker
	topsTo     int32
	closes     bool    // in a storage job: the account's storage ends with this item
	account    Account // for closes: the account as read
	slots      uint64  // for closes: how many slots the account has
}

// whole reports whether the item holds all the keys of its trie.
func (it *item) whole() bool {
	return !it.hasBefore && !it.hasAfter
}

// Job limits: a job is full once it holds jobPairs pairs, jobValueBytes of
// values or jobItems items; only a single value larger than that makes a job
// grow past them.
const (
	jobPairs      = 1024
	jobValueBytes = 64 << 10
	jobItems      = 512
)

// newJob returns an empty job with room for items items, whose Trie reports
// to the node callback reporter makes of it.
func newJob(items int, reporter func(owner *stacktrie.Hash) stacktrie.NodeFunc) *job {
	j := &job{
		keys:    make([]stacktrie.Hash, 0, jobPairs+1),
		ends:    make([]int32, 0, jobPairs+1),
		values:  make([]byte, 0, jobValueBytes+4<<10),
		items:   make([]item, 0, items),
		tops:    make([]byte, 0, 16<<10),
		topEnds: make([]int32, 0, 256),
		done:    make(chan struct{}, 1),
	}
	j.trie = stacktrie.New(reporter(&j.owner))
	return j
}

func (j *job) full() bool {
	return len(j.keys) >= jobPairs || len(j.values) >= jobValueBytes || len(j.items) >= jobItems
}

func (j *job) reset() {
	j.keys, j.ends, j.values, j.items = j.keys[:0], j.ends[:0], j.values[:0], j.items[:0]
	j.tops, j.topEnds = j.tops[:0], j.topEnds[:0]
}

// add appends a pair.
func (j *job) add(key *stacktrie.Hash, value []byte) {
	j.keys = append(j.keys, *key)
	j.values = append(j.values, value...)
	j.ends = append(j.ends, int32(len(j.values)))
}

// addAccount appends a pair of the account trie: the key and the account's
// consensus encoding, written in place.
func (j *job) addAccount(key *stacktrie.Hash, a *Account) {
	j.keys = append(j.keys, *key)
	j.values = a.AppendRLP(j.values)
	j.ends = append(j.ends, int32(len(j.values)))
}

// lastKey is the key of the last pair; the job must hold one.
func (j *job) lastKey() *stacktrie.Hash { return &j.keys[len(j.keys)-1] }

// value is the value of pair i.
func (j *job) value(i int32) []byte {
	start := int32(0)
	if i > 0 {
		start = j.ends[i-1]
	}
	return j.values[start:j.ends[i]]
}

// top is the binary Subtrie of top t.
func (j *job) top(t int32) []byte {
	start := int32(0)
	if t > 0 {
		start = j.topEnds[t-1]
	}
	return j.tops[start:j.topEnds[t]]
}

// moveTail moves the pairs from first on to the end of dst.
func (j *job) moveTail(dst *job, first int32) {
	start := int32(0)
	if first > 0 {
		start = j.ends[first-1]
	}
	dst.keys = append(dst.keys, j.keys[first:]...)
	base := int32(len(dst.values)) - start
	for _, end := range j.ends[first:] {
		dst.ends = append(dst.ends, end+base)
	}
	dst.values = append(dst.values, j.values[start:]...)
	j.keys, j.ends, j.values = j.keys[:first], j.ends[:first], j.values[:start]
}

// cut chooses where a chunk of the pairs from first on ends, when the job
// is full: at the boundary between two adjacent pairs in the later half
// whose keys share the fewest nibbles, the latest of those, so that the
// chunk's groups are few and large. It returns the index of the chunk's last
// pair; at least one pair follows it, so there must be two from first on.
func (j *job) cut(first int32) int32 {
	n := int32(len(j.keys))
	last, fewest := n-2, 65
	for i := n - 2; i >= first+(n-first)/2-1 && i >= first; i-- {
		if shared := sharedNibbles(&j.keys[i], &j.keys[i+1]); shared < fewest {
			last, fewest = i, shared
		}
	}
	return last
}

// sharedNibbles is how many leading nibbles a and b have in common.
func sharedNibbles(a, b *stacktrie.Hash) int {
	for i := 0; i < len(a); i += 8 {
		if x := binary.BigEndian.Uint64(a[i:]) ^ binary.BigEndian.Uint64(b[i:]); x != 0 {
			return 2*i + bits.LeadingZeros64(x)/4
		}
	}
	return 2 * len(a)
}

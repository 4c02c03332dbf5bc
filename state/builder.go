package state

// This file is the Builder's public side: reading the flat state stream
// on the caller's goroutine, checking its order and cutting it into jobs.

import (
	"encoding/binary"
	"fmt"
	"runtime"

	"github.com/stacktrie/stacktrie"
)

// NodeFunc receives a node of the state when it is final: owner is the
// hashed address of the account whose storage trie holds it, or zero for the
// account trie, and path, hash and blob are as stacktrie.NodeFunc gives
// them, path from the root of the node's own trie. That is how go-ethereum's
// path scheme keys trie nodes. The slices are valid only during the call.
type NodeFunc func(owner stacktrie.Hash, path []byte, hash stacktrie.Hash, blob []byte)

// Options configure a Builder.
type Options struct {
	// Workers is how many goroutines hash; <= 0 means GOMAXPROCS. For a
	// stream, two more goroutines complete the accounts and combine the
	// tries in order, with little hashing, and the caller's only reads and
	// copies the stream; HashAll hashes on the caller's goroutine and
	// Workers-1 more.
	Workers int
	// OnNode, if not nil, receives every node of the account trie and of
	// every storage trie that a database would store, each after its hashed
	// descendants in the same trie.
	OnNode NodeFunc
	// OnAccount, if not nil, receives every account in stream order, once
	// its storage root is computed.
	OnAccount func(AccountResult)
}

// Builder computes the state root from go-ethereum's flat state: accounts in
// ascending order of hashed address, each followed by its storage slots in
// ascending order of hashed slot key. The leaf of each account holds the
// storage root computed from its slots, as go-ethereum's trie generation
// does, and an account whose encoding holds another root is counted as a
// mismatch and reported with OnAccount.
//
// The Builder hashes on Options.Workers goroutines: the storage tries of
// different accounts at once, a large storage trie in chunks built at once,
// and the account trie in chunks as well. It holds a fixed number of jobs of
// bounded size, so that its memory depends on the number of workers, not on
// the number of accounts or on the slots of one account; when the workers
// fall behind, AddAccount and AddSlot wait. OnNode and OnAccount are called
// from the Builder's goroutines, one call at a time, and must not call back
// into the Builder.
//
// A Builder is not safe for concurrent use. Once it has seen a stream, it
// makes no heap allocation for another like it. Close it when done: it ends
// the goroutines, which otherwise end only once the Builder is garbage.
type Builder struct {
	*pipeline

	cur      *job // the storage job being filled
	started  bool // an account was read
	finished bool
	result   Result // the stream's counts so far; its root once finished

	// The account being read.
	address   stacktrie.Hash
	account   Account
	slots     uint64
	firstPair int32 // its first pair in cur
	chunked   bool  // its storage is sent in chunks, the last ending at before
	before    stacktrie.Hash
	hasSlot   bool // its last slot is the last key of cur

	cleanup runtime.Cleanup

	mem        *memory // HashAll's workers, made by its first call
	memCleanup runtime.Cleanup
}

// NewBuilder returns a Builder for one stream at a time. Its goroutines
// start with the first account.
func NewBuilder(opts Options) *Builder {
	return &Builder{pipeline: newPipeline(opts)}
}

// AddAccount starts the next account: hashedAddress is the Keccak-256 hash
// of its address, above the previous account's, and account its slim or full
// RLP, as Account.DecodeRLP reads it. It ends the previous account's storage.
//
// A refused account, with an error wrapping ErrAccountOrder, ErrAccount or
// ErrFinished, changes nothing: the caller may go on, and the root is that
// of the accepted accounts and slots.
func (b *Builder) AddAccount(hashedAddress stacktrie.Hash, account []byte) error {
	if b.finished {
		return ErrFinished
	}
	if b.started && !above(&hashedAddress, &b.address) {
		return accountOrderError(&hashedAddress, &b.address)
	}
	var a Account
	if err := a.DecodeRLP(account); err != nil {
		return accountDecodeError(&hashedAddress, err)
	}
	if b.started {
		b.endAccount()
	} else {
		b.begin()
	}
	b.address, b.account, b.slots = hashedAddress, a, 0
	b.firstPair = int32(len(b.job().keys))
	b.chunked, b.hasSlot = false, false
	b.result.Accounts++
	return nil
}

// AddSlot adds a storage slot to the current account: hashedSlot is the
// Keccak-256 hash of the slot's key, above the account's previous slot, and
// value the slot's value as go-ethereum's snapshot stores it, the RLP of the
// value without leading zero bytes, which is the storage trie's leaf value.
//
// A refused slot, with an error wrapping ErrSlotOrder (also for a slot
// before any account), ErrEmptySlot or ErrFinished, changes nothing.
func (b *Builder) AddSlot(hashedSlot stacktrie.Hash, value []byte) error {
	switch {
	case b.finished:
		return ErrFinished
	case !b.started:
		return fmt.Errorf("%w: slot %s before any account", ErrSlotOrder, hashedSlot)
	case len(value) == 0:
		return emptySlotError(&hashedSlot, &b.address)
	case b.hasSlot && !above(&hashedSlot, b.cur.lastKey()):
		return slotOrderError(&hashedSlot, b.cur.lastKey(), &b.address)
	}
	j := b.job()
	j.add(&hashedSlot, value)
	b.hasSlot = true
	b.slots++
	b.result.Slots++
	if j.full() {
		b.split()
	}
	return nil
}

// Finish waits for the workers and returns the state root of the stream,
// EmptyRoot if it had no account, with its counts. It may be called again
// and returns the same; AddAccount and AddSlot are refused until Reset.
func (b *Builder) Finish() Result {
	if b.finished {
		return b.result
	}
	b.finished = true
	b.result.Root = stacktrie.EmptyRoot
	if !b.started {
		return b.result
	}
	b.endAccount()
	if b.cur != nil {
		b.flush()
	}
	b.result.Root = b.endStream()
	b.result.Mismatches = b.mismatches
	return b.result
}

// Reset readies the Builder for a new stream, keeping its goroutines and
// buffers. A stream not finished is dropped, once the jobs already handed
// to the workers are built, and OnNode and OnAccount may still be called for
// those before Reset returns.
func (b *Builder) Reset() {
	if b.started && !b.finished {
		if b.cur != nil {
			b.cur.reset()
			b.freeStorage <- b.cur
			b.cur = nil
		}
		b.endStream()
	}
	b.started, b.finished = false, false
	b.result = Result{}
}

// Close ends the goroutines, dropping a stream not finished as Reset does;
// the result of a finished one stays. The Builder stays usable: the next
// stream starts the goroutines again. Close may be called any number of
// times; it returns nil, and has an error for io.Closer.
func (b *Builder) Close() error {
	if !b.finished {
		b.Reset()
	}
	if b.running {
		b.cleanup.Stop()
		b.stop()
	}
	if b.mem != nil && b.mem.running {
		b.memCleanup.Stop()
		b.mem.stop()
	}
	return nil
}

// begin opens a stream, starting the goroutines if they are not running and
// arranging for them to end if the Builder is dropped without Close.
func (b *Builder) begin() {
	if !b.running {
		b.start()
		b.cleanup = runtime.AddCleanup(b, (*pipeline).stop, b.pipeline)
	}
	b.started, b.streaming = true, true
}

// job returns the storage job being filled, taking a free one if needed.
func (b *Builder) job() *job {
	if b.cur == nil {
		b.cur = <-b.freeStorage
	}
	return b.cur
}

// flush hands the storage job being filled to the workers.
func (b *Builder) flush() {
	b.pipeline.send(b.cur, b.storageOrder)
	b.cur = nil
}

// endAccount ends the current account's storage in the job being filled.
func (b *Builder) endAccount() {
	j := b.job()
	j.items = append(j.items, item{
		owner: b.address, first: b.firstPair, end: int32(len(j.keys)),
		hasBefore: b.chunked, before: b.before,
		closes: true, account: b.account, slots: b.slots,
	})
	if j.full() {
		b.flush()
	}
}

// split makes room when the job being filled is full in the middle of an
// account's storage. If the account has few of the job's pairs, they move
// whole to the next job; if it has most of them, the job ends with a chunk of
// them, cut where few nibbles are shared so that its groups are few (see
// job.cut), and the rest move on. A single pair is never cut: a job that
// holds only one of the account's pairs grows until it holds two.
func (b *Builder) split() {
	j := b.cur
	n := int32(len(j.keys))
	own := n - b.firstPair
	if own < 2 && b.firstPair == 0 {
		return
	}
	from := b.firstPair
	if own >= 2 && (b.firstPair == 0 || 2*own >= n) {
		last := j.cut(b.firstPair)
		j.items = append(j.items, item{
			owner: b.address, first: b.firstPair, end: last + 1,
			hasBefore: b.chunked, before: b.before,
			hasAfter: true, after: j.keys[last+1],
		})
		b.before, b.chunked = j.keys[last], true
		from = last + 1
	}
	next := <-b.freeStorage
	j.moveTail(next, from)
	b.flush()
	b.cur, b.firstPair = next, 0
}

// above reports whether hash a comes after hash b. Every slot of the stream
// is checked on the caller's goroutine, whose time the workers' cannot
// hide once every core hashes: four word compares, most often one, cost
// less there than a call to bytes.Compare.
func above(a, b *stacktrie.Hash) bool {
	for i := 0; i < len(a); i += 8 {
		if x, y := binary.BigEndian.Uint64(a[i:]), binary.BigEndian.Uint64(b[i:]); x != y {
			return x > y
		}
	}
	return false
}

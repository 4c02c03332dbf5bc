package state

// This file builds a state the caller holds in memory all at once. The
// workers read its accounts and slots where they lie, so that no goroutine
// copies a stream into jobs or completes accounts in order: with one worker
// everything runs on the caller's goroutine, and with more, every goroutine
// hashes.

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/stacktrie/stacktrie"
)

// FlatAccount is an account of a flat state held in memory, with its
// storage, as HashAll takes it.
type FlatAccount struct {
	Hash  stacktrie.Hash // the Keccak-256 hash of the address
	RLP   []byte         // the account's slim or full RLP, as Account.DecodeRLP reads it
	Slots []FlatSlot     // the account's storage, in ascending order of Hash
}

// FlatSlot is a storage slot of a FlatAccount: Hash is the Keccak-256 hash
// of the slot's key, and Value the slot's value as AddSlot takes it.
type FlatSlot struct {
	Hash  stacktrie.Hash
	Value []byte
}

// HashAll returns the state root of accounts, with their counts, as
// AddAccount and AddSlot for each account and slot in turn and then Finish
// would. It copies nothing: the workers take the accounts in 256 ranges of
// hashed address, each range's storage tries and its part of the account
// trie, and read them where they are; a storage trie that holds a large
// share of the slots is first built by all of them at once, in 256 ranges of
// hashed slot. With one worker, all of it runs on the caller's goroutine.
// accounts must not change until HashAll returns.
//
// OnNode is called as for a stream. OnAccount is called for every account,
// in order within each range of addresses whose hashes share their first
// byte, the ranges in any order.
//
// A stream begun with AddAccount must be finished or reset first: HashAll
// refuses it with ErrStreamOpen. Accounts and slots AddAccount or AddSlot
// would refuse are refused with the error they give for the first of them.
// A refused call changes nothing, and with OnNode or OnAccount set the input
// is checked before anything is reported. Afterwards the Builder is as after
// Finish, which returns the same Result, until Reset.
func (b *Builder) HashAll(accounts []FlatAccount) (Result, error) {
	if b.started && !b.finished {
		return Result{}, ErrStreamOpen
	}
	if b.onNode != nil || b.onAccount != nil {
		if err := firstRefused(accounts); err != nil {
			return Result{}, err
		}
	}
	b.startMemory()
	result, ok := b.mem.build(accounts)
	if !ok {
		if err := firstRefused(accounts); err != nil {
			return Result{}, err
		}
		// Not reached: a worker refuses only what AddAccount or AddSlot would.
		return Result{}, fmt.Errorf("%w: accounts out of order", ErrAccountOrder)
	}
	b.started, b.finished, b.result = true, true, result
	return result, nil
}

// startMemory makes HashAll's workers the first time, and starts its
// helpers if they are not running, arranging for them to end if the Builder
// is dropped without Close.
func (b *Builder) startMemory() {
	if b.mem == nil {
		b.mem = newMemory(b.pipeline)
	}
	if !b.mem.running && b.mem.helpers > 0 {
		b.mem.start()
		b.memCleanup = runtime.AddCleanup(b, (*memory).stop, b.mem)
	}
}

// firstRefused returns the error AddAccount or AddSlot gives for the first
// account or slot of accounts that it refuses, or nil if they take them all.
func firstRefused(accounts []FlatAccount) error {
	var a Account
	for i := range accounts {
		acc := &accounts[i]
		if i > 0 && !above(&acc.Hash, &accounts[i-1].Hash) {
			return accountOrderError(&acc.Hash, &accounts[i-1].Hash)
		}
		if err := a.DecodeRLP(acc.RLP); err != nil {
			return accountDecodeError(&acc.Hash, err)
		}
		for k := range acc.Slots {
			s := &acc.Slots[k]
			switch {
			case len(s.Value) == 0:
				return emptySlotError(&s.Hash, &acc.Hash)
			case k > 0 && !above(&s.Hash, &acc.Slots[k-1].Hash):
				return slotOrderError(&s.Hash, &acc.Slots[k-1].Hash, &acc.Hash)
			}
		}
	}
	return nil
}

// ranges is how many parts HashAll cuts the account trie, and a large
// storage trie, into: one per first byte of the hashed keys.
const ranges = 256

// A storage trie is built in ranges, by every worker at once, once it holds
// 1/splitShare of one worker's share of the slots and at least minSplitSlots:
// the ranges of addresses are taken by whichever worker is free, and a trie
// that alone is a large share of the work would leave the others idle at
// the end. At most splitShare tries per worker are split, which bounds the
// memory their tops take.
const (
	splitShare    = 16
	minSplitSlots = 2048
)

// rootsWindow is how many accounts of a range have their storage tries
// ended with HashLater before their roots are flushed into their leaves.
const rootsWindow = 256

// groupsPerWorker is how many groups of tasks each worker has to take from.
// The tasks of a phase are dealt into groups, each with its own tries, which
// any worker takes whole, whichever is free: so a group's tries build the
// same tasks in every call, and grow their buffers in the first, whichever
// worker takes them; and a worker slowed down leaves the others to take
// more groups, while the last group taken leaves the others idle for a
// small share of the work. A group's tries and roots take about 50 KB.
const groupsPerWorker = 16

// memory is the workers of HashAll and what they share during a call.
type memory struct {
	p       *pipeline // the Builder's callbacks and the lock that serializes them
	helpers int       // the workers besides the caller's goroutine
	groups  []*memoryGroup
	wake    chan struct{} // one send per helper per phase
	phase   func(*memoryGroup, *memory, int)
	tasks   int
	next    atomic.Int64 // the next group to take in the phase
	done    sync.WaitGroup
	exited  sync.WaitGroup
	running bool // the helpers run

	accounts    []FlatAccount
	split       []int32        // the accounts whose storage is built in ranges, ascending
	splitTops   [][]byte       // the binary Subtrie of range r of split[s] at s*ranges+r
	accountTops [ranges][]byte // the binary Subtrie of each range of the account trie
	top         *stacktrie.Trie
	topOwner    stacktrie.Hash // zero: the account trie's nodes have no owner
}

// A memoryGroup holds the tries and buffers of a group of tasks.
type memoryGroup struct {
	storage  *stacktrie.Trie
	accounts *stacktrie.Trie
	owner    stacktrie.Hash // the storage trie being built, for the node callback
	noOwner  stacktrie.Hash // zero, for the account trie's nodes
	roots    [rootsWindow]stacktrie.Hash
	leaf     []byte
	account  Account

	mismatches uint64
	refused    bool // an account or slot was refused during the call
}

func newMemory(p *pipeline) *memory {
	groups := 1
	if p.workers > 1 {
		groups = min(ranges, groupsPerWorker*p.workers)
	}
	m := &memory{p: p, helpers: p.workers - 1, groups: make([]*memoryGroup, groups)}
	for i := range m.groups {
		g := &memoryGroup{leaf: make([]byte, 0, 128)}
		g.storage = stacktrie.New(p.reporter(&g.owner))
		g.accounts = stacktrie.New(p.reporter(&g.noOwner))
		m.groups[i] = g
	}
	m.top = stacktrie.New(p.reporter(&m.topOwner))
	return m
}

// build has the workers build accounts and reports whether they took every
// account and slot; the Result is then the state's.
//
// Range r of a sorted slice starts at the first hash whose first byte is r
// or more, found by binary search. Whatever the hashes, a binary search ends
// between a hash it found below r and one it found at r or more: each range
// starts at r or more and ends below r+1, and its Trie checks that its keys
// ascend, so that all of them start with r, and the ranges follow each other
// in order. Nothing is left to check across ranges.
func (m *memory) build(accounts []FlatAccount) (Result, bool) {
	m.accounts = accounts
	defer func() { m.accounts = nil }()
	result := Result{Root: stacktrie.EmptyRoot, Accounts: uint64(len(accounts))}
	for i := range accounts {
		result.Slots += uint64(len(accounts[i].Slots))
	}
	m.split = m.split[:0]
	if m.helpers > 0 {
		least := max(minSplitSlots, result.Slots/uint64(splitShare*(m.helpers+1)))
		for i := range accounts {
			if uint64(len(accounts[i].Slots)) >= least {
				m.split = append(m.split, int32(i))
			}
		}
	}
	for len(m.splitTops) < len(m.split)*ranges {
		m.splitTops = append(m.splitTops, nil)
	}
	for _, g := range m.groups {
		g.mismatches, g.refused = 0, false
	}
	m.run((*memoryGroup).buildStorageRange, len(m.split)*ranges)
	m.run((*memoryGroup).buildAccountRange, ranges)
	for _, g := range m.groups {
		if g.refused {
			return Result{}, false
		}
		result.Mismatches += g.mismatches
	}
	m.top.Reset()
	for _, top := range m.accountTops {
		if len(top) > 0 {
			_ = m.top.MountSubtrie(top) // in key order: cannot fail
		}
	}
	result.Root = m.top.Hash()
	return result, true
}

// buildStorageRange builds range r of a split storage trie, task t, into
// its Subtrie.
func (g *memoryGroup) buildStorageRange(m *memory, t int) {
	acc := &m.accounts[m.split[t/ranges]]
	r := t % ranges
	lo, hi := slotBound(acc.Slots, r), slotBound(acc.Slots, r+1)
	top := m.splitTops[t][:0]
	if lo < hi && !g.refused {
		g.owner = acc.Hash
		g.storage.Reset() // its jobs in their first order: see buildAccountRange
		for k := lo; k < hi; k++ {
			if g.storage.Update(acc.Slots[k].Hash[:], acc.Slots[k].Value) != nil {
				g.refused = true
				break
			}
		}
		top, _ = g.storage.AppendSubtrie(top) // not hashed: cannot fail
	}
	m.splitTops[t] = top
}

// buildAccountRange builds range r of the account trie into its Subtrie:
// the storage tries of its accounts, a window at a time, each ended with
// HashLater or mounted from its ranges if it was split, then their leaves.
func (g *memoryGroup) buildAccountRange(m *memory, r int) {
	lo, hi := accountBound(m.accounts, r), accountBound(m.accounts, r+1)
	m.accountTops[r] = m.accountTops[r][:0]
	if lo == hi || g.refused {
		return
	}
	// Reset puts the tries' jobs back in their first order, so that a range
	// built again takes the buffers it grew before.
	g.storage.Reset()
	g.accounts.Reset()
	s, _ := slices.BinarySearch(m.split, int32(lo))
	for start := lo; start < hi; start += rootsWindow {
		end := min(start+rootsWindow, hi)
		for i := start; i < end; i++ {
			acc := &m.accounts[i]
			g.owner = acc.Hash
			if s < len(m.split) && int(m.split[s]) == i {
				for _, top := range m.splitTops[s*ranges : (s+1)*ranges] {
					if len(top) > 0 {
						_ = g.storage.MountSubtrie(top) // in key order: cannot fail
					}
				}
				s++
			} else if !g.addSlots(acc.Slots) {
				return
			}
			g.storage.HashLater(&g.roots[i-start])
		}
		g.storage.Flush()
		for i := start; i < end; i++ {
			if !g.addLeaf(m, &m.accounts[i], &g.roots[i-start]) {
				return
			}
		}
	}
	m.accountTops[r], _ = g.accounts.AppendSubtrie(m.accountTops[r]) // not hashed: cannot fail
}

// addSlots puts an account's slots into the storage trie, and reports
// whether it took them all.
func (g *memoryGroup) addSlots(slots []FlatSlot) bool {
	for k := range slots {
		if g.storage.Update(slots[k].Hash[:], slots[k].Value) != nil {
			g.refused = true
			return false
		}
	}
	return true
}

// addLeaf puts an account's leaf, with its computed storage root, into the
// account trie and reports it, and reports whether the account was taken.
func (g *memoryGroup) addLeaf(m *memory, acc *FlatAccount, root *stacktrie.Hash) bool {
	if g.account.DecodeRLP(acc.RLP) != nil {
		g.refused = true
		return false
	}
	result := AccountResult{Hash: acc.Hash, Slots: uint64(len(acc.Slots)), StoredRoot: g.account.Root, ComputedRoot: *root}
	if result.Mismatch() {
		g.mismatches++
	}
	if p := m.p; p.onAccount != nil {
		p.report.Lock()
		p.onAccount(result)
		p.report.Unlock()
	}
	g.account.Root = *root
	g.leaf = g.account.AppendRLP(g.leaf[:0])
	if g.accounts.Update(acc.Hash[:], g.leaf) != nil {
		g.refused = true
		return false
	}
	return true
}

// accountBound is the first index of sorted accounts whose hash starts with
// byte r or more, by binary search.
func accountBound(accounts []FlatAccount, r int) int {
	i, _ := slices.BinarySearchFunc(accounts, r, func(a FlatAccount, r int) int { return int(a.Hash[0]) - r })
	return i
}

// slotBound is accountBound for slots.
func slotBound(slots []FlatSlot, r int) int {
	i, _ := slices.BinarySearchFunc(slots, r, func(s FlatSlot, r int) int { return int(s.Hash[0]) - r })
	return i
}

// run runs tasks tasks of a phase on every worker, the caller's goroutine
// among them, each group of them taken whole by whichever worker is free,
// and returns once all are done. Group g holds the g-th of len(m.groups)
// runs of tasks.
func (m *memory) run(phase func(*memoryGroup, *memory, int), tasks int) {
	if tasks == 0 {
		return
	}
	m.phase, m.tasks = phase, tasks
	m.next.Store(0)
	m.done.Add(m.helpers)
	for range m.helpers {
		m.wake <- struct{}{}
	}
	m.work()
	m.done.Wait()
}

// work runs groups of the current phase until none is left.
func (m *memory) work() {
	n := len(m.groups)
	for {
		g := int(m.next.Add(1) - 1)
		if g >= n {
			return
		}
		for t := g * m.tasks / n; t < (g+1)*m.tasks/n; t++ {
			m.phase(m.groups[g], m, t)
		}
	}
}

// help is a helper's goroutine. A helper that wakes twice in one phase,
// where another has not woken yet, only finds no task left: every wake is
// matched by one Done either way.
func (m *memory) help() {
	defer m.exited.Done()
	for range m.wake {
		m.work()
		m.done.Done()
	}
}

// start starts the helpers.
func (m *memory) start() {
	m.running = true
	m.wake = make(chan struct{}, m.helpers)
	m.exited.Add(m.helpers)
	for range m.helpers {
		go m.help()
	}
}

// stop ends the helpers. A Builder's cleanup calls it when the Builder is
// dropped without Close.
func (m *memory) stop() {
	if !m.running {
		return
	}
	close(m.wake)
	m.exited.Wait()
	m.running = false
}

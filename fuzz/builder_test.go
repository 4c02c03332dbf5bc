package fuzz

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/holiman/uint256"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/reftrie"
	"github.com/stacktrie/stacktrie/state"
)

// FuzzStateBuilder feeds a flat state stream drawn from the input to a
// state.Builder on one to four workers, with calls out of order, malformed
// accounts, empty slots, adds after Finish, Reset and Close in between. A
// model decides each call's verdict apart from the Builder, reading
// accounts with the oracle decoder of FuzzAccountRLP; each refused call
// must wrap the model's sentinel and change nothing. At each Finish the
// root, the counts, every account's report and every node of every trie
// must be the reference trie's over the calls the model accepted, and no
// two of the Builder's callbacks may have run at once.
//
// The first byte picks the workers, whether the Builder has OnNode (a
// regeneration, whose nodes are checked) or not (a check, which hashes
// small tries side by side), and whether it has OnAccount (without it,
// HashAll checks the order only on its workers). Then each op byte, modulo
// 7, says: add an account (the next byte its hashed address, then how to
// encode it), add a slot (its key byte, value size and value), add a run of
// up to 2,041 slots whose keys count up in a window of the key (large enough
// for the Builder to cut a storage trie into chunks), Reset, Finish and
// start a new stream, Close, or give HashAll a state of its own (see
// readFlatState): refused with ErrStreamOpen while a stream is open, else
// with the model's verdict on its accounts and slots in turn, or checked as
// Finish is, its reports in any order across ranges of first hash byte.
func FuzzStateBuilder(f *testing.F) {
	seed := func(workers byte, ops ...[]byte) { f.Add(append([]byte{workers}, bytes.Join(ops, nil)...)) }
	// A slot before any account, two accounts, the first with two slots.
	seed(0, []byte{1, 1, 1, 5}, []byte{0, 5, 1, 0}, []byte{1, 0x10, 3, 7, 8, 9}, []byte{1, 0x20, 1, 0x33}, []byte{0, 9, 0x29, 4})
	// On two workers, a run of 1,601 slots between accounts, enough to be
	// cut into chunks of the Builder's 1,024 pairs; Finish, adds after it,
	// and a second stream.
	seed(1, []byte{0, 3, 1, 2}, []byte{2, 200, 27, 0, 0x10}, []byte{0, 9, 5, 1}, []byte{1, 1, 1, 0xaa},
		[]byte{4, 1, 7}, []byte{0, 1, 0x41, 1}, []byte{1, 2, 1, 0xbb})
	// On three workers, a malformed account (a list of three), a run of 41
	// slots, Close in the middle of the stream, Reset, a slot out of order.
	seed(2, []byte{0, 3, 0, 4, 0xc3, 0x80, 0x80, 0x80}, []byte{0, 4, 2, 6}, []byte{2, 5, 40, 1, 0x40},
		[]byte{5}, []byte{0, 6, 0x4a, 1}, []byte{1, 7, 2, 1, 2}, []byte{3}, []byte{0, 8, 1, 1}, []byte{1, 9, 1, 1}, []byte{1, 8, 1, 1})
	// On two workers without callbacks, HashAll of two accounts, the second
	// with a run of 3,201 slots over 200 first bytes: built in ranges.
	seed(13, []byte{6, 2}, []byte{0x21, 1, 5, 0}, []byte{0x41, 1, 6, 0x80, 200, 0, 52, 0x33})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &reader{data}
		rec := &builderRecorder{nodes: map[stacktrie.Hash][]reported{}}
		setup := r.byte()
		opts := state.Options{Workers: 1 + int(setup%4), OnNode: rec.onNode, OnAccount: rec.onAccount}
		if setup&4 != 0 { // checking rather than regenerating: the Builder hashes without a node callback
			opts.OnNode, rec.withoutNodes = nil, true
		}
		if setup&8 != 0 {
			opts.OnAccount, rec.withoutAccounts = nil, true
		}
		b := state.NewBuilder(opts)
		defer b.Close()
		m := &builderModel{}
		for len(r.data) > 0 && m.slotsTotal < maxBuilderSlots {
			switch op := r.byte(); op % 7 {
			case 0:
				owner := builderOwner(r.byte())
				encoded := builderAccount(r)
				checkVerdict(t, b.AddAccount(owner, encoded), m.addAccount(owner, encoded), "account %s %x", owner, encoded)
			case 1:
				slot := slotHash(r.byte())
				value := r.bytes(r.valueSize())
				checkVerdict(t, b.AddSlot(slot, value), m.addSlot(slot, value), "slot %s value %x", slot, value)
			case 2:
				run := readSlotRun(r, 8, 40)
				for i := range run.n {
					slot, value := run.slot(i)
					checkVerdict(t, b.AddSlot(slot, value), m.addSlot(slot, value), "slot %d of a run: %s", i, slot)
				}
			case 3:
				b.Reset()
				m.reset()
				rec.reset()
			case 4:
				res := b.Finish()
				m.checkFinish(t, res, rec)
				if again := b.Finish(); again != res {
					t.Fatalf("Finish again gives %+v, first %+v", again, res)
				}
				checkVerdict(t, b.AddAccount(builderOwner(0xff), builderAccount(r)), state.ErrFinished, "account after Finish")
				checkVerdict(t, b.AddSlot(slotHash(0xff), []byte{1}), state.ErrFinished, "slot after Finish")
				b.Reset()
				m.reset()
				rec.reset()
			case 5:
				if err := b.Close(); err != nil {
					t.Fatalf("Close: %v", err)
				}
				if !m.finished { // Close drops a stream not finished, as Reset does
					m.reset()
					rec.reset()
				}
			case 6:
				checkHashAll(t, b, m, rec, readFlatState(r))
			}
		}
		if !m.finished {
			m.checkFinish(t, b.Finish(), rec)
		}
	})
}

// maxBuilderSlots bounds the slots of one input, so that runs stay quick.
const maxBuilderSlots = 8_000

// builderOwner is ownerHash, but never zero, the account trie's owner in
// OnNode: its last byte is odd.
func builderOwner(b byte) stacktrie.Hash {
	h := ownerHash(b)
	h[len(h)-1] |= 1
	return h
}

// builderAccount reads an account's encoding: mostly a well-formed account,
// full or slim, encoded by the oracle's encoder, and one time in four raw
// bytes, which may or may not be an account.
func builderAccount(r *reader) []byte {
	k := r.byte()
	if k%4 == 0 {
		return r.bytes(int(r.byte() % 80))
	}
	a := state.Account{Nonce: uint64(r.byte()), Root: stacktrie.Hash{k}, CodeHash: stacktrie.Hash{1, k}}
	a.Balance.SetUint64(uint64(k) << (k % 64))
	if k&0x08 != 0 {
		a.Root = stacktrie.EmptyRoot
	}
	if k&0x10 != 0 {
		a.CodeHash = state.EmptyCodeHash
	}
	if k&0x20 != 0 {
		a.Balance.Lsh(uint256.NewInt(1), 255)
	}
	return encodeAccount(a, k&0x40 != 0)
}

// builderModel is the stream as the Builder should have taken it: the
// accepted accounts with their accepted slots.
type builderModel struct {
	accounts   []modelStateAccount
	finished   bool
	slotsTotal int // every slot offered, accepted or not, over all streams
}

type modelStateAccount struct {
	hash    stacktrie.Hash
	account state.Account
	storage *reftrie.Trie
	slots   uint64
	last    stacktrie.Hash // the last accepted slot
}

// addAccount returns the sentinel the Builder must refuse the account
// with, or nil, in which case the account is added.
func (m *builderModel) addAccount(hash stacktrie.Hash, encoded []byte) error {
	if m.finished {
		return state.ErrFinished
	}
	if n := len(m.accounts); n > 0 && string(hash[:]) <= string(m.accounts[n-1].hash[:]) {
		return state.ErrAccountOrder
	}
	a, ok := accountOracle(encoded)
	if !ok {
		return state.ErrAccount
	}
	m.accounts = append(m.accounts, modelStateAccount{hash: hash, account: a, storage: reftrie.New()})
	return nil
}

// addSlot is addAccount for a slot of the last account.
func (m *builderModel) addSlot(slot stacktrie.Hash, value []byte) error {
	m.slotsTotal++
	n := len(m.accounts)
	switch {
	case m.finished:
		return state.ErrFinished
	case n == 0:
		return state.ErrSlotOrder
	case len(value) == 0:
		return state.ErrEmptySlot
	}
	a := &m.accounts[n-1]
	if a.slots > 0 && string(slot[:]) <= string(a.last[:]) {
		return state.ErrSlotOrder
	}
	a.storage.Put(slot[:], value)
	a.slots++
	a.last = slot
	return nil
}

func (m *builderModel) reset() {
	m.accounts = m.accounts[:0]
	m.finished = false
}

// checkVerdict fails unless got is want, or wraps it.
func checkVerdict(t *testing.T, got, want error, format string, args ...any) {
	t.Helper()
	if want == nil && got != nil || want != nil && !errors.Is(got, want) {
		t.Fatalf(format+": got %v, want %v", append(args, got, want)...)
	}
}

// checkFinish checks a Finish against the reference trie over the
// accepted accounts, each account's leaf holding the root of its slots.
func (m *builderModel) checkFinish(t *testing.T, got state.Result, rec *builderRecorder) {
	t.Helper()
	m.finished = true
	if n := rec.overlaps.Load(); n > 0 {
		t.Fatalf("%d callbacks made while another ran", n)
	}
	accountTrie := reftrie.New()
	want := state.Result{Root: stacktrie.EmptyRoot, Accounts: uint64(len(m.accounts))}
	var owners int
	if !rec.withoutAccounts && len(rec.accounts) != len(m.accounts) {
		t.Fatalf("%d accounts reported, want %d", len(rec.accounts), len(m.accounts))
	}
	for i, a := range m.accounts {
		nodes := a.storage.Nodes() // the root last, if any
		computed := stacktrie.EmptyRoot
		if len(nodes) > 0 {
			computed = stacktrie.Hash(nodes[len(nodes)-1].Hash)
			owners++
		}
		report := state.AccountResult{Hash: a.hash, Slots: a.slots, StoredRoot: a.account.Root, ComputedRoot: computed}
		if !rec.withoutAccounts && rec.accounts[i] != report {
			t.Fatalf("account %d reported as %+v, want %+v", i, rec.accounts[i], report)
		}
		want.Slots += a.slots
		if computed != a.account.Root {
			want.Mismatches++
		}
		if !rec.withoutNodes {
			checkNodes(t, nodes, rec.nodes[a.hash])
		}
		leaf := a.account
		leaf.Root = computed
		accountTrie.Put(a.hash[:], encodeAccount(leaf, false))
	}
	if nodes := accountTrie.Nodes(); len(nodes) > 0 {
		want.Root = stacktrie.Hash(nodes[len(nodes)-1].Hash)
		owners++
		if !rec.withoutNodes {
			checkNodes(t, nodes, rec.nodes[stacktrie.Hash{}])
		}
	}
	if got != want {
		t.Fatalf("Finish gives %+v, want %+v", got, want)
	}
	if rec.withoutNodes {
		owners = 0
	}
	if len(rec.nodes) != owners {
		t.Fatalf("nodes reported for %d tries, want %d", len(rec.nodes), owners)
	}
}

// builderRecorder keeps what the Builder reports. The Builder promises to
// make one call at a time; calls that overlap are counted.
type builderRecorder struct {
	nodes           map[stacktrie.Hash][]reported
	accounts        []state.AccountResult
	withoutNodes    bool // the Builder has no OnNode
	withoutAccounts bool // the Builder has no OnAccount
	inCall          atomic.Int32
	overlaps        atomic.Int32
}

func (r *builderRecorder) enter() {
	if r.inCall.Add(1) != 1 {
		r.overlaps.Add(1)
	}
}

func (r *builderRecorder) onNode(owner stacktrie.Hash, path []byte, hash stacktrie.Hash, blob []byte) {
	r.enter()
	defer r.inCall.Add(-1)
	r.nodes[owner] = append(r.nodes[owner], reported{string(path), hash, string(blob)})
}

func (r *builderRecorder) onAccount(a state.AccountResult) {
	r.enter()
	defer r.inCall.Add(-1)
	r.accounts = append(r.accounts, a)
}

func (r *builderRecorder) reset() {
	clear(r.nodes)
	r.accounts = r.accounts[:0]
}

// slotRun is a run of slots whose keys count up in a window of the key.
type slotRun struct {
	n      int
	at     int    // where the count is written in the key
	step   uint64 // what it counts up by
	prefix byte
}

// readSlotRun reads a run of 1 + scale*b slots, b the next byte, counting
// up in steps of a power of two below 1<<stepBits.
func readSlotRun(r *reader, scale int, stepBits byte) slotRun {
	return slotRun{n: 1 + scale*int(r.byte()), at: int(r.byte() % 25), step: uint64(1) << (r.byte() % stepBits), prefix: r.byte()}
}

// slot is the run's slot i and its value.
func (run slotRun) slot(i int) (stacktrie.Hash, []byte) {
	slot := slotHash(run.prefix)
	binary.BigEndian.PutUint64(slot[run.at:], uint64(i+1)*run.step)
	return slot, []byte{byte(i), byte(i >> 8), run.prefix}[:1+i%3]
}

// readFlatState reads a state for HashAll: up to 16 accounts, each read as
// op 0 reads one, with up to 7 slots read as op 1 reads them, or a run of up
// to 4,081, enough for HashAll to build the trie in ranges on every worker;
// with a count at the key's start in large steps, the run spreads over many
// first bytes. Runs stop at maxBuilderSlots in all.
func readFlatState(r *reader) []state.FlatAccount {
	accounts := make([]state.FlatAccount, r.byte()%17)
	slots := 0
	for i := range accounts {
		a := &accounts[i]
		a.Hash = builderOwner(r.byte())
		a.RLP = builderAccount(r)
		if k := r.byte(); k&0x80 == 0 {
			for range k % 8 {
				a.Slots = append(a.Slots, state.FlatSlot{Hash: slotHash(r.byte()), Value: r.bytes(r.valueSize())})
			}
			continue
		}
		run := readSlotRun(r, 16, 64)
		run.n = min(run.n, max(maxBuilderSlots-slots, 1))
		slots += run.n
		a.Slots = make([]state.FlatSlot, run.n)
		for k := range a.Slots {
			a.Slots[k].Hash, a.Slots[k].Value = run.slot(k)
		}
	}
	return accounts
}

// checkHashAll gives accounts to b's HashAll. While a stream is open, it
// must be refused with ErrStreamOpen; otherwise a fresh model takes the
// accounts and slots in turn, and HashAll must refuse the first it refuses
// with its sentinel, reporting nothing, or give what Finish would give for
// the model's accounts. The Builder and m are then reset.
func checkHashAll(t *testing.T, b *state.Builder, m *builderModel, rec *builderRecorder, accounts []state.FlatAccount) {
	t.Helper()
	offered := &builderModel{slotsTotal: m.slotsTotal}
	want := offered.take(accounts)
	m.slotsTotal = offered.slotsTotal
	if len(m.accounts) > 0 && !m.finished {
		// The open stream's workers may report while HashAll runs: what
		// HashAll reported cannot be told apart, nor read without a race.
		_, err := b.HashAll(accounts)
		checkVerdict(t, err, state.ErrStreamOpen, "HashAll while a stream is open")
		return
	}
	res, err := b.HashAll(accounts)
	checkVerdict(t, err, want, "HashAll of %d accounts", len(accounts))
	if want != nil {
		if len(rec.nodes) != 0 || len(rec.accounts) != 0 {
			t.Fatalf("a refused HashAll (%v) reported %d owners' nodes and %d accounts", err, len(rec.nodes), len(rec.accounts))
		}
		return
	}
	var last [256]*stacktrie.Hash
	for i := range rec.accounts {
		h := &rec.accounts[i].Hash
		if prev := last[h[0]]; prev != nil && bytes.Compare(prev[:], h[:]) >= 0 {
			t.Fatalf("HashAll reported account %s after %s", h, prev)
		}
		last[h[0]] = h
	}
	slices.SortFunc(rec.accounts, func(a, b state.AccountResult) int { return bytes.Compare(a.Hash[:], b.Hash[:]) })
	m.accounts = offered.accounts
	m.checkFinish(t, res, rec)
	if again := b.Finish(); again != res {
		t.Fatalf("Finish after HashAll gives %+v, HashAll %+v", again, res)
	}
	b.Reset()
	m.reset()
	rec.reset()
}

// take adds accounts and their slots in turn and returns the sentinel of
// the first it refuses, or nil.
func (m *builderModel) take(accounts []state.FlatAccount) error {
	for _, a := range accounts {
		if err := m.addAccount(a.Hash, a.RLP); err != nil {
			return err
		}
		for _, sl := range a.Slots {
			if err := m.addSlot(sl.Hash, sl.Value); err != nil {
				return err
			}
		}
	}
	return nil
}

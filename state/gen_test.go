package state_test

import (
	"bytes"
	"math/rand/v2"
	"slices"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
	"github.com/stacktrie/stacktrie/state"
)

// A flat state as go-ethereum's snapshot holds it, for the tests to feed a
// Builder: accounts in ascending hashed-address order, each with its slots
// in ascending hashed-key order.
type flatState []flatAccount

type flatAccount struct {
	hash    stacktrie.Hash
	account state.Account // Root is the stored root, not always the slots'
	slim    bool          // fed in the slim encoding, else the full one
	encoded []byte        // the account as the stream gives it
	slots   []flatSlot
}

type flatSlot struct {
	hash  stacktrie.Hash
	value []byte
}

// stateShape describes a generated state: how many accounts, how many slots
// each has, how its keys are drawn.
type stateShape struct {
	name     string
	accounts int
	// slots returns the slot count of account i.
	slots func(r *rand.Rand, i int) int
	// clustered draws keys that share long prefixes in runs, so that chunks
	// cut deep and groups are small.
	clustered bool
	// longValues gives some slots values over 33 bytes, which snapshots
	// never hold but the Builder takes.
	longValues bool
}

func few(max int) func(*rand.Rand, int) int {
	return func(r *rand.Rand, _ int) int { return r.IntN(max + 1) }
}

// stateShapes are the states the differential tests draw. Jobs hold about
// a thousand slots or six hundred account leaves, so the larger shapes
// cut storage tries and the account trie into many chunks.
var stateShapes = []stateShape{
	{name: "one account", accounts: 1, slots: few(0)},
	{name: "one account one slot", accounts: 1, slots: few(1)},
	{name: "few accounts", accounts: 7, slots: few(3)},
	{name: "many accounts without storage", accounts: 3000, slots: few(0)},
	{name: "many small contracts", accounts: 2000, slots: few(8)},
	{name: "one contract holds most slots", accounts: 800, slots: func(r *rand.Rand, i int) int {
		if i == 400 {
			return 20000
		}
		return r.IntN(4)
	}},
	{name: "large contracts side by side", accounts: 12, slots: func(r *rand.Rand, i int) int {
		return []int{0, 1500, 700, 3000, 1, 1023, 1024, 1025, 5000, 2, 600, 2100}[i]
	}},
	{name: "first and last accounts large", accounts: 300, slots: func(r *rand.Rand, i int) int {
		if i == 0 || i == 299 {
			return 4000
		}
		return r.IntN(3)
	}},
	{name: "clustered keys", accounts: 1500, clustered: true, slots: func(r *rand.Rand, i int) int {
		if i%500 == 7 {
			return 3000
		}
		return r.IntN(5)
	}},
	{name: "long values", accounts: 300, longValues: true, slots: func(r *rand.Rand, i int) int {
		if i == 150 {
			return 4000
		}
		return r.IntN(20)
	}},
}

// generate draws a state of the shape. Most accounts store the root their
// slots give; some store another, which the Builder must report.
func (shape stateShape) generate(r *rand.Rand) flatState {
	hashes := drawHashes(r, shape.accounts, shape.clustered)
	s := make(flatState, len(hashes))
	for i, h := range hashes {
		a := flatAccount{hash: h, account: randomAccount(r), slim: r.IntN(2) == 0}
		for _, k := range drawHashes(r, shape.slots(r, i), shape.clustered) {
			a.slots = append(a.slots, flatSlot{hash: k, value: drawSlotValue(r, shape.longValues)})
		}
		a.account.Root = oracleStorage(a.slots).root
		if r.IntN(10) == 0 {
			a.account.Root = stacktrie.Hash(testgen.Value(r, 32))
		}
		a.encoded = expectedRLP(a.account, a.slim)
		s[i] = a
	}
	return s
}

// drawHashes draws n distinct 32-byte keys, sorted. Clustered keys come in
// runs that share 10 to 30 leading bytes.
func drawHashes(r *rand.Rand, n int, clustered bool) []stacktrie.Hash {
	keys := make([][]byte, 0, n)
	for len(keys) < n {
		if !clustered {
			keys = append(keys, testgen.Value(r, 32))
			continue
		}
		base := testgen.Value(r, 32)
		for range min(1+r.IntN(50), n-len(keys)) {
			k := bytes.Clone(base)
			shared := 10 + r.IntN(21)
			copy(k[shared:], testgen.Value(r, 32-shared))
			keys = append(keys, k)
		}
	}
	keys = testgen.Unique(keys)
	hashes := make([]stacktrie.Hash, len(keys))
	for i, k := range keys {
		hashes[i] = stacktrie.Hash(k)
	}
	return hashes
}

// drawSlotValue draws a slot value as go-ethereum's snapshot stores it: the
// RLP of 1 to 32 bytes without a leading zero; or, with long, sometimes
// longer bytes.
func drawSlotValue(r *rand.Rand, long bool) []byte {
	if long && r.IntN(4) == 0 {
		return testgen.Value(r, 34+r.IntN(200))
	}
	v := testgen.Value(r, 1+r.IntN(32))
	if v[0] == 0 {
		v[0] = 1
	}
	if r.IntN(3) == 0 {
		v = v[:1]
	}
	return rlpItem(v)
}

// slotCount is the number of slots in the state.
func (s flatState) slotCount() int {
	n := 0
	for _, a := range s {
		n += len(a.slots)
	}
	return n
}

// feed gives the state to b and fails on any refusal.
func (s flatState) feed(b *state.Builder) error {
	for i := range s {
		a := &s[i]
		if err := b.AddAccount(a.hash, a.encoded); err != nil {
			return err
		}
		for k := range a.slots {
			if err := b.AddSlot(a.slots[k].hash, a.slots[k].value); err != nil {
				return err
			}
		}
	}
	return nil
}

// sorted reports whether s is in stream order, as the generator promises.
func (s flatState) sorted() bool {
	return slices.IsSortedFunc(s, func(a, b flatAccount) int { return bytes.Compare(a.hash[:], b.hash[:]) })
}

// inMemory is the state as HashAll takes it, reading s's keys and values
// where they are.
func (s flatState) inMemory() []state.FlatAccount {
	accounts := make([]state.FlatAccount, len(s))
	for i := range s {
		a := &s[i]
		accounts[i] = state.FlatAccount{Hash: a.hash, RLP: a.encoded, Slots: make([]state.FlatSlot, len(a.slots))}
		for k, sl := range a.slots {
			accounts[i].Slots[k] = state.FlatSlot{Hash: sl.hash, Value: sl.value}
		}
	}
	return accounts
}

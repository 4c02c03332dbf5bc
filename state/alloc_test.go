//go:build !race

// The race detector allocates on its own, so allocation counts are only
// meaningful without it. Every count here is exact, one use at a time
// (testgen.AllocsPerUse).

package state_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/holiman/uint256"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
	"github.com/stacktrie/stacktrie/state"
)

// noAllocs is what testgen.AllocsPerUse returns for a use that allocates
// nothing.
var noAllocs = make([]uint64, testgen.UsesAfterFirst)

// TestAccountAllocs counts, one use at a time, what encoding and decoding
// allocate: nothing, even when the input is refused.
func TestAccountAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 0, 256)
	malformed := rlpOf(rlpItem(nil), rlpItem(nil), rlpItem([]byte{1, 2}), rlpItem(nil))
	for range 20 {
		a := randomAccount(r)
		full, slim := a.AppendRLP(nil), a.AppendSlimRLP(nil)
		var got state.Account
		uses := map[string]func(){
			"AppendRLP":                 func() { buf = a.AppendRLP(buf[:0]) },
			"AppendSlimRLP":             func() { buf = a.AppendSlimRLP(buf[:0]) },
			"DecodeRLP full":            func() { require.NoError(t, got.DecodeRLP(full)) },
			"DecodeRLP slim":            func() { require.NoError(t, got.DecodeRLP(slim)) },
			"DecodeRLP refusing":        func() { require.Error(t, got.DecodeRLP(malformed)) },
			"DecodeRLP refusing a list": func() { require.Error(t, got.DecodeRLP(full[:len(full)-1])) },
		}
		for name, use := range uses {
			counts := testgen.AllocsPerUse(func() func() { return use })
			assert.Equal(t, noAllocs, counts, "%s of %x", name, full)
		}
	}
}

// TestBuilderAllocs counts what a reused Builder allocates for a whole
// stream, from Reset to Finish, one stream at a time, and for a whole state
// given to HashAll: nothing, with one worker or several, with or without
// callbacks, for large contracts cut into chunks as for many small ones.
func TestBuilderAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	var nodes, accounts int
	callbacks := state.Options{
		OnNode:    func(stacktrie.Hash, []byte, stacktrie.Hash, []byte) { nodes++ },
		OnAccount: func(state.AccountResult) { accounts++ },
	}
	workerCounts := []int{1, 2}
	if testing.Short() {
		workerCounts = []int{2}
	}
	for _, shape := range []stateShape{stateShapes[3], stateShapes[4], stateShapes[5], stateShapes[8], stateShapes[9]} {
		s := shape.generate(r)
		for _, workers := range workerCounts {
			for _, opts := range []state.Options{{}, callbacks} {
				for _, hashAll := range []bool{false, true} {
					opts.Workers = workers
					name := fmt.Sprintf("%s/%d workers/callbacks %v/HashAll %v", shape.name, workers, opts.OnNode != nil, hashAll)
					t.Run(name, func(t *testing.T) {
						var want stacktrie.Hash
						flat := s.inMemory()
						start := func() func() {
							b := state.NewBuilder(opts)
							t.Cleanup(func() { b.Close() })
							return func() {
								b.Reset()
								if hashAll {
									res, err := b.HashAll(flat)
									if err != nil {
										t.Fatal(err)
									}
									want = res.Root
									return
								}
								if err := s.feed(b); err != nil {
									t.Fatal(err)
								}
								want = b.Finish().Root
							}
						}
						nodes, accounts = 0, 0
						assert.Equal(t, noAllocs, testgen.AllocsPerUse(start))
						assert.Equal(t, oracleState(s).root, want)
						if opts.OnNode != nil {
							assert.Positive(t, nodes)
							assert.Positive(t, accounts)
						}
					})
				}
			}
		}
	}
}

// TestBuilderLargeContractAllocs shows that a Builder streams a storage
// trie rather than holding it: once it has seen a contract of 20,000 slots,
// a contract of 400,000 slots (14 MB of keys and values) or of 800,000
// costs it less than 64 KiB of allocations.
func TestBuilderLargeContractAllocs(t *testing.T) {
	b := state.NewBuilder(state.Options{Workers: 2})
	defer b.Close()
	checkStreamsAllocLittle(t, "slots", 20000, []int{400000, 800000}, func(slots int) {
		b.Reset()
		feedContract(t, b, slots)
		b.Finish()
	})
}

// checkStreamsAllocLittle runs stream over warm items of what, then over
// each of sizes, and checks that each of those allocates under 64 KiB.
func checkStreamsAllocLittle(t *testing.T, what string, warm int, sizes []int, stream func(n int)) {
	t.Helper()
	stream(warm)
	var before, after runtime.MemStats
	for _, n := range sizes {
		runtime.ReadMemStats(&before)
		stream(n)
		runtime.ReadMemStats(&after)
		t.Logf("%d %s: %d bytes, %d allocs", n, what, after.TotalAlloc-before.TotalAlloc, after.Mallocs-before.Mallocs)
		assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<10), "bytes allocated for %d %s", n, what)
	}
}

// feedContract gives b one account holding n slots whose keys are spread
// evenly over the key space, made on the fly so that the test holds none.
func feedContract(t *testing.T, b *state.Builder, n int) {
	empty := rlpItem(nil)
	require.NoError(t, b.AddAccount(stacktrie.Hash{1}, rlpOf(empty, empty, empty, empty)))
	var key, step uint256.Int
	step.SetAllOne()
	step.Div(&step, uint256.NewInt(uint64(n)))
	value := []byte{0x82, 1, 2}
	for i := range n {
		key.Add(&key, &step)
		value[2] = byte(i)
		if err := b.AddSlot(key.Bytes32(), value); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBuilderManyAccountsAllocs shows that a Builder's memory does not grow
// with the number of accounts: once it has seen a state of 20,000 accounts,
// states of 200,000 and 2,000,000 accounts (200,000 with -short), each with
// a slot in one account of eight, cost it less than 64 KiB of allocations,
// so its heap stays where the first state left it.
func TestBuilderManyAccountsAllocs(t *testing.T) {
	b := state.NewBuilder(state.Options{Workers: 2})
	defer b.Close()
	sizes := []int{200_000, 2_000_000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	checkStreamsAllocLittle(t, "accounts", 20_000, sizes, func(accounts int) {
		b.Reset()
		feedAccounts(t, b, accounts)
		res := b.Finish()
		require.Equal(t, uint64(accounts), res.Accounts)
		require.Equal(t, uint64((accounts+7)/8), res.Slots)
	})
}

// feedAccounts gives b n accounts whose hashed addresses are spread evenly
// over the key space, one in eight with a slot, made on the fly so that the
// test holds none.
func feedAccounts(t *testing.T, b *state.Builder, n int) {
	empty := rlpItem(nil)
	var key, step uint256.Int
	step.SetAllOne()
	step.Div(&step, uint256.NewInt(uint64(n)))
	account := rlpOf(rlpItem([]byte{1}), rlpItem([]byte{2, 3}), empty, empty)
	value := []byte{0x82, 1, 2}
	for i := range n {
		key.Add(&key, &step)
		if err := b.AddAccount(key.Bytes32(), account); err != nil {
			t.Fatal(err)
		}
		if i%8 == 0 {
			value[2] = byte(i)
			if err := b.AddSlot(stacktrie.Hash{byte(i)}, value); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestUpdaterAllocs: a reused Updater's Root and Build allocate nothing
// after a first use over the same tables.
func TestUpdaterAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	c := newChainState(r, stateShapes[4])
	_, err := state.NewUpdater().Build(c.tables(), c.store(nil))
	require.NoError(t, err)
	changes := c.block(r, 40)
	stored := 0
	counting := state.Store{
		AccountBranch: func(_, _ []byte) { stored++ },
		StorageBranch: func(_, _ []byte) { stored++ },
		StorageRoot:   func(_, _ stacktrie.Hash) { stored++ },
	}
	assert.Equal(t, noAllocs, testgen.AllocsPerUse(func() func() {
		u := state.NewUpdater()
		return func() {
			_, err := u.Root(c.tables(), changes, counting)
			require.NoError(t, err)
		}
	}), "Updater.Root")
	assert.NotZero(t, stored, "the block changes the store")
	assert.Equal(t, noAllocs, testgen.AllocsPerUse(func() func() {
		u := state.NewUpdater()
		return func() {
			_, err := u.Build(c.tables(), counting)
			require.NoError(t, err)
		}
	}), "Updater.Build")
}

package state_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/incremental"
	"github.com/stacktrie/stacktrie/internal/testgen"
	"github.com/stacktrie/stacktrie/state"
)

// benchState is a state of 20,000 accounts and 200,000 slots, one contract
// holding half of them and the rest spread over the other accounts, stored
// roots left empty: made once, when a benchmark first asks, and fed from
// memory.
var benchState = sync.OnceValue(func() flatState {
	const accounts, slots = 20000, 200000
	r := rand.New(rand.NewPCG(11, 12))
	hashes := drawHashes(r, accounts, false)
	s := make(flatState, len(hashes))
	for i, h := range hashes {
		n := r.IntN(slots / accounts)
		if i == len(hashes)/2 {
			n = slots / 2
		}
		a := flatAccount{hash: h, account: randomAccount(r)}
		a.account.Root = stacktrie.EmptyRoot
		a.encoded = a.account.AppendSlimRLP(nil)
		for _, k := range drawHashes(r, n, false) {
			a.slots = append(a.slots, flatSlot{hash: k, value: drawSlotValue(r, false)})
		}
		s[i] = a
	}
	return s
})

// BenchmarkBuilder feeds benchState to a reused Builder with 1 and 2 hashing
// workers, and reports accounts and slots a second. The Builder has seen the
// state once before the timed streams.
//
// With one worker, the caller's goroutine, which reads the stream into jobs,
// and the goroutines that complete accounts in order have the second core to
// themselves. workers=1-on-1-core is one worker with GOMAXPROCS 1, all of it
// on one core: against it, workers=2 shows what the second core brings.
//
// workers=1x2-apart is the most a second worker can gain on this machine:
// the same accounts and slots dealt into two states of equal work, each fed
// to a Builder of one worker of its own, on two goroutines at once, with
// nothing shared and nothing combined.
func BenchmarkBuilder(b *testing.B) {
	s := benchState()
	slots := s.slotCount()
	b.Run("workers=1x2-apart", func(b *testing.B) {
		halves := s.dealEvenly()
		var builders [2]*state.Builder
		for i := range builders {
			builders[i] = state.NewBuilder(state.Options{Workers: 1})
			defer builders[i].Close()
		}
		timeStreams(b, len(s), slots, func() {
			var wg sync.WaitGroup
			wg.Add(len(builders))
			for i, builder := range builders {
				go func() {
					defer wg.Done()
					builder.Reset()
					if err := halves[i].feed(builder); err != nil {
						b.Error(err)
					}
					builder.Finish()
				}()
			}
			wg.Wait()
		})
	})
	stream := func(b *testing.B, workers int) {
		builder := state.NewBuilder(state.Options{Workers: workers})
		defer builder.Close()
		timeStreams(b, len(s), slots, func() {
			builder.Reset()
			if err := s.feed(builder); err != nil {
				b.Fatal(err)
			}
			builder.Finish()
		})
	}
	b.Run("workers=1-on-1-core", func(b *testing.B) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		stream(b, 1)
	})
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) { stream(b, workers) })
	}
	accounts := s.inMemory()
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("HashAll/workers=%d", workers), func(b *testing.B) {
			builder := state.NewBuilder(state.Options{Workers: workers})
			defer builder.Close()
			timeStreams(b, len(s), slots, func() {
				builder.Reset()
				if _, err := builder.HashAll(accounts); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// timeStreams runs stream once, which makes the jobs and grows their
// buffers, then times it, and reports the accounts and slots a second.
func timeStreams(b *testing.B, accounts, slots int, stream func()) {
	stream()
	b.ReportAllocs()
	for b.Loop() {
		stream()
	}
	seconds := b.Elapsed().Seconds()
	b.ReportMetric(float64(accounts*b.N)/seconds, "accounts/s")
	b.ReportMetric(float64(slots*b.N)/seconds, "slots/s")
}

// dealEvenly deals the accounts of s, in order, into two states whose
// accounts and slots add up to about the same, each account with its slots
// to the state holding fewer so far.
func (s flatState) dealEvenly() [2]flatState {
	var halves [2]flatState
	var weight [2]int
	for _, a := range s {
		i := 0
		if weight[1] < weight[0] {
			i = 1
		}
		halves[i] = append(halves[i], a)
		weight[i] += 1 + len(a.slots)
	}
	return halves
}

// BenchmarkUpdater times one block's state root over a state of 20,000
// accounts and about 300,000 slots, one contract holding 100,000 of them:
// 1,000 changes, two in five to an account and the rest to slots, spread
// over the accounts. impl=root is Updater.Root with its writes applied to
// the branch tables (undone, untimed, after each run); impl=build is
// Updater.Build over the same tables, its records copied into a reused
// buffer. Each reports allocs/key, the allocations per changed key.
func BenchmarkUpdater(b *testing.B) {
	r := rand.New(rand.NewPCG(21, 22))
	c := newChainState(r, stateShape{name: "bench", accounts: 20000, slots: func(r *rand.Rand, i int) int {
		if i == 10000 {
			return 100000
		}
		return r.IntN(21)
	}})
	u := state.NewUpdater()
	if _, err := u.Build(c.tables(), c.store(nil)); err != nil {
		b.Fatal(err)
	}
	changes := c.block(r, 1000)
	keys := len(changes.Accounts) + len(changes.Slots)
	want := oracleState(c.flat()).root
	b.Run("impl=root", func(b *testing.B) {
		// The records the block overwrites or deletes, with their old
		// values, nil for new ones: put back, untimed, after each run.
		var undoAccounts, undoStorage []testgen.Pair
		recording := state.Store{
			AccountBranch: func(path, _ []byte) { undoAccounts = append(undoAccounts, oldRecord(c.accountBranches, path)) },
			StorageBranch: func(key, _ []byte) { undoStorage = append(undoStorage, oldRecord(c.storageTree, key)) },
		}
		if _, err := u.Root(c.tables(), changes, recording); err != nil {
			b.Fatal(err)
		}
		store := state.Store{AccountBranch: c.accountBranches.Write, StorageBranch: c.storageTree.Write}
		timeBlocks(b, keys, func() {
			root, err := u.Root(c.tables(), changes, store)
			if err != nil || root != want {
				b.Fatalf("root %v, want %v: %v", root, want, err)
			}
			b.StopTimer()
			for _, p := range undoAccounts {
				c.accountBranches.Put(p.Key, p.Value)
			}
			for _, p := range undoStorage {
				c.storageTree.Put(p.Key, p.Value)
			}
			b.StartTimer()
		})
	})
	b.Run("impl=build", func(b *testing.B) {
		var batch []byte
		write := func(key, branch []byte) { batch = append(append(batch, key...), branch...) }
		timeBlocks(b, keys, func() {
			batch = batch[:0]
			root, err := u.Build(c.tables(), state.Store{AccountBranch: write, StorageBranch: write})
			if err != nil || root != want {
				b.Fatalf("root %v, want %v: %v", root, want, err)
			}
		})
	})
}

// oldRecord is the record at key in table, copied, with a nil value if
// there is none.
func oldRecord(table *incremental.Table, key []byte) testgen.Pair {
	old, _ := table.Get(key)
	return testgen.Pair{Key: bytes.Clone(key), Value: bytes.Clone(old)}
}

// timeBlocks runs block once more, after the first use its caller made,
// then times it, and reports the allocations per changed key.
func timeBlocks(b *testing.B, keys int, block func()) {
	block()
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		block()
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N)/float64(keys), "allocs/key")
}

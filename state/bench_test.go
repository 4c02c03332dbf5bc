package state_test

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stacktrie/stacktrie"
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
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			builder := state.NewBuilder(state.Options{Workers: workers})
			defer builder.Close()
			timeStreams(b, len(s), slots, func() {
				builder.Reset()
				if err := s.feed(builder); err != nil {
					b.Fatal(err)
				}
				builder.Finish()
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

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
func BenchmarkBuilder(b *testing.B) {
	s := benchState()
	slots := s.slotCount()
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			builder := state.NewBuilder(state.Options{Workers: workers})
			defer builder.Close()
			stream := func() {
				builder.Reset()
				if err := s.feed(builder); err != nil {
					b.Fatal(err)
				}
				builder.Finish()
			}
			stream() // the first stream makes the jobs and grows their buffers
			b.ReportAllocs()
			for b.Loop() {
				stream()
			}
			seconds := b.Elapsed().Seconds()
			b.ReportMetric(float64(len(s)*b.N)/seconds, "accounts/s")
			b.ReportMetric(float64(slots*b.N)/seconds, "slots/s")
		})
	}
}

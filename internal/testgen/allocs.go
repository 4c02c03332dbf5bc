package testgen

import (
	"runtime"
	"runtime/debug"
)

// Mallocs returns how many heap allocations one call of f makes, exactly:
// the count of the whole process before and after the call, so that work f
// hands to other goroutines counts too. testing.AllocsPerRun averages in
// whole numbers over runs after a warm-up, which hides a few allocations.
//
// The garbage collector is off during the call, so that it cannot empty a
// sync.Pool between two uses that are meant to share it.
func Mallocs(f func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs
}

// UsesAfterFirst are how many uses the allocation tests count, one by one,
// after a first use that lets the buffers grow: every one of them must
// allocate nothing.
const UsesAfterFirst = 5

// AllocsPerUse runs use once to warm up, then UsesAfterFirst times more,
// and returns the exact allocation count of each later use. The garbage
// collector is off from the first use on, so that what the first use left
// in a sync.Pool is still there for the next.
func AllocsPerUse(use func()) []uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	use()
	counts := make([]uint64, UsesAfterFirst)
	for i := range counts {
		counts[i] = Mallocs(use)
	}
	return counts
}

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
// sync.Pool between two uses that are meant to share it. And the call runs
// on one P: ReadMemStats stops the world, and starting it again may start
// an OS thread for an idle P, whose allocations would count as f's.
func Mallocs(f func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
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
// and returns the exact allocation count of each later use. All uses run
// as Mallocs runs one: with the garbage collector off and on one P, so that
// what the first use left in a sync.Pool or a P's cache is still there for
// the next (a pool keeps objects per P, and loses them all when GOMAXPROCS
// changes).
func AllocsPerUse(use func()) []uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	use()
	counts := make([]uint64, UsesAfterFirst)
	for i := range counts {
		counts[i] = Mallocs(use)
	}
	return counts
}

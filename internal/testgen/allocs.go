package testgen

import (
	"runtime"
	"runtime/debug"
	"time"
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
	settle()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	use()
	counts := make([]uint64, UsesAfterFirst)
	for i := range counts {
		counts[i] = Mallocs(use)
	}
	return counts
}

// settle collects garbage and waits until the finalizers and cleanups it
// queues have run: they run on goroutines of their own, which would
// otherwise allocate (os.File's finalizer, a Parallel's cleanup) inside a
// later count. With the collector off while counting, nothing new is queued.
func settle() {
	for range 2 {
		finalized, cleaned := make(chan struct{}), make(chan struct{})
		runtime.SetFinalizer(new([16]byte), func(*[16]byte) { close(finalized) })
		runtime.AddCleanup(new([16]byte), func(c chan struct{}) { close(c) }, cleaned)
		runtime.GC()
		for _, c := range []chan struct{}{finalized, cleaned} {
			select {
			case <-c:
			case <-time.After(time.Second):
			}
		}
	}
}

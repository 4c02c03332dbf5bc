package testgen

import (
	"runtime"
	"runtime/debug"
	"slices"
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

// LeastMallocs is Mallocs for a call that makes its objects afresh: the
// least count of three calls, since the runtime can allocate on its own,
// rarely, inside a count (see AllocsPerUse), and what f allocates is the
// same every time.
func LeastMallocs(f func()) uint64 {
	return min(Mallocs(f), Mallocs(f), Mallocs(f))
}

// UsesAfterFirst are how many uses the allocation tests count, one by one,
// after a first use that lets the buffers grow: every one of them must
// allocate nothing.
const UsesAfterFirst = 5

// AllocsPerUse measures what a reused object allocates: start makes the
// object afresh and returns one use of it, which AllocsPerUse runs once to
// warm up, then UsesAfterFirst times more, counting each later use exactly.
// All uses run as Mallocs runs one: with the garbage collector off and on
// one P, so that what the first use left in a sync.Pool or a P's cache is
// still there for the next (a pool keeps objects per P, and loses them all
// when GOMAXPROCS changes).
//
// The runtime can still allocate on its own, rarely, inside a count (an OS
// thread started for a goroutine that made a system call). So when a use
// counts anything, AllocsPerUse starts over with a fresh object, up to
// three times, and returns each use's least count: what the code allocates
// is the same in every attempt, and stays in the result.
func AllocsPerUse(start func() (use func())) []uint64 {
	counts := attempt(start)
	for try := 1; try < 3 && slices.ContainsFunc(counts, func(c uint64) bool { return c != 0 }); try++ {
		for i, c := range attempt(start) {
			counts[i] = min(counts[i], c)
		}
	}
	return counts
}

func attempt(start func() (use func())) []uint64 {
	settle()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	use := start()
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
			timeout := time.NewTimer(time.Second)
			select {
			case <-c:
			case <-timeout.C:
			}
			timeout.Stop()
		}
	}
}

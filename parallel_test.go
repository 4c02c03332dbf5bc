package stacktrie_test

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

// requireNoLeak fails if goroutines started during the test are still there
// a moment after it.
func requireNoLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(2 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		assert.LessOrEqual(t, runtime.NumGoroutine(), before, "goroutines left behind")
	})
}

func TestParallelAgainstOracle(t *testing.T) {
	requireNoLeak(t)
	seed := testgen.Seed(t)
	r := rand.New(rand.NewPCG(seed, 6))
	for _, shape := range testgen.Shapes {
		for _, n := range []int{1, 2, 3, 50, 2000} {
			pairs := testgen.Pairs(r, shape, n)
			wantRoot, wantNodes := oracle(pairs)
			for _, workers := range []int{1, 2, 3} {
				var rec recorder // Parallel serializes onNode, so no lock here
				p := stacktrie.NewParallel(workers, rec.onNode)
				defer p.Close()
				for _, pair := range pairs {
					require.NoError(t, p.Update(pair.Key, pair.Value))
				}
				msg := []any{"seed %d, %s, %d pairs, %d workers", seed, shape.Name, len(pairs), workers}
				require.Equal(t, wantRoot, p.Hash(), msg...)
				require.True(t, assertNodes(t, wantNodes, rec.nodes, msg...))
			}
		}
	}
}

func TestParallelCases(t *testing.T) {
	requireNoLeak(t)
	long := make([]byte, 40)
	tests := []struct {
		name  string
		pairs []testgen.Pair
	}{
		{"one key", pairsOf("k", "v")},
		{"all under one first byte", pairsOf("aa", "1", "ab", "2", "ac", "3")},
		{"empty key", pairsOf("", "root", "a", "1", "b", "2")},
		{"empty key alone", pairsOf("", "root")},
		{"prefix keys across bytes", pairsOf("a", "1", "ab", "2", "abc", "3", "b", "4", "bc", "5")},
		{"tiny embedded partitions", pairsOf("\x01", "a", "\x01\x02", "b", "\x02", "c", "\x03\x04", "d")},
		{"large values", []testgen.Pair{{Key: []byte{1}, Value: append(long, 1)}, {Key: []byte{2}, Value: append(long, 2)}}},
		{"keys of different lengths", pairsOf("\x10", "1", "\x10\x00\x00\x00\x00", "2", "\x11\x22", "3", "\xff\xff\xff", "4")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantRoot, wantNodes := oracle(tt.pairs)
			var rec recorder
			p := stacktrie.NewParallel(2, rec.onNode)
			defer p.Close()
			for _, pair := range tt.pairs {
				require.NoError(t, p.Update(pair.Key, pair.Value))
			}
			assert.Equal(t, wantRoot, p.Hash())
			assertNodes(t, wantNodes, rec.nodes)
		})
	}
}

func TestParallelErrorsAndReuse(t *testing.T) {
	requireNoLeak(t)
	p := stacktrie.NewParallel(0, nil)
	defer p.Close()
	require.NoError(t, p.Update([]byte("b"), []byte("1")))
	assert.ErrorIs(t, p.Update([]byte("a"), []byte("2")), stacktrie.ErrKeyOrder)
	assert.ErrorIs(t, p.Update([]byte("b"), []byte("2")), stacktrie.ErrKeyOrder)
	assert.ErrorIs(t, p.Update([]byte("c"), nil), stacktrie.ErrEmptyValue)
	require.NoError(t, p.Update([]byte("c"), []byte("3")), "refusals changed nothing")
	want, _ := oracle(pairsOf("b", "1", "c", "3"))
	assert.Equal(t, want, p.Hash())
	assert.Equal(t, want, p.Hash(), "Hash again")
	assert.ErrorIs(t, p.Update([]byte("d"), []byte("4")), stacktrie.ErrFinalized)

	p.Reset()
	assert.Equal(t, stacktrie.EmptyRoot, p.Hash())
	p.Reset()
	require.NoError(t, p.Update([]byte("a"), []byte("1")))
	p.Reset() // stops the workers mid-stream
	require.NoError(t, p.Update([]byte("x"), []byte("9")))
	want, _ = oracle(pairsOf("x", "9"))
	assert.Equal(t, want, p.Hash())
}

// TestParallelOrder offers Parallel keys that share their first eight bytes
// or more, shorter than eight bytes, equal to the last or just below it,
// with values large enough that batches end every few pairs, so that the
// last key is read from the batch being filled, from a batch just sent, and
// across partitions. Each verdict must be bytes.Compare's against the last
// key accepted, and the root that of the accepted pairs.
func TestParallelOrder(t *testing.T) {
	requireNoLeak(t)
	seed := testgen.Seed(t)
	r := rand.New(rand.NewPCG(seed, 7))
	p := stacktrie.NewParallel(2, nil)
	defer p.Close()
	value := make([]byte, 20<<10) // a batch holds about four
	var keys [][]byte
	for range 1000 {
		key := []byte{byte(r.IntN(4)), 1, 2, 3, 4, 5, 6, byte(r.IntN(3))}
		key = key[:1+r.IntN(len(key))]
		keys = append(keys, append(key, testgen.Value(r, r.IntN(3))...))
	}
	slices.SortFunc(keys, bytes.Compare)
	keys = slices.CompactFunc(keys, bytes.Equal)
	var accepted []testgen.Pair
	var last []byte
	offer := func(key []byte) {
		value[0] = byte(len(accepted))
		err := p.Update(key, value)
		if last != nil && bytes.Compare(key, last) <= 0 {
			require.ErrorIs(t, err, stacktrie.ErrKeyOrder, "seed %d: key %x after %x", seed, key, last)
			return
		}
		require.NoError(t, err, "seed %d: key %x after %x", seed, key, last)
		accepted = append(accepted, testgen.Pair{Key: key, Value: bytes.Clone(value)})
		last = key
	}
	for i, key := range keys {
		if last != nil && r.IntN(3) == 0 {
			switch bad := bytes.Clone(last); r.IntN(4) {
			case 0:
				offer(bad) // the last key again
			case 1:
				if bad[len(bad)-1] > 0 {
					bad[len(bad)-1]-- // just below
				}
				offer(bad)
			case 2:
				offer(bad[:len(bad)-1]) // a prefix of the last key
			default:
				offer(keys[r.IntN(i)]) // an earlier key
			}
		}
		offer(key)
	}
	require.Greater(t, len(accepted), 100, "seed %d: too few keys accepted to test", seed)
	want, _ := oracle(accepted)
	assert.Equal(t, want, p.Hash(), "seed %d", seed)
}

// TestParallelClose gives a stream up after an error, as a caller that
// returns on the error does, and checks that Close ends the workers, that
// it may be called again, and that the Parallel stays usable after it.
func TestParallelClose(t *testing.T) {
	requireNoLeak(t)
	p := stacktrie.NewParallel(3, nil)
	for _, k := range []string{"a", "b", "c", "d"} {
		require.NoError(t, p.Update([]byte(k), []byte("1")))
	}
	require.ErrorIs(t, p.Update([]byte("a"), []byte("2")), stacktrie.ErrKeyOrder)
	assert.Greater(t, runtime.NumGoroutine(), 3, "the workers run")
	require.NoError(t, p.Close())
	require.NoError(t, p.Close(), "Close again")
	assert.Equal(t, stacktrie.EmptyRoot, p.Hash(), "the stream given up is dropped")

	p.Reset()
	require.NoError(t, p.Update([]byte("x"), []byte("9")), "usable after Close")
	want, _ := oracle(pairsOf("x", "9"))
	assert.Equal(t, want, p.Hash())
	require.NoError(t, p.Close())
	assert.Equal(t, want, p.Hash(), "Close keeps the root of a hashed stream")
}

// TestParallelDroppedWithoutClose checks that the workers of a Parallel
// nobody closed end once it is garbage.
func TestParallelDroppedWithoutClose(t *testing.T) {
	before := runtime.NumGoroutine()
	func() {
		p := stacktrie.NewParallel(3, nil)
		require.NoError(t, p.Update([]byte("a"), []byte("1")))
		require.NoError(t, p.Update([]byte("b"), []byte("1")))
	}()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), before, "workers of a dropped Parallel left behind")
}

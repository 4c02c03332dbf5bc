package stacktrie_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/derivesha"
	"github.com/stacktrie/stacktrie/internal/keccakonly"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

// insert100K is go-ethereum's own StackTrie benchmark shape: 100k 8-byte
// big-endian keys 1024 apart, with 20-byte zero values.
func insert100K() []testgen.Pair {
	pairs := make([]testgen.Pair, 100_000)
	value := make([]byte, 20)
	for i := range pairs {
		pairs[i] = testgen.Pair{Key: binary.BigEndian.AppendUint64(nil, uint64(i)<<10), Value: value}
	}
	return pairs
}

// random32 is a hashed-key state: n sorted random 32-byte keys with 32-byte values.
func random32(n int) []testgen.Pair {
	r := rand.New(rand.NewPCG(32, 32))
	pairs := make([]testgen.Pair, n)
	for i := range pairs {
		pairs[i] = testgen.Pair{Key: testgen.Value(r, 32), Value: testgen.Value(r, 32)}
	}
	slices.SortFunc(pairs, func(a, b testgen.Pair) int { return bytes.Compare(a.Key, b.Key) })
	return pairs
}

func BenchmarkInsert100K(b *testing.B) { benchmarkTrie(b, packed(insert100K())) }

func BenchmarkRandom32(b *testing.B) { benchmarkTrie(b, packed(random32(100_000))) }

// BenchmarkRandom32_1M hashes a million random 32-byte keys with a Trie and
// with Parallel on 1, 2, 4 and 8 workers: the scaling curve.
func BenchmarkRandom32_1M(b *testing.B) {
	pairs := packed(random32(1_000_000))
	b.Run("impl=stacktrie", func(b *testing.B) {
		b.ReportAllocs()
		tr := stacktrie.New(nil)
		for b.Loop() {
			tr.Reset()
			insert(b, tr, pairs)
			tr.Hash()
		}
		reportLanes(b, tr)
	})
	for _, workers := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprintf("impl=parallel-%d", workers), func(b *testing.B) {
			b.ReportAllocs()
			p := stacktrie.NewParallel(workers, nil)
			defer p.Close()
			for b.Loop() {
				p.Reset()
				insert(b, p, pairs)
				p.Hash()
			}
		})
	}
}

// BenchmarkTrieWork times the trie's own work, without the permutation
// (NewWithoutPermutation), over Insert100K's and Random32's pairs, in
// ns/key. make instructions counts its instructions a key with callgrind,
// a measure that, unlike time, the other load of a shared machine leaves
// alone.
func BenchmarkTrieWork(b *testing.B) {
	for _, keys := range []struct {
		name  string
		pairs []testgen.Pair
	}{{"insert100K", packed(insert100K())}, {"random32", packed(random32(100_000))}} {
		b.Run("keys="+keys.name, func(b *testing.B) {
			b.ReportAllocs()
			tr := stacktrie.NewWithoutPermutation()
			for b.Loop() {
				rebuild(b, tr, keys.pairs)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(keys.pairs)), "ns/key")
		})
	}
}

// BenchmarkTwoTries builds two Tries over the same 10,000 random 32-byte keys
// with 70-byte values, about an account's size. The Tries are made and first
// filled one after the other on one goroutine, so that their buffers are
// neighbours in memory. impl=in-turn builds them one after the other,
// impl=at-once each on its own goroutine at the same time: on two free
// cores, at-once should take half as long. When small buffers of different
// Tries shared cache lines, at-once took about as long as in-turn, or longer
// (see lines.go).
func BenchmarkTwoTries(b *testing.B) {
	pairs := random32(10_000)
	r := rand.New(rand.NewPCG(70, 70))
	for i := range pairs {
		pairs[i].Value = testgen.Value(r, 70)
	}
	pairs = packed(pairs)
	tries := [2]*stacktrie.Trie{stacktrie.New(nil), stacktrie.New(nil)}
	build := func(tr *stacktrie.Trie) {
		tr.Reset()
		insert(b, tr, pairs)
		tr.Hash()
	}
	for _, tr := range tries {
		build(tr)
	}
	b.Run("impl=in-turn", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, tr := range tries {
				build(tr)
			}
		}
	})
	b.Run("impl=at-once", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var wg sync.WaitGroup
			wg.Add(len(tries))
			for _, tr := range tries {
				go func() {
					defer wg.Done()
					build(tr)
				}()
			}
			wg.Wait()
		}
	})
}

// insert gives pairs to a Trie or a Parallel.
func insert(b *testing.B, t interface{ Update(k, v []byte) error }, pairs []testgen.Pair) {
	for _, p := range pairs {
		if err := t.Update(p.Key, p.Value); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDeriveSha200 derives the root of a block's worth of encoded
// transactions: 200 items of 110 to 365 bytes.
func BenchmarkDeriveSha200(b *testing.B) {
	r := rand.New(rand.NewPCG(200, 200))
	items := make(derivesha.Bytes, 200)
	for i := range items {
		items[i] = testgen.Value(r, 110+r.IntN(256))
	}
	b.Run("impl=stacktrie", func(b *testing.B) {
		b.ReportAllocs()
		tr := stacktrie.New(nil)
		for b.Loop() {
			derivesha.DeriveSha(items, tr)
		}
		reportLanes(b, tr)
	})
	b.Run("impl=keccak", func(b *testing.B) {
		var blobs keccakonly.Blobs
		derivesha.DeriveSha(items, stacktrie.New(blobs.OnNode))
		keccakonly.Benchmark(b, blobs)
	})
}

// BenchmarkBlockLists derives the roots of 200 blocks' lists in a row, in
// one reused trie: withdrawals (16 items of 40 to 45 bytes) and
// transactions (150 items of 110 to 365 bytes). impl=derivesha ends each
// list with Hash (DeriveSha); impl=later with HashLater (DeriveShaLater)
// and flushes once, so that the small lists' nodes share the lanes.
func BenchmarkBlockLists(b *testing.B) {
	r := rand.New(rand.NewPCG(16, 150))
	for _, shape := range []struct {
		name           string
		items, minSize int
		spread         int
	}{{"withdrawals16", 16, 40, 6}, {"txs150", 150, 110, 256}} {
		blocks := make([]derivesha.Bytes, 200)
		for i := range blocks {
			blocks[i] = make(derivesha.Bytes, shape.items)
			for j := range blocks[i] {
				blocks[i][j] = testgen.Value(r, shape.minSize+r.IntN(shape.spread))
			}
		}
		roots := make([]stacktrie.Hash, len(blocks))
		b.Run(shape.name+"/impl=derivesha", func(b *testing.B) {
			b.ReportAllocs()
			tr := stacktrie.New(nil)
			for b.Loop() {
				for i, list := range blocks {
					roots[i] = derivesha.DeriveSha(list, tr)
				}
			}
			reportLanes(b, tr)
		})
		want := slices.Clone(roots)
		b.Run(shape.name+"/impl=later", func(b *testing.B) {
			b.ReportAllocs()
			tr := stacktrie.New(nil)
			for b.Loop() {
				for i, list := range blocks {
					derivesha.DeriveShaLater(list, tr, &roots[i])
				}
				tr.Flush()
			}
			if !slices.Equal(roots, want) {
				b.Fatal("DeriveShaLater's roots differ from DeriveSha's")
			}
			reportLanes(b, tr)
		})
	}
}

// reportLanes reports how full the SIMD lanes ran: the share of lane-blocks
// that absorbed a message, 1 when no lane ever idled; the permutation floor
// (floor-ns/op): the lane-blocks the trie absorbed times the cost of one
// lane-block of its kernel alone, timed here after the loop; and the trie's
// time over that floor (x-floor). Nothing without lanes.
func reportLanes(b *testing.B, tr *stacktrie.Trie) {
	permutations, laneBlocks, lanes := stacktrie.LaneWork(tr)
	if lanes == 0 {
		return
	}
	b.ReportMetric(float64(laneBlocks)/float64(permutations*uint64(lanes)), "lane-occupancy")
	floor := float64(laneBlocks) * stacktrie.LaneBlockCost(tr, 20_000)
	b.ReportMetric(floor/float64(b.N), "floor-ns/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/floor, "x-floor")
}

// packed copies the keys and values of pairs into one buffer in key order,
// as a caller streaming from a file or database would hold them; keys
// scattered over the heap would measure cache misses, not the trie.
func packed(pairs []testgen.Pair) []testgen.Pair {
	size := 0
	for _, p := range pairs {
		size += len(p.Key) + len(p.Value)
	}
	buf := make([]byte, 0, size)
	out := make([]testgen.Pair, len(pairs))
	for i, p := range pairs {
		buf = append(buf, p.Key...)
		key := buf[len(buf)-len(p.Key):]
		buf = append(buf, p.Value...)
		out[i] = testgen.Pair{Key: key, Value: buf[len(buf)-len(p.Value):]}
	}
	return out
}

// rebuild resets tr and hashes pairs with it, calling Update directly
// rather than through insert's interface.
func rebuild(b *testing.B, tr *stacktrie.Trie, pairs []testgen.Pair) {
	tr.Reset()
	for _, p := range pairs {
		if err := tr.Update(p.Key, p.Value); err != nil {
			b.Fatal(err)
		}
	}
	tr.Hash()
}

// benchmarkTrie measures a reused Trie over pairs (impl=stacktrie), and beside it
// Keccak alone over the blobs of the nodes the trie hashes (impl=keccak).
func benchmarkTrie(b *testing.B, pairs []testgen.Pair) {
	b.Run("impl=stacktrie", func(b *testing.B) {
		b.ReportAllocs()
		tr := stacktrie.New(nil)
		for b.Loop() {
			rebuild(b, tr, pairs)
		}
		reportLanes(b, tr)
	})
	b.Run("impl=keccak", func(b *testing.B) {
		var blobs keccakonly.Blobs
		tr := stacktrie.New(blobs.OnNode)
		for _, p := range pairs {
			if err := tr.Update(p.Key, p.Value); err != nil {
				b.Fatal(err)
			}
		}
		tr.Hash()
		keccakonly.Benchmark(b, blobs)
	})
}

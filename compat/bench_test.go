package compat_test

import (
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/compat/internal/trietest"
	"github.com/stacktrie/stacktrie/derivesha"
)

// Each benchmark below runs stacktrie and go-ethereum on the same input, as
// sub-benchmarks impl=geth and impl=stacktrie, so that
//
//	go tool benchstat -col '/impl@(geth stacktrie)' bench.txt
//
// prints one row per workload with stacktrie's change against geth
// (compare.sh does this). stacktrie reuses one warmed-up Trie, Reset
// between iterations, which is its allocation-free path; geth gets a new
// StackTrie per iteration, as its API has it.

// impl is one side of a comparison: the sub-benchmark impl=NAME.
type impl struct {
	name string
	run  func(*testing.B)
}

// runImpls runs the sides of a comparison as sub-benchmarks, round after
// round: STACKTRIE_ROUNDS rounds (compare.sh sets it to its count), or one.
// go test -count repeats each sub-benchmark back to back, so that a slow
// spell of a shared machine can fall on one side only; rounds alternate
// the sides within the process. go test names a sub-benchmark run again
// with a suffix, #01 and on, which compare.sh strips for benchstat.
func runImpls(b *testing.B, impls ...impl) {
	for range benchRounds() {
		for _, im := range impls {
			b.Run("impl="+im.name, im.run)
		}
	}
}

var benchRounds = sync.OnceValue(func() int {
	if n, err := strconv.Atoi(os.Getenv("STACKTRIE_ROUNDS")); err == nil && n > 0 {
		return n
	}
	return 1
})

// benchSeed fixes the random inputs, so that runs compare.
const benchSeed = 0x5eed

func benchRand() *rand.Rand { return rand.New(rand.NewPCG(benchSeed, benchSeed)) }

// The key sets are built once per process, not once per -count round, and
// packed in key order into one buffer.
var (
	insert100KPairs = sync.OnceValue(func() []trietest.Pair {
		return trietest.Packed(trietest.Sequential(nil, 100_000, 0, 1024, trietest.ZeroValues(20)))
	})
	random32Pairs = sync.OnceValue(func() []trietest.Pair {
		return trietest.Packed(trietest.RandomKeys(benchRand(), 100_000, 32, 32, nil, trietest.ValuesOfLen(32)))
	})
	random32Pairs1M = sync.OnceValue(func() []trietest.Pair {
		return trietest.Packed(trietest.RandomKeys(benchRand(), 1_000_000, 32, 32, nil, trietest.ValuesOfLen(32)))
	})
)

// BenchmarkInsert100K hashes 100k 8-byte big-endian keys 0, 1024, 2048, ...
// with 20-byte zero values: the shape of go-ethereum's own stack trie
// benchmark.
func BenchmarkInsert100K(b *testing.B) { runImpls(b, pairImpls(b, insert100KPairs())...) }

// BenchmarkRandom32 hashes 100k random 32-byte keys with 32-byte values, the
// shape of a storage or state trie over hashed keys.
func BenchmarkRandom32(b *testing.B) { runImpls(b, pairImpls(b, random32Pairs())...) }

// BenchmarkRandom32_1M is BenchmarkRandom32 with a million keys, and
// stacktrie's Parallel beside them on as many workers as there are cores,
// fed with Update (impl=parallel) and given the pairs at once with HashAll
// (impl=hashall).
// impl=apart is the most any split of the stream can gain on this machine:
// the keys cut into as many contiguous parts as there are cores, each hashed
// by a Trie of its own on a goroutine of its own, with nothing shared and
// nothing combined (the parts' roots are not the stream's).
func BenchmarkRandom32_1M(b *testing.B) {
	pairs := random32Pairs1M()
	apart := impl{"apart", func(b *testing.B) { benchmarkApart(b, pairs, runtime.GOMAXPROCS(0)) }}
	parallel := impl{"parallel", func(b *testing.B) {
		b.ReportAllocs()
		p := stacktrie.NewParallel(0, nil)
		defer p.Close()
		for b.Loop() {
			p.Reset()
			for _, pair := range pairs {
				if err := p.Update(pair.Key, pair.Value); err != nil {
					b.Fatal(err)
				}
			}
			p.Hash()
		}
	}}
	keys, values := make([][]byte, len(pairs)), make([][]byte, len(pairs))
	for i, pair := range pairs {
		keys[i], values[i] = pair.Key, pair.Value
	}
	hashAll := impl{"hashall", func(b *testing.B) {
		b.ReportAllocs()
		p := stacktrie.NewParallel(0, nil)
		defer p.Close()
		var root stacktrie.Hash
		for b.Loop() {
			var err error
			if root, err = p.HashAll(keys, values); err != nil {
				b.Fatal(err)
			}
		}
		tr := stacktrie.New(nil) // pairImpls checked its root against go-ethereum's
		if err := trietest.Insert(tr, pairs); err != nil || root != tr.Hash() {
			b.Fatalf("HashAll's root %v, a Trie's %v (%v)", root, tr.Hash(), err)
		}
	}}
	runImpls(b, append(pairImpls(b, pairs), apart, parallel, hashAll)...)
}

// benchmarkApart times n Tries, each over its own contiguous nth of pairs on
// its own goroutine: n independent streams, the ceiling of a split into n.
func benchmarkApart(b *testing.B, pairs []trietest.Pair, n int) {
	tries := make([]*stacktrie.Trie, n)
	for i := range tries {
		tries[i] = stacktrie.New(nil)
	}
	part := func(i int) []trietest.Pair { return pairs[i*len(pairs)/n : (i+1)*len(pairs)/n] }
	b.ReportAllocs()
	for b.Loop() {
		var wg sync.WaitGroup
		for i, tr := range tries {
			wg.Go(func() {
				if err := trietest.Insert(tr, part(i)); err != nil {
					b.Error(err)
				}
				tr.Hash()
			})
		}
		wg.Wait()
	}
}

// pairImpls returns both sides of computing the root of the sorted pairs,
// once it has checked that they give the same root.
func pairImpls(b *testing.B, pairs []trietest.Pair) []impl {
	tr := stacktrie.New(nil)
	if err := trietest.Insert(tr, pairs); err != nil {
		b.Fatal(err)
	}
	gethRoot, _, err := trietest.GethStackTrie(pairs)
	if err != nil {
		b.Fatal(err)
	}
	if root := common.Hash(tr.Hash()); root != gethRoot {
		b.Fatalf("roots differ: stacktrie %v, geth %v", root, gethRoot)
	}

	return []impl{{"geth", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			st := trie.NewStackTrie(nil)
			for _, p := range pairs {
				if err := st.Update(p.Key, p.Value); err != nil {
					b.Fatal(err)
				}
			}
			st.Hash()
		}
	}}, {"stacktrie", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			tr.Reset()
			for _, p := range pairs {
				if err := tr.Update(p.Key, p.Value); err != nil {
					b.Fatal(err)
				}
			}
			tr.Hash()
		}
	}}}
}

// BenchmarkDeriveSha200 derives the root of 200 pre-encoded items of 110 to
// 365 bytes, about a block's worth of transactions.
func BenchmarkDeriveSha200(b *testing.B) {
	items := derivesha.Bytes(trietest.RandomItems(benchRand(), 200, 110, 365))
	benchmarkDeriveSha(b, items)
}

// BenchmarkDeriveShaTxs200 derives the root of 200 signed dynamic-fee
// transactions, which encode themselves as DeriveSha asks for each.
func BenchmarkDeriveShaTxs200(b *testing.B) {
	txs := signedTxs(b, benchRand(), types.DynamicFeeTxType, 200)
	benchmarkDeriveSha(b, txs)
}

// benchmarkDeriveSha times derivesha.DeriveSha against types.DeriveSha
// with go-ethereum's StackTrie on the same list.
func benchmarkDeriveSha[L derivesha.List](b *testing.B, list L) {
	tr := stacktrie.New(nil)
	if root, gethRoot := common.Hash(derivesha.DeriveSha(list, tr)), types.DeriveSha(list, trie.NewStackTrie(nil)); root != gethRoot {
		b.Fatalf("roots differ: stacktrie %v, geth %v", root, gethRoot)
	}

	runImpls(b, impl{"geth", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			types.DeriveSha(list, trie.NewStackTrie(nil))
		}
	}}, impl{"stacktrie", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			derivesha.DeriveSha(list, tr)
		}
	}})
}

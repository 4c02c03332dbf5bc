package compat_test

// Snap-sync range verification against go-ethereum: trie.VerifyRangeProof
// and stacktrie's RangeVerifier on the same ranges of one trie, with the
// same edge proofs, as sub-benchmarks impl=geth and impl=stacktrie (see
// bench_test.go and compare.sh).

import (
	"bytes"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/compat/internal/trietest"
)

// A benchRange is a range of random32Pairs' trie as a snap/1 peer answers
// a request for it: the pairs from first on, and the proofs of first and
// of the last key.
type benchRange struct {
	root         common.Hash
	first        []byte
	keys, values [][]byte
	proof        [][]byte
	db           proofDB // proof as go-ethereum's verifier reads it
}

// rangeStart is the index in random32Pairs of the first key of each range,
// with 100k keys far enough in that every range has leaves after it.
const rangeStart = 40_000

// The benchmarked ranges, by number of keys.
var benchRangeSizes = []int{100, 1000, 5000}

// benchRanges builds the ranges of benchRangeSizes keys from rangeStart:
// each starts at a key not in the trie, just before the one at rangeStart,
// as a syncer's request starts after the last key it has, and ends at a key
// of the trie. One hashing of the trie gives all the proofs.
var benchRanges = sync.OnceValues(func() (map[int]*benchRange, error) {
	pairs := random32Pairs()
	first := keyMinus(pairs[rangeStart].Key, 1)
	if bytes.Compare(pairs[rangeStart-1].Key, first) >= 0 {
		return nil, fmt.Errorf("key %x is in the trie", first)
	}
	lasts := make([][]byte, 0, len(benchRangeSizes))
	for _, n := range benchRangeSizes {
		lasts = append(lasts, pairs[rangeStart+n-1].Key)
	}
	ps := stacktrie.NewProofSet(append([][]byte{first}, lasts...)...)
	st := stacktrie.New(ps.OnNode)
	if err := trietest.Insert(st, pairs); err != nil {
		return nil, err
	}
	root := common.Hash(st.Hash())
	ranges := make(map[int]*benchRange, len(benchRangeSizes))
	for i, n := range benchRangeSizes {
		r := &benchRange{root: root, first: first, proof: ps.RangeProof(first, lasts[i])}
		if r.proof == nil {
			return nil, fmt.Errorf("no proof of the range of %d keys", n)
		}
		r.db = newProofDB(r.proof)
		for _, p := range pairs[rangeStart : rangeStart+n] {
			r.keys, r.values = append(r.keys, p.Key), append(r.values, p.Value)
		}
		ranges[n] = r
	}
	return ranges, nil
})

// benchRangeOf returns the range of n keys, once both verifiers have
// accepted it and agreed that leaves follow, so that no benchmark times a
// refusal.
func benchRangeOf(b *testing.B, n int) *benchRange {
	b.Helper()
	ranges, err := benchRanges()
	if err != nil {
		b.Fatal(err)
	}
	r := ranges[n]
	gethMore, err := trie.VerifyRangeProof(r.root, r.first, r.keys, r.values, r.db)
	if err != nil {
		b.Fatalf("go-ethereum refuses the range of %d keys: %v", n, err)
	}
	more, err := stacktrie.NewRangeVerifier(nil).Verify(stacktrie.Hash(r.root), r.first, r.keys, r.values, r.proof)
	if err != nil {
		b.Fatalf("RangeVerifier refuses the range of %d keys: %v", n, err)
	}
	if more != gethMore || !more {
		b.Fatalf("range of %d keys: hasMore %v, go-ethereum %v, want true", n, more, gethMore)
	}
	return r
}

// BenchmarkVerifyRange verifies ranges of 100, 1000 and 5000 keys of a
// 100k-key trie of random 32-byte keys with their edge proofs.
// go-ethereum's verifier reads the proof from a map keyed by node hash,
// built before timing; the RangeVerifier is reused, as a syncer keeps one.
func BenchmarkVerifyRange(b *testing.B) {
	for _, n := range benchRangeSizes {
		b.Run("keys="+strconv.Itoa(n), func(b *testing.B) {
			r := benchRangeOf(b, n)
			runImpls(b, impl{"geth", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := trie.VerifyRangeProof(r.root, r.first, r.keys, r.values, r.db); err != nil {
						b.Fatal(err)
					}
				}
			}}, impl{"stacktrie", func(b *testing.B) {
				b.ReportAllocs()
				v := stacktrie.NewRangeVerifier(nil)
				root := stacktrie.Hash(r.root)
				if _, err := v.Verify(root, r.first, r.keys, r.values, r.proof); err != nil { // warm up
					b.Fatal(err)
				}
				for b.Loop() {
					if _, err := v.Verify(root, r.first, r.keys, r.values, r.proof); err != nil {
						b.Fatal(err)
					}
				}
			}})
		})
	}
}

// BenchmarkVerifyRangeWithNodes verifies a range and hands out trie nodes
// to store. go-ethereum's snap syncer verifies the range, then hashes its
// pairs again in a StackTrie to get the nodes; the RangeVerifier reports
// them during its one pass. Both callbacks only count; nodes/op is the
// count per verification.
func BenchmarkVerifyRangeWithNodes(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		b.Run("keys="+strconv.Itoa(n), func(b *testing.B) {
			r := benchRangeOf(b, n)
			runImpls(b, impl{"geth", func(b *testing.B) {
				b.ReportAllocs()
				nodes := 0
				onNode := func(path []byte, hash common.Hash, blob []byte) { nodes++ }
				for b.Loop() {
					if _, err := trie.VerifyRangeProof(r.root, r.first, r.keys, r.values, r.db); err != nil {
						b.Fatal(err)
					}
					st := trie.NewStackTrie(onNode)
					for i, key := range r.keys {
						if err := st.Update(key, r.values[i]); err != nil {
							b.Fatal(err)
						}
					}
					st.Hash()
				}
				b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
			}}, impl{"stacktrie", func(b *testing.B) {
				b.ReportAllocs()
				nodes := 0
				v := stacktrie.NewRangeVerifier(func(path []byte, hash stacktrie.Hash, blob []byte) { nodes++ })
				root := stacktrie.Hash(r.root)
				if _, err := v.Verify(root, r.first, r.keys, r.values, r.proof); err != nil { // warm up
					b.Fatal(err)
				}
				warm := nodes
				for b.Loop() {
					if _, err := v.Verify(root, r.first, r.keys, r.values, r.proof); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(nodes-warm)/float64(b.N), "nodes/op")
			}})
		})
	}
}

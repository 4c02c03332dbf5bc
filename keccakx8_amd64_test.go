//go:build amd64 && !purego

package stacktrie

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/cpu"
)

// The AVX-512 lanes against x/crypto, where the machine has AVX-512.
func TestLanesX8(t *testing.T) {
	l := newLanesX8()
	if l == nil {
		t.Skip("no AVX-512 on this machine: the kernels are checked against x/crypto by TestKeccakX8Model instead, which interprets keccakx8_amd64.s and keccakx8low_amd64.s")
	}
	checkEveryLength(t, l)
	checkMixedBatches(t, newLanesX8())
	// As on a CPU without AVX-512VL: keccakX8 at every step.
	checkEveryLength(t, lanesX8(false))
	checkMixedBatches(t, lanesX8(false))
}

// The model of each kernel against the kernel itself, where the machine can
// run it: the same states, blocks and keep masks in, the same states and
// digests out. This is what lets TestKeccakX8Model stand for TestLanesX8 on
// machines without AVX-512.
func TestKeccakX8ModelMatchesAssembly(t *testing.T) {
	assert.Equal(t, roundConstantsX8, modelRoundConstants)
	if !cpu.X86.HasAVX512F {
		t.Skip("no AVX-512 on this machine to run the kernels")
	}
	for _, k := range []struct {
		source x8Source
		run    func(state *[200]uint64, rc *[24 * 8]uint64, blocks *[8]*[keccakRate]byte, keep *[8]uint64, digests *[8][32]byte)
		runs   bool
	}{{x8Full, keccakX8, true}, {x8Low, keccakX8Low, cpu.X86.HasAVX512VL}} {
		t.Run(k.source.name, func(t *testing.T) {
			if !k.runs {
				t.Skip("no AVX-512VL on this machine to run the kernel")
			}
			p := k.source.load(t)
			r := rand.New(rand.NewPCG(5, 5))
			fill := func(b []byte) {
				for i := range b {
					b[i] = byte(r.Uint32())
				}
			}
			for i := range 100 {
				var want, got [200]uint64
				for w := range want {
					want[w] = r.Uint64()
				}
				got = want
				var blocks [8]*[keccakRate]byte
				var keep [8]uint64
				var wantDigests, gotDigests [8][32]byte
				for lane := range blocks {
					blocks[lane] = new([keccakRate]byte)
					fill(blocks[lane][:])
					if r.IntN(2) == 0 {
						keep[lane] = ^uint64(0)
					}
					fill(wantDigests[lane][:])
				}
				gotDigests = wantDigests
				k.run(&want, &roundConstantsX8, &blocks, &keep, &wantDigests)
				p.run(&got, &roundConstantsX8, &blocks, &keep, &gotDigests)
				require.Equal(t, want, got, "states %d, keep %x", i, keep)
				require.Equal(t, wantDigests, gotDigests, "digests %d, keep %x", i, keep)
			}
		})
	}
}

// BenchmarkPermutation times one kernel step with every lane busy: a block
// absorbed per lane, the permutation, the digests; ns/lane-block is the cost
// of one block in one lane.
func BenchmarkPermutation(b *testing.B) {
	run := func(b *testing.B, l *lanes) {
		if l == nil {
			b.Skip("not on this machine")
		}
		b.ReportAllocs()
		for b.Loop() {
			l.runFull(1)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*l.n), "ns/lane-block")
	}
	b.Run("kernel=circlx4", func(b *testing.B) { run(b, testLanes()) })
	b.Run("kernel=avx2x4", func(b *testing.B) { run(b, lanesX4()) })
	b.Run("kernel=avx2x4x2", func(b *testing.B) { run(b, lanesX4x2()) })
	b.Run("kernel=avx512x8", func(b *testing.B) { run(b, newLanesX8()) })
	b.Run("kernel=avx512x8low", func(b *testing.B) { run(b, lanesX8Low()) })
}

// lanesX8Low returns four lanes of keccakX8Low alone, on states aligned as
// the AVX-512 lanes' are, or nil without AVX-512VL: the steps of the
// AVX-512 lanes whose lanes 4 to 7 idle.
func lanesX8Low() *lanes {
	if !cpu.X86.HasAVX512F || !cpu.X86.HasAVX512VL {
		return nil
	}
	s := newStateX8(true)
	return newLanesOver("avx512x8low", 4, func(blocks *[maxLanes]*[keccakRate]byte, keep *[maxLanes]uint64, digests *[maxLanes][32]byte) {
		keccakX8Low(s.state, &roundConstantsX8, blocks, keep, digests)
	})
}

// BenchmarkPermutationParallel is BenchmarkPermutation on every core at
// once, each goroutine with lanes of its own: run with -cpu 1,2, it shows
// how the kernel alone scales over the cores, the most that hashing on
// more workers can gain.
func BenchmarkPermutationParallel(b *testing.B) {
	run := func(b *testing.B, newLanes func() *lanes) {
		if newLanes() == nil {
			b.Skip("not on this machine")
		}
		b.RunParallel(func(pb *testing.PB) {
			l := newLanes()
			for pb.Next() {
				l.runFull(1)
			}
		})
	}
	b.Run("kernel=avx2x8", func(b *testing.B) { run(b, newLanesAVX2) })
	b.Run("kernel=avx512x8", func(b *testing.B) { run(b, newLanesX8) })
}

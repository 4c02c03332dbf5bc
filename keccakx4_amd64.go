//go:build amd64 && !purego

package stacktrie

import "golang.org/x/sys/cpu"

//go:generate go run gen_keccakx4.go

// keccakX4 runs one kernel step (see kernel) on four interleaved states in
// AVX2 registers: word w of lane i is state[w*4+i], and state[100:] is
// scratch. rc holds each round constant eight times over, of which it reads
// four.
//
//go:noescape
func keccakX4(state *[200]uint64, rc *[24 * 8]uint64, blocks *[4]*[keccakRate]byte, keep *[4]uint64, digests *[4][32]byte)

// keccakX4x2 is keccakX4 on two sets of four lanes, their rounds
// alternating: lanes 0 to 3 in state[:200] as keccakX4 keeps them, lanes 4
// to 7 in state[200:400], and each set's column parities in state[400:]
// while the other set's round runs. On Zen 5 a lane-block took about 8%
// less time than with keccakX4 (BenchmarkPermutation).
//
//go:noescape
func keccakX4x2(state *[440]uint64, rc *[24 * 8]uint64, blocks *[8]*[keccakRate]byte, keep *[8]uint64, digests *[8][32]byte)

// newLanesAVX2 returns eight lanes of AVX2, two sets of four, or nil without
// AVX2. A step whose second set is idle, as the last steps of a trie often
// are, runs keccakX4 on the first set alone, at half the cost.
func newLanesAVX2() *lanes {
	if !cpu.X86.HasAVX2 {
		return nil
	}
	state := new([440]uint64)
	return newLanesOver("avx2x8", 8, func(blocks *[maxLanes]*[keccakRate]byte, keep *[maxLanes]uint64, digests *[maxLanes][32]byte) {
		if upperIdle(blocks) {
			keccakX4((*[200]uint64)(state[:200]), &roundConstantsX8, (*[4]*[keccakRate]byte)(blocks[:4]), (*[4]uint64)(keep[:4]), (*[4][32]byte)(digests[:4]))
			return
		}
		keccakX4x2(state, &roundConstantsX8, blocks, keep, digests)
	})
}

//go:build amd64 && !purego

package stacktrie

import "golang.org/x/sys/cpu"

//go:generate go run gen_keccakx4.go

// keccakX4 runs one kernel step (see kernel) on four interleaved states in
// AVX2 registers: word w of lane i is state[w*4+i]. rc holds each round
// constant eight times over, of which it reads four.
//
//go:noescape
func keccakX4(state *[200]uint64, rc *[24 * 8]uint64, blocks *[4]*[keccakRate]byte, keep *[4]uint64, digests *[4][32]byte)

// newLanesX4 returns four lanes of AVX2, or nil without AVX2.
func newLanesX4() *lanes {
	if !cpu.X86.HasAVX2 {
		return nil
	}
	state := new([200]uint64)
	return newLanesOver("avx2x4", 4, func(blocks *[maxLanes]*[keccakRate]byte, keep *[maxLanes]uint64, digests *[maxLanes][32]byte) {
		keccakX4(state, &roundConstantsX8, (*[4]*[keccakRate]byte)(blocks[:4]), (*[4]uint64)(keep[:4]), (*[4][32]byte)(digests[:4]))
	})
}

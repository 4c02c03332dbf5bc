//go:build amd64 && !purego

package stacktrie

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

//go:generate go run gen_keccakx8.go

// keccakX8 runs one kernel step (see kernel) on eight interleaved states in
// AVX-512 registers: word w of lane i is state[w*8+i]. rc holds each round
// constant eight times over.
//
//go:noescape
func keccakX8(state *[200]uint64, rc *[24 * 8]uint64, blocks *[8]*[keccakRate]byte, keep *[8]uint64, digests *[8][32]byte)

// keccakX8Low is keccakX8 on lanes 0 to 3 alone, in 256-bit registers: it
// reads and writes those lanes' states, blocks, keep words and digests
// only, and costs about half a step of keccakX8 where the CPU splits
// 512-bit operations in two. Those are the steps whose lanes 4 to 7 idle.
//
//go:noescape
func keccakX8Low(state *[200]uint64, rc *[24 * 8]uint64, blocks *[8]*[keccakRate]byte, keep *[8]uint64, digests *[8][32]byte)

// roundConstantsX8 are Keccak's round constants, each repeated for 8 lanes.
var roundConstantsX8 = func() (rc [24 * 8]uint64) {
	constants := [24]uint64{
		0x0000000000000001, 0x0000000000008082, 0x800000000000808a, 0x8000000080008000,
		0x000000000000808b, 0x0000000080000001, 0x8000000080008081, 0x8000000000008009,
		0x000000000000008a, 0x0000000000000088, 0x0000000080008009, 0x000000008000000a,
		0x000000008000808b, 0x800000000000008b, 0x8000000000008089, 0x8000000000008003,
		0x8000000000008002, 0x8000000000000080, 0x000000000000800a, 0x800000008000000a,
		0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008,
	}
	for round, c := range constants {
		for lane := range 8 {
			rc[round*8+lane] = c
		}
	}
	return rc
}()

// stateX8 holds eight interleaved states, placed on a 64-byte boundary so
// that no register load straddles two cache lines.
type stateX8 struct {
	buf   [200 + 7]uint64
	state *[200]uint64
	low   bool // run keccakX8Low where it can: the CPU has AVX-512VL, which it needs
}

func (s *stateX8) step(blocks *[maxLanes]*[keccakRate]byte, keep *[maxLanes]uint64, digests *[maxLanes][32]byte) {
	if s.low && upperIdle(blocks) {
		keccakX8Low(s.state, &roundConstantsX8, blocks, keep, digests)
		return
	}
	keccakX8(s.state, &roundConstantsX8, blocks, keep, digests)
}

// newLanesX8 returns eight lanes of AVX-512, or nil without AVX-512.
func newLanesX8() *lanes {
	if !cpu.X86.HasAVX512F {
		return nil
	}
	return lanesX8(cpu.X86.HasAVX512VL)
}

// lanesX8 returns eight lanes of AVX-512, which run keccakX8Low for the
// steps it can do if low is set.
func lanesX8(low bool) *lanes {
	return newLanesOver("avx512x8", 8, newStateX8(low).step)
}

// newStateX8 returns states on a 64-byte boundary.
func newStateX8(low bool) *stateX8 {
	s := &stateX8{low: low}
	misaligned := int(uintptr(unsafe.Pointer(&s.buf[0])) % 64) // a multiple of 8
	skip := (64 - misaligned) % 64 / 8
	s.state = (*[200]uint64)(s.buf[skip : skip+200])
	return s
}

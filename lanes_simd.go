//go:build (amd64 || arm64) && !purego

package stacktrie

import "github.com/cloudflare/circl/simd/keccakf1600"

// newLanes returns the multi-way Keccak of this machine: eight lanes of
// AVX-512 or four of AVX2 on amd64, two of NEON on arm64 where circl has
// them; nil elsewhere, where nodes are hashed one at a time.
func newLanes() *lanes {
	if l := newLanesX8(); l != nil {
		return l
	}
	switch {
	case keccakf1600.IsEnabledX4():
		s := new(keccakf1600.StateX4)
		return newLanesOver("avx2x4", s.Initialize(false), 4, s.Permute)
	case keccakf1600.IsEnabledX2():
		s := new(keccakf1600.StateX2)
		return newLanesOver("neonx2", s.Initialize(false), 2, s.Permute)
	}
	return nil
}

//go:build !purego

package stacktrie

import "github.com/cloudflare/circl/simd/keccakf1600"

// newLanes returns eight lanes of AVX-512 in this package's own assembly, or
// four of AVX2 in circl's; nil without either, where nodes are hashed one at
// a time.
func newLanes() *lanes {
	if l := newLanesX8(); l != nil {
		return l
	}
	if keccakf1600.IsEnabledX4() {
		s := new(keccakf1600.StateX4)
		return newLanesOver("avx2x4", s.Initialize(false), 4, s.Permute)
	}
	return nil
}

//go:build !purego

package stacktrie

import "github.com/cloudflare/circl/simd/keccakf1600"

// newLanes returns circl's two lanes of NEON, which circl turns on for
// darwin/arm64 only; nil elsewhere, where nodes are hashed one at a time.
func newLanes() *lanes {
	if keccakf1600.IsEnabledX2() {
		s := new(keccakf1600.StateX2)
		return newLanesOver("neonx2", 2, stagedKernel(s.Initialize(false), 2, s.Permute))
	}
	return nil
}

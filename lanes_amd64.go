//go:build !purego

package stacktrie

// newLanes returns eight lanes of AVX-512 or of AVX2, both in this
// package's own assembly; nil without either, where nodes are hashed one at
// a time.
func newLanes() *lanes {
	if l := newLanesX8(); l != nil {
		return l
	}
	return newLanesAVX2()
}

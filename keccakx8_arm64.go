//go:build arm64 && !purego

package stacktrie

// newLanesX8 returns nil: eight lanes are AVX-512's, on amd64.
func newLanesX8() *lanes { return nil }

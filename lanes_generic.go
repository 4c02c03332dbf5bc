//go:build !(amd64 || arm64) || purego

package stacktrie

// newLanes returns nil: without SIMD Keccak, or under the purego tag, nodes
// are hashed one at a time with x/crypto.
func newLanes() *lanes { return nil }

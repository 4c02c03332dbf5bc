//go:build !purego

package stacktrie

// purego is set by the purego build tag, which turns SIMD hashing off.
const purego = false

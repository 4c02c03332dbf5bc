//go:build !race

// The race detector allocates on its own, so allocation counts are only
// meaningful without it.

package rlp

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSplitAllocs: readers that promise no allocation rely on Split
// making none, on good input and bad.
func TestSplitAllocs(t *testing.T) {
	for _, in := range []string{"\xc3\x01\x02\x03", "\xb9\x00\x38", ""} {
		b := []byte(in)
		assert.Zero(t, testing.AllocsPerRun(1, func() { _, _, _, _ = Split(b) }), "%x", b)
	}
}

// TestAppendAllocs: the writers append within a buffer that has room, the
// header too, without a heap allocation.
func TestAppendAllocs(t *testing.T) {
	buf := make([]byte, 0, 2048)
	payload := make([]byte, 1024)
	assert.Zero(t, testing.AllocsPerRun(1, func() {
		b := AppendString(buf[:0], payload)
		b = AppendUint(b, 1<<40)
		_ = AppendHeader(b, List, len(b))
	}))
}

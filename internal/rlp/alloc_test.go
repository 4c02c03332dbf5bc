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

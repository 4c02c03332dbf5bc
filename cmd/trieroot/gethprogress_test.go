package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/stacktrie/stacktrie"
)

// TestKeySpaceBar: an account hash halfway through the key space is half of
// the work done, and the bar is cleared at the end.
func TestKeySpaceBar(t *testing.T) {
	var out bytes.Buffer
	bar := newKeySpaceBar(&out, 0)
	bar.update(stacktrie.Hash{0x80})
	bar.finish()
	assert.Regexp(t, `^\raccounts +50% \|`, out.String())
	assert.True(t, strings.HasSuffix(out.String(), "\r"), "the bar is cleared: %q", out.String())
}

package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoProgressBarWithoutTerminal: a buffer, a pipe and a file are not
// terminals, so run draws no bar on them however long the input takes.
func TestNoProgressBarWithoutTerminal(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	require.NoError(t, err)
	defer f.Close()
	for name, stderr := range map[string]any{"buffer": new(bytes.Buffer), "pipe": w, "file": f} {
		assert.False(t, isTerminal(stderr.(interface{ Write([]byte) (int, error) })), name)
	}

	var stdout bytes.Buffer
	code := run([]string{"state", sample("state/dump.jsonl")}, strings.NewReader(""), &stdout, f)
	require.Equal(t, exitOK, code)
	info, err := f.Stat()
	require.NoError(t, err)
	assert.Zero(t, info.Size(), "something was written to stderr")
}

// TestProgressBar draws the bar, as on a terminal, with no delay: it names
// the input and is cleared at the end. With the usual delay, or with
// --quiet, a fast input shows none.
func TestProgressBar(t *testing.T) {
	tests := []struct {
		name  string
		delay time.Duration
		args  []string
		drawn bool
	}{
		{"no delay", 0, []string{"kv", "-"}, true},
		{"quiet", 0, []string{"kv", "--quiet", "-"}, false},
		{"fast input", time.Hour, []string{"kv", "-"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			e := &env{stdin: strings.NewReader("01 02\n"), stdout: &stdout, stderr: &stderr,
				progress: progressPolicy{enabled: true, delay: tt.delay}}
			require.Equal(t, exitOK, e.run(tt.args), stderr.String())
			if !tt.drawn {
				assert.Empty(t, stderr.String())
				return
			}
			assert.Contains(t, stderr.String(), "stdin", "the bar names the input")
			assert.True(t, strings.HasSuffix(stderr.String(), "\r"), "the bar is cleared: %q", stderr.String())
		})
	}
}

// TestProgressReader reads a file of known size a little at a time: the bar
// shows the share read, the bytes of the total, the rate and the time left,
// and all of the input passes through.
func TestProgressReader(t *testing.T) {
	data, err := os.ReadFile(sample("state/dump.jsonl"))
	require.NoError(t, err)
	var bar bytes.Buffer
	p := newProgressReader(iotest.HalfReader(bytes.NewReader(data)), int64(len(data)), "dump", &bar, 0)
	got, err := io.ReadAll(p)
	require.NoError(t, err)
	p.finish()
	assert.Equal(t, data, got)
	assert.Regexp(t, `^\rdump +\d+% \|.*\| \(\d+ B/\d+ kB, [\d.]+ [kMG]?B/s\) \[\d+s:\d+s\]`, bar.String())
	assert.True(t, strings.HasSuffix(bar.String(), "\r"), "the bar is cleared")
}

package main

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBinary builds the command and runs it as a user would, with its
// output going to pipes: the exit statuses are the documented ones, and no
// progress bar reaches stderr.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build with")
	}
	bin := filepath.Join(t.TempDir(), "trieroot")
	build := exec.Command(goTool, "build", "-buildvcs=false", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)

	tests := []struct {
		args       []string
		stdin      string
		code       int
		stdout     string // a line the output holds
		stderrLine string // the start of the one line on stderr
	}{
		{[]string{"state", sample("state/dump.jsonl")}, "", exitOK, "match                  true", ""},
		{[]string{"payload", sample("payload/cancun-beacon.json")}, "", exitOK, "match                  true", ""},
		{[]string{"kv", "--quiet"}, "01 0a\n02 0b\n", exitOK, "0x", ""},
		{[]string{"kv"}, "02 0a\n01 0b\n", exitFail, "", "stdin:2: key 0x01 is below 0x02 on line 1"},
		{[]string{"state"}, "", exitUsage, "", "trieroot state: no file given"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			cmd := exec.Command(bin, tt.args...)
			cmd.Stdin = strings.NewReader(tt.stdin)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if exitErr := (*exec.ExitError)(nil); errors.As(err, &exitErr) {
				code = exitErr.ExitCode()
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.code, code)
			assert.Contains(t, stdout.String(), tt.stdout)
			if tt.stderrLine == "" {
				assert.Empty(t, stderr.String())
			} else {
				assert.True(t, strings.HasPrefix(stderr.String(), tt.stderrLine), "stderr %q", stderr.String())
				assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "stderr %q", stderr.String())
			}
		})
	}
}

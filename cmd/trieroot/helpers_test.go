package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// result is what a run of trieroot gave.
type result struct {
	code           int
	stdout, stderr string
}

// runCLI runs trieroot in-process on args, with stdin as standard input.
func runCLI(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(stdin), &stdout, &stderr)
	return result{code, stdout.String(), stderr.String()}
}

// sample is the path of a file in testdata.
func sample(name string) string {
	return filepath.Join("testdata", filepath.FromSlash(name))
}

// mutated writes a copy of the sample with edit applied to its text and
// returns its path; edit must change it.
func mutated(t *testing.T, name string, edit func(string) string) string {
	t.Helper()
	data, err := os.ReadFile(sample(name))
	require.NoError(t, err)
	text := edit(string(data))
	require.NotEqual(t, string(data), text, "the edit of %s changed nothing", name)
	path := filepath.Join(t.TempDir(), filepath.Base(name))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

// replaceOnce replaces the first old with new.
func replaceOnce(old, new string) func(string) string {
	return func(s string) string { return strings.Replace(s, old, new, 1) }
}

// lines returns the text's lines without their endings.
func lines(text string) []string {
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

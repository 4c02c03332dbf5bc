package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWorkers checks that --workers hashes to the same root, nodes and
// proofs as one core does.
func TestWorkers(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"kv", []string{"kv", "--json", sample("kv/sorted.txt")}},
		{"kv secure", []string{"kv", "--json", "--secure", sample("kv/secure.txt")}},
		{"state", []string{"state", "--json", sample("state/dump.jsonl")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			withFlags := func(flags ...string) []string {
				return append(append([]string{tt.args[0]}, flags...), tt.args[1:]...)
			}
			one := runCLI(t, "", withFlags("--nodes", filepath.Join(dir, "one"))...)
			require.Equal(t, 0, one.code, one.stderr)
			for _, workers := range []string{"0", "2", "3"} {
				nodes := filepath.Join(dir, "workers"+workers)
				many := runCLI(t, "", withFlags("--workers", workers, "--nodes", nodes)...)
				require.Equal(t, 0, many.code, many.stderr)
				assert.Equal(t, one.stdout, many.stdout, "--workers %s", workers)
				assert.ElementsMatch(t, lines(readFile(t, filepath.Join(dir, "one"))), lines(readFile(t, nodes)),
					"--workers %s reports the same nodes", workers)
			}
		})
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

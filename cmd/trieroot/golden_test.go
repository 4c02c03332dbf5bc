package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGolden compares the text output with testdata/golden; go test -update
// rewrites the files. The values in them are those TestGethCases checks
// against go-ethereum; these tests pin down the layout.
func TestGolden(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"help", []string{"help"}},
		{"kv-help", []string{"kv", "-h"}},
		{"payload-help", []string{"payload", "--help"}},
		{"kv", []string{"kv", sample("kv/sorted.txt")}},
		{"kv-secure-quiet", []string{"kv", "--secure", "--quiet", sample("kv/secure.txt")}},
		{"kv-proofs", []string{"kv", sample("kv/unsorted.txt"), "--sort", "--proof", "01", "--proof", "0x0a"}},
		{"list", []string{"list", "--proof", "0", "--proof", "128", sample("list/transactions.txt")}},
		{"payload-paris", []string{"payload", sample("payload/paris-beacon.json")}},
		{"payload-prague", []string{"payload", sample("payload/prague-engine.json")}},
		{"payload-quiet", []string{"payload", "--quiet", sample("payload/shanghai-beacon.json")}},
		{"state", []string{"state", sample("state/dump.jsonl")}},
		{"state-json", []string{"state", "--json", sample("state/dump.jsonl")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runCLI(t, "", tt.args...)
			require.Equal(t, exitOK, res.code, res.stderr)
			assert.Empty(t, res.stderr)
			golden := filepath.Join("testdata", "golden", tt.name+".txt")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
				require.NoError(t, os.WriteFile(golden, []byte(res.stdout), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test -update to write it")
			assert.Equal(t, string(want), res.stdout)
		})
	}
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gethCase is a case of testdata/geth.json, which compat/internal/gencli
// writes with go-ethereum's answers: run Command with Args and --json on
// File, and expect Want's fields in the output; with Nodes, --nodes must
// write that file's lines.
type gethCase struct {
	Command string         `json:"command"`
	File    string         `json:"file"`
	Args    []string       `json:"args"`
	Want    map[string]any `json:"want"`
	Nodes   string         `json:"nodes"`
}

func gethCases(t *testing.T) []gethCase {
	t.Helper()
	data, err := os.ReadFile(sample("geth.json"))
	require.NoError(t, err)
	var cases []gethCase
	require.NoError(t, json.Unmarshal(data, &cases))
	require.NotEmpty(t, cases)
	return cases
}

// TestGethCases checks every sample against go-ethereum's answer: roots,
// counts, block hashes, proofs and nodes.
func TestGethCases(t *testing.T) {
	for _, c := range gethCases(t) {
		t.Run(c.Command+" "+strings.Join(append(slices.Clone(c.Args), c.File), " "), func(t *testing.T) {
			args := append([]string{c.Command, "--json", sample(c.File)}, c.Args...)
			nodeFile := filepath.Join(t.TempDir(), "nodes")
			if c.Nodes != "" {
				args = append(args, "--nodes", nodeFile)
			}
			res := runCLI(t, "", args...)
			require.Equal(t, exitOK, res.code, res.stderr)
			assert.Empty(t, res.stderr)
			var got map[string]any
			require.NoError(t, json.Unmarshal([]byte(res.stdout), &got), res.stdout)
			for name, want := range c.Want {
				assert.Equal(t, want, got[name], "%s", name)
			}
			if c.Nodes != "" {
				want, err := os.ReadFile(sample(c.Nodes))
				require.NoError(t, err)
				written, err := os.ReadFile(nodeFile)
				require.NoError(t, err)
				gotLines := lines(string(written))
				slices.Sort(gotLines)
				assert.Equal(t, lines(string(want)), gotLines)
				assert.EqualValues(t, len(gotLines), got["nodes"])
			}
		})
	}
}

// TestEverySampleHasACase keeps geth.json and the samples in step.
func TestEverySampleHasACase(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range gethCases(t) {
		covered[c.File] = true
		covered[c.Nodes] = true
	}
	for _, dir := range []string{"kv", "list", "payload", "state"} {
		files, err := os.ReadDir(sample(dir))
		require.NoError(t, err)
		require.NotEmpty(t, files)
		for _, f := range files {
			assert.True(t, covered[dir+"/"+f.Name()], "no case in geth.json for %s/%s", dir, f.Name())
		}
	}
}

// TestStandardInput reads the samples through "-" and through no file at
// all, and gets the roots it gets from the files.
func TestStandardInput(t *testing.T) {
	tests := []struct {
		args []string
		file string
	}{
		{[]string{"kv", "--quiet"}, "kv/sorted.txt"},
		{[]string{"list", "--quiet", "-"}, "list/transactions.txt"},
		{[]string{"state", "--json", "-"}, "state/dump.jsonl"},
		{[]string{"payload", "--json", "-"}, "payload/prague-engine.json"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(sample(tt.file))
			require.NoError(t, err)
			fromStdin := runCLI(t, string(data), tt.args...)
			require.Equal(t, exitOK, fromStdin.code, fromStdin.stderr)
			args := slices.DeleteFunc(slices.Clone(tt.args), func(a string) bool { return a == "-" })
			fromFile := runCLI(t, "", append(args, sample(tt.file))...)
			require.Equal(t, exitOK, fromFile.code, fromFile.stderr)
			assert.Equal(t, fromFile.stdout, fromStdin.stdout)
		})
	}
}

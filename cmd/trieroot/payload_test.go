package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPayloadWrappers reads the samples in the other wrappings that
// trieroot accepts: a JSON-RPC response around engine_getPayload's result,
// and a beacon block's body alone.
func TestPayloadWrappers(t *testing.T) {
	read := func(name string) map[string]any {
		data, err := os.ReadFile(sample(name))
		require.NoError(t, err)
		var v map[string]any
		require.NoError(t, json.Unmarshal(data, &v))
		return v
	}
	write := func(v any) string {
		data, err := json.Marshal(v)
		require.NoError(t, err)
		path := filepath.Join(t.TempDir(), "payload.json")
		require.NoError(t, os.WriteFile(path, data, 0o644))
		return path
	}
	beacon := read("payload/shanghai-beacon.json")
	body := beacon["message"].(map[string]any)["body"]
	tests := []struct {
		name, file string
		args       []string
		want       string
	}{
		{"JSON-RPC response", write(map[string]any{"jsonrpc": "2.0", "id": 7, "result": read("payload/cancun-getpayload.json")}),
			[]string{"--parent-beacon-root", "0xd9ac1a638e57921f7440a78d700296e162bdec404c52988e97eda38aa09f78b3"}, "payload/cancun-engine.json"},
		{"beacon block body", write(body), nil, "payload/shanghai-beacon.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runCLI(t, "", append([]string{"payload", "--json", tt.file}, tt.args...)...)
			require.Equal(t, exitOK, res.code, res.stderr)
			want := runCLI(t, "", "payload", "--json", sample(tt.want))
			require.Equal(t, exitOK, want.code, want.stderr)
			assert.JSONEq(t, want.stdout, res.stdout)
		})
	}
}

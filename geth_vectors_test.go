package stacktrie_test

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie/derivesha"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

// gethVector is a case written by go-ethereum (compat/internal/gen): byte
// strings are 0x-hex, node paths one hex digit per nibble, nodes sorted by path.
type gethVector struct {
	Name  string `json:"name"`
	Pairs []struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	} `json:"pairs"`
	Items []string `json:"items"`
	Root  string   `json:"root"`
	Nodes []node   `json:"nodes"`
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	require.NoError(t, err, "hex %q", s)
	return b
}

// digitsOfNibbles turns the hex of a nibble path, two digits a nibble, into
// one digit a nibble.
func digitsOfNibbles(path string) string {
	var digits strings.Builder
	for i := 1; i < len(path); i += 2 {
		digits.WriteByte(path[i])
	}
	return digits.String()
}

// TestGethVectors checks roots and committed nodes against go-ethereum's
// answers, stored in testdata/geth so that this module needs no go-ethereum.
func TestGethVectors(t *testing.T) {
	files, err := filepath.Glob("testdata/geth/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files, "go generate in compat writes the vectors")
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		var v gethVector
		require.NoError(t, json.Unmarshal(data, &v), file)
		t.Run(v.Name, func(t *testing.T) {
			pairs := make([]testgen.Pair, len(v.Pairs))
			for i, p := range v.Pairs {
				pairs[i] = testgen.Pair{Key: unhex(t, p.Key), Value: unhex(t, p.Value)}
			}
			for _, mode := range hashingModes {
				root, nodes := build(t, mode.new, pairs)
				assert.Equal(t, v.Root, root.String(), mode.name)
				// The order is checked on our paths, two hex digits a
				// nibble, which childrenFirst steps through nibble by
				// nibble; the vectors' paths have a digit a nibble.
				assert.NoError(t, childrenFirst(nodes), mode.name)
				for i := range nodes {
					nodes[i].Path = digitsOfNibbles(nodes[i].Path)
					nodes[i].Blob = "0x" + nodes[i].Blob
				}
				assert.Equal(t, byPath(v.Nodes), byPath(nodes), mode.name)
			}

			if v.Items != nil {
				items := make(derivesha.Bytes, len(v.Items))
				for i, item := range v.Items {
					items[i] = unhex(t, item)
				}
				assert.Equal(t, v.Root, derivesha.DeriveSha(items, nil).String(), "DeriveSha")
			}
		})
	}
}

// TestChildrenFirstEveryDepth checks the order check that TestGethVectors
// relies on: a node reported after its ancestor at any depth, odd or even,
// is caught, and a node reported after its descendants is not.
func TestChildrenFirstEveryDepth(t *testing.T) {
	// Paths as build reports them: hex, two digits a nibble.
	tests := []struct {
		name  string
		paths []string
		ok    bool
	}{
		{"children first", []string{"0a0b0c", "0a0b", "0a", ""}, true},
		{"siblings in any order", []string{"0b", "0a", ""}, true},
		{"after the root", []string{"", "0a"}, false},
		{"after its parent at depth 1", []string{"0a", "0a0b"}, false},
		{"after its grandparent at depth 1", []string{"0a", "0a0b0c"}, false},
		{"after its ancestor at depth 3", []string{"0a0b0c", "0a0b0c0d0e"}, false},
		{"after its ancestor at depth 2", []string{"0a0b", "0a0b0c"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes := make([]node, len(tt.paths))
			for i, p := range tt.paths {
				nodes[i] = node{Path: p}
			}
			err := childrenFirst(nodes)
			if tt.ok {
				assert.NoError(t, err)
			} else {
				assert.Error(t, err)
			}
		})
	}
}

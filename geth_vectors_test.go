package stacktrie_test

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/derivesha"
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
			nodes := []node{}
			tr := stacktrie.New(func(path []byte, hash stacktrie.Hash, blob []byte) {
				var digits strings.Builder
				for _, n := range path {
					digits.WriteByte("0123456789abcdef"[n])
				}
				nodes = append(nodes, node{digits.String(), hash.String(), "0x" + hex.EncodeToString(blob)})
			})
			for _, p := range v.Pairs {
				require.NoError(t, tr.Update(unhex(t, p.Key), unhex(t, p.Value)))
			}
			assert.Equal(t, v.Root, tr.Hash().String())
			slices.SortFunc(nodes, func(a, b node) int { return strings.Compare(a.Path, b.Path) })
			assert.Equal(t, v.Nodes, nodes)

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

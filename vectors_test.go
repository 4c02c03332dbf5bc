package stacktrie_test

import (
	"encoding/hex"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie/internal/testgen"
)

var update = flag.Bool("update", false, "rewrite testdata/vectors.json from the reference trie")

const vectorsFile = "testdata/vectors.json"

// vector is a key set with its root and committed nodes, keys and values in
// hex, nodes as the trie reports them.
type vector struct {
	Name  string      `json:"name"`
	Pairs [][2]string `json:"pairs"`
	Root  string      `json:"root"`
	Nodes []node      `json:"nodes"`
}

// vectorInputs are the key sets of testdata/vectors.json.
func vectorInputs() map[string][]testgen.Pair {
	r := rand.New(rand.NewPCG(2024, 11))
	items := make([]testgen.Pair, 130)
	for i := range items {
		items[i] = testgen.Pair{Key: testgen.IndexKey(i), Value: testgen.Value(r, 1+r.IntN(200))}
	}
	derive := append(append(items[1:128:128], items[0]), items[128:]...)
	return map[string][]testgen.Pair{
		"puppy":         pairsOf("do", "verb", "dog", "puppy", "doge", "coin", "horse", "stallion"),
		"dogs":          pairsOf("doe", "reindeer", "dog", "puppy", "dogglesworth", "cat"),
		"single item":   pairsOf("A", strings.Repeat("a", 50)),
		"empty key":     pairsOf("", "root", "a", "1"),
		"prefix chain":  pairsOf("d", strings.Repeat("1", 40), "do", "2", "dog", strings.Repeat("3", 40), "dogs", "4"),
		"embedded":      pairsOf("\x01", "a", "\x02", "b", "\x11", "c"),
		"long keys":     pairsOf(strings.Repeat("k", 70)+"a", "1", strings.Repeat("k", 70)+"b", "2"),
		"hashed keys":   testgen.Pairs(r, testgen.Shapes[0], 40),
		"sequential":    testgen.Pairs(r, testgen.Shapes[1], 40),
		"short keys":    testgen.Pairs(r, testgen.Shapes[2], 40),
		"derivesha 130": derive,
	}
}

func encodePairs(pairs []testgen.Pair) [][2]string {
	out := make([][2]string, len(pairs))
	for i, p := range pairs {
		out[i] = [2]string{hex.EncodeToString(p.Key), hex.EncodeToString(p.Value)}
	}
	return out
}

func decodePairs(t *testing.T, in [][2]string) []testgen.Pair {
	pairs := make([]testgen.Pair, len(in))
	for i, kv := range in {
		key, err := hex.DecodeString(kv[0])
		require.NoError(t, err)
		value, err := hex.DecodeString(kv[1])
		require.NoError(t, err)
		pairs[i] = testgen.Pair{Key: key, Value: value}
	}
	return pairs
}

// TestVectors checks the trie against the vectors in testdata, which the
// reference trie wrote (go test -run TestVectors -update).
func TestVectors(t *testing.T) {
	if *update {
		var vectors []vector
		for name, pairs := range vectorInputs() {
			root, nodes := oracle(pairs)
			vectors = append(vectors, vector{name, encodePairs(pairs), root.String(), nodes})
		}
		slices.SortFunc(vectors, func(a, b vector) int { return strings.Compare(a.Name, b.Name) })
		data, err := json.MarshalIndent(vectors, "", " ")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(vectorsFile, append(data, '\n'), 0o644))
	}
	data, err := os.ReadFile(vectorsFile)
	require.NoError(t, err)
	var vectors []vector
	require.NoError(t, json.Unmarshal(data, &vectors))
	require.Len(t, vectors, len(vectorInputs()))
	for _, v := range vectors {
		t.Run(v.Name, func(t *testing.T) {
			for _, mode := range hashingModes {
				root, nodes := build(t, mode.new, decodePairs(t, v.Pairs))
				assert.Equal(t, v.Root, root.String(), mode.name)
				assertNodes(t, v.Nodes, nodes, mode.name)
			}
		})
	}
}

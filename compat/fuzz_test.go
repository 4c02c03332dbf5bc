package compat_test

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/compat/internal/trietest"
)

// Bounds on what one input decodes to, to keep each run quick: the fuzzer
// minimizes a new input by running it many times.
const (
	maxFuzzPairs      = 1024
	maxFuzzValueBytes = 64 << 10
)

// decodeFuzzPairs turns arbitrary bytes into a normalized key set with
// non-empty values. The input is a sequence of records:
//
//	key length byte k: the key is the next k%34 bytes (fewer at the end of input)
//	value length byte v: the value is 1+v bytes for v < 0xf0, else (v-0xef) KiB
//	the value bytes, filled up with zeros at the end of input
//
// Values past a total of maxFuzzValueBytes are cut short, to one byte at least.
//
// Key lengths of 0 to 33 bytes give empty keys, keys that are prefixes of
// others, and 32-byte keys as hashed state keys have.
func decodeFuzzPairs(data []byte) []trietest.Pair {
	var pairs []trietest.Pair
	valueBudget := maxFuzzValueBytes
	for len(data) > 0 && len(pairs) < maxFuzzPairs {
		keyLen := min(int(data[0])%34, len(data)-1)
		key := data[1 : 1+keyLen]
		data = data[1+keyLen:]

		valueLen := 1
		if len(data) > 0 {
			if v := int(data[0]); v < 0xf0 {
				valueLen = 1 + v
			} else {
				valueLen = (v - 0xef) << 10
			}
			data = data[1:]
		}
		valueLen = max(1, min(valueLen, valueBudget))
		valueBudget -= valueLen
		value := make([]byte, valueLen)
		data = data[copy(value, data):]
		pairs = append(pairs, trietest.Pair{Key: key, Value: value})
	}
	return trietest.Normalize(pairs)
}

// FuzzDifferential checks roots and reported nodes against go-ethereum's
// ordinary trie on every input, and against its StackTrie on the key sets
// that it accepts (no empty key, no key a prefix of another).
func FuzzDifferential(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		pairs := decodeFuzzPairs(data)
		var rec trietest.Recorder
		tr := stacktrie.New(rec.OnNode)
		require.NoError(t, trietest.Insert(tr, pairs))
		root := common.Hash(tr.Hash())
		require.NoError(t, trietest.CheckChildrenFirst(rec.Nodes))
		got := trietest.SortedByPath(rec.Nodes)

		wantRoot, wantNodes, err := trietest.GethTrie(pairs)
		require.NoError(t, err)
		require.Equal(t, wantRoot, root, "root vs geth trie, %d pairs", len(pairs))
		require.NoError(t, trietest.SameNodes(wantNodes, got), "nodes vs geth trie commit")

		if trietest.GethStackTrieAccepts(pairs) {
			stRoot, stNodes, err := trietest.GethStackTrie(pairs)
			require.NoError(t, err)
			require.Equal(t, stRoot, root, "root vs geth stack trie, %d pairs", len(pairs))
			require.NoError(t, trietest.SameNodes(trietest.SortedByPath(stNodes), got), "nodes vs geth stack trie")
		}
	})
}

package compat_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/assert"
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
//	key length byte k: for k < 0xcc, the key is the next k%34 bytes; for
//	  k >= 0xcc, the next byte n gives a long key of 34+n bytes, or
//	  34+256+n for an odd k (fewer at the end of input)
//	value length byte v: the value is 1+v bytes for v < 0xf0, else (v-0xef) KiB
//	the value bytes, filled up with zeros at the end of input
//
// Values past a total of maxFuzzValueBytes are cut short, to one byte at least.
//
// Key lengths of 0 to 33 bytes give empty keys, keys that are prefixes of
// others, and 32-byte keys as hashed state keys have; long keys, up to
// maxFuzzKeyLen bytes, give leaf and extension paths whose hex-prefix needs
// a long RLP header (56 bytes and more) and nodes over a Keccak block.
func decodeFuzzPairs(data []byte) []trietest.Pair {
	var pairs []trietest.Pair
	valueBudget := maxFuzzValueBytes
	for len(data) > 0 && len(pairs) < maxFuzzPairs {
		k := data[0]
		data = data[1:]
		keyLen := int(k) % 34
		if k >= longKeyByte {
			keyLen = 34
			if len(data) > 0 {
				keyLen += int(data[0]) + 256*int(k&1)
				data = data[1:]
			}
		}
		keyLen = min(keyLen, len(data))
		key := data[:keyLen]
		data = data[keyLen:]

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

// longKeyByte is the first key length byte of a long key in decodeFuzzPairs.
const longKeyByte = 0xcc

// maxFuzzKeyLen is the longest key decodeFuzzPairs makes.
const maxFuzzKeyLen = 34 + 256 + 255

// longKeyRecord writes a record of decodeFuzzPairs with a key of 34 bytes
// or more and a value of 1 to 240 bytes.
func longKeyRecord(key, value []byte) []byte {
	n := len(key) - 34
	rec := []byte{longKeyByte | byte(n>>8), byte(n)}
	rec = append(rec, key...)
	return append(append(rec, byte(len(value)-1)), value...)
}

// FuzzDifferential checks roots and reported nodes against go-ethereum's
// ordinary trie on every input, and against its StackTrie on the key sets
// that it accepts (no empty key, no key a prefix of another).
func FuzzDifferential(f *testing.F) {
	long := bytes.Repeat([]byte{0x5a}, maxFuzzKeyLen)
	// Two keys of 100 bytes that part at the last nibble, under one long
	// extension; one of 300 bytes; a key of 55 and one of 56 bytes, where
	// the leaf's hex-prefix needs a long RLP header.
	f.Add(slices.Concat(longKeyRecord(append(bytes.Clone(long[:99]), 0x10), []byte("a")),
		longKeyRecord(append(bytes.Clone(long[:99]), 0x11), []byte("b"))))
	f.Add(longKeyRecord(long[:300], bytes.Repeat([]byte{7}, 100)))
	f.Add(slices.Concat(longKeyRecord(append(bytes.Clone(long[:54]), 1), []byte("x")),
		longKeyRecord(append(bytes.Clone(long[:55]), 2), []byte("y"))))
	// A chain of keys that extend one another, the longest of maxFuzzKeyLen bytes.
	f.Add(slices.Concat([]byte{1, 0x5a, 0}, []byte("v"), longKeyRecord(long[:40], []byte("w")),
		longKeyRecord(long[:290], []byte("x")), longKeyRecord(long, []byte("y"))))
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

// TestDecodeFuzzPairsKeyLengths checks that the fuzz input reaches every key
// length from 0 to maxFuzzKeyLen bytes, and that short keys decode as they
// did before long keys were added, so that the stored corpus keeps its sense.
func TestDecodeFuzzPairsKeyLengths(t *testing.T) {
	for n := 0; n <= maxFuzzKeyLen; n++ {
		key := bytes.Repeat([]byte{byte(n)}, n)
		var input []byte
		if n < 34 {
			input = append(append([]byte{byte(n)}, key...), 0, 'v')
		} else {
			input = longKeyRecord(key, []byte("v"))
		}
		require.Equal(t, []trietest.Pair{{Key: key, Value: []byte("v")}}, decodeFuzzPairs(input), "key of %d bytes", n)
	}
	// Below the long-key bytes, the length byte counts modulo 34.
	assert.Equal(t, []trietest.Pair{{Key: []byte("ab"), Value: []byte("v")}}, decodeFuzzPairs([]byte{34 + 2, 'a', 'b', 0, 'v'}))
	assert.Equal(t, []trietest.Pair{{Key: []byte("abc"), Value: []byte{0}}}, decodeFuzzPairs([]byte{longKeyByte - 1, 'a', 'b', 'c'}),
		"0xcb: a key of 203 mod 34 = 33 bytes, cut to the input")
	// A long key cut short by the end of the input.
	assert.Equal(t, []trietest.Pair{{Key: []byte("abc"), Value: []byte{0}}}, decodeFuzzPairs([]byte{longKeyByte, 10, 'a', 'b', 'c'}))
}

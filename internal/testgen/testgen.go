// Package testgen makes sorted key/value sets of the shapes that exercise a
// Merkle-Patricia trie: hashed keys, sequential keys, short keys whose nodes
// are embedded, keys that are prefixes of others, values across the RLP and
// Keccak block boundaries.
//
// Tests that draw random inputs take their seed from Seed, which reads the
// -seed flag that this package adds to every test binary importing it, or
// $STACKTRIE_SEED, and logs how to replay a failing test with its seed.
package testgen

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
)

// Pair is a key and its value.
type Pair struct {
	Key, Value []byte
}

// Shape names a way of drawing keys.
type Shape struct {
	Name string
	Keys func(r *rand.Rand, n int) [][]byte
}

// Shapes are the key shapes the tests draw from.
var Shapes = []Shape{
	{"hashed32", func(r *rand.Rand, n int) [][]byte { return randomKeys(r, n, 32, 32) }},
	{"sequential8", func(r *rand.Rand, n int) [][]byte {
		strides := []uint64{1, 15, 16, 255, 256, 1024, 65536}
		return sequentialKeys(r.Uint64N(1<<20), strides[r.IntN(len(strides))], n)
	}},
	{"short", func(r *rand.Rand, n int) [][]byte { return randomKeys(r, n, 1, 3) }},
	{"mixed", func(r *rand.Rand, n int) [][]byte { return randomKeys(r, n, 0, 40) }},
	{"prefixes", prefixKeys},
	{"indices", func(r *rand.Rand, n int) [][]byte { return indexKeys(n) }},
	{"long", func(r *rand.Rand, n int) [][]byte { return randomKeys(r, n, 60, 130) }},
}

// ValueSizes are value lengths at the edges that matter: one byte, a node
// just under and over 32 bytes, the one-byte RLP header limit (55/56) and a
// Keccak block (136).
var ValueSizes = []int{1, 2, 20, 31, 32, 33, 55, 56, 57, 135, 136, 137, 300, 1100}

// Pairs draws n keys of the given shape, sorts them, drops duplicates and
// gives each a value whose size is drawn from ValueSizes.
func Pairs(r *rand.Rand, shape Shape, n int) []Pair {
	keys := Unique(shape.Keys(r, n))
	pairs := make([]Pair, len(keys))
	for i, k := range keys {
		pairs[i] = Pair{Key: k, Value: Value(r, ValueSizes[r.IntN(len(ValueSizes))])}
	}
	return pairs
}

// Value returns size random bytes; a single byte is below 0x80 half the time,
// so one-byte values take both of their RLP forms.
func Value(r *rand.Rand, size int) []byte {
	v := make([]byte, size)
	for i := range v {
		v[i] = byte(r.Uint32())
	}
	return v
}

// Unique sorts keys and removes duplicates.
func Unique(keys [][]byte) [][]byte {
	slices.SortFunc(keys, bytes.Compare)
	return slices.CompactFunc(keys, bytes.Equal)
}

func randomKeys(r *rand.Rand, n, minLen, maxLen int) [][]byte {
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = Value(r, minLen+r.IntN(maxLen-minLen+1))
	}
	return keys
}

func sequentialKeys(start, stride uint64, n int) [][]byte {
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = binary.BigEndian.AppendUint64(nil, start+uint64(i)*stride)
	}
	return keys
}

// prefixKeys draws chains of keys that extend one another, so that values
// end at branches, mixed with keys branching off the chains.
func prefixKeys(r *rand.Rand, n int) [][]byte {
	var keys [][]byte
	for len(keys) < n {
		key := Value(r, r.IntN(3))
		keys = append(keys, key)
		for len(keys) < n && r.IntN(4) != 0 {
			key = append(slices.Clone(key), Value(r, 1+r.IntN(3))...)
			keys = append(keys, key)
		}
	}
	return keys
}

// IndexKey returns the RLP encoding of i, the key DeriveSha gives element i.
func IndexKey(i int) []byte {
	if i == 0 {
		return []byte{0x80}
	}
	if i < 0x80 {
		return []byte{byte(i)}
	}
	b := binary.BigEndian.AppendUint64(nil, uint64(i))
	for b[0] == 0 {
		b = b[1:]
	}
	return append([]byte{0x80 + byte(len(b))}, b...)
}

func indexKeys(n int) [][]byte {
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = IndexKey(i)
	}
	return keys
}

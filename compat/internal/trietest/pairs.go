// Package trietest holds what the compat tests, benchmarks and vector
// generator share: key/value sets of many shapes, and runners that feed a set
// to stacktrie and to go-ethereum's tries and collect the root and the
// committed nodes in one comparable form.
package trietest

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"

	"github.com/ethereum/go-ethereum/rlp"
)

// Pair is one key/value entry of a trie.
type Pair struct {
	Key, Value []byte
}

// Values makes the value of the i-th pair of a set.
type Values func(rng *rand.Rand, i int) []byte

// RandomBytes returns n bytes from rng.
func RandomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// ValuesOfLen makes random values of exactly n bytes (n > 0).
func ValuesOfLen(n int) Values {
	return func(rng *rand.Rand, _ int) []byte { return RandomBytes(rng, n) }
}

// ValuesBetween makes random values of minLen to maxLen bytes inclusive (minLen > 0).
func ValuesBetween(minLen, maxLen int) Values {
	return func(rng *rand.Rand, _ int) []byte { return RandomBytes(rng, minLen+rng.IntN(maxLen-minLen+1)) }
}

// ZeroValues makes values of n zero bytes, as go-ethereum's own stack trie
// benchmark inserts.
func ZeroValues(n int) Values {
	return func(*rand.Rand, int) []byte { return make([]byte, n) }
}

// Normalize sorts pairs by key and drops all but the first of equal keys, so
// the result is a valid input for an ordered trie. It reorders pairs in place.
func Normalize(pairs []Pair) []Pair {
	slices.SortStableFunc(pairs, func(a, b Pair) int { return bytes.Compare(a.Key, b.Key) })
	return slices.CompactFunc(pairs, func(a, b Pair) bool { return bytes.Equal(a.Key, b.Key) })
}

// hasPrefixKeys reports whether a key of the normalized set is a prefix of
// another. In sorted order a key that prefixes any later key prefixes the next
// one, so comparing neighbours is enough.
func hasPrefixKeys(pairs []Pair) bool {
	for i := 1; i < len(pairs); i++ {
		if bytes.HasPrefix(pairs[i].Key, pairs[i-1].Key) {
			return true
		}
	}
	return false
}

// RandomKeys returns up to n pairs with random keys of minLen to maxLen bytes
// drawn from alphabet (any byte when alphabet is empty), normalized. Short
// keys or a small alphabet give fewer than n pairs, since duplicates go.
func RandomKeys(rng *rand.Rand, n, minLen, maxLen int, alphabet []byte, values Values) []Pair {
	pairs := make([]Pair, n)
	for i := range pairs {
		key := make([]byte, minLen+rng.IntN(maxLen-minLen+1))
		for j := range key {
			if len(alphabet) == 0 {
				key[j] = byte(rng.Uint32())
			} else {
				key[j] = alphabet[rng.IntN(len(alphabet))]
			}
		}
		pairs[i] = Pair{Key: key, Value: values(rng, i)}
	}
	return Normalize(pairs)
}

// SharedPrefixKeys returns up to n pairs whose keys of keyLen bytes all start
// with the same random prefix of prefixLen bytes, so the root is an
// extension node.
func SharedPrefixKeys(rng *rand.Rand, n, prefixLen, keyLen int, values Values) []Pair {
	prefix := RandomBytes(rng, prefixLen)
	pairs := RandomKeys(rng, n, keyLen-prefixLen, keyLen-prefixLen, nil, values)
	for i := range pairs {
		pairs[i].Key = append(slices.Clip(prefix), pairs[i].Key...)
	}
	return pairs
}

// Sequential returns n pairs with 8-byte big-endian keys start, start+stride,
// start+2*stride and so on. The keys must not wrap around.
func Sequential(rng *rand.Rand, n int, start, stride uint64, values Values) []Pair {
	pairs := make([]Pair, n)
	for i := range pairs {
		key := binary.BigEndian.AppendUint64(nil, start+uint64(i)*stride)
		pairs[i] = Pair{Key: key, Value: values(rng, i)}
	}
	return pairs
}

// indexKey returns the key of list position i in a DeriveSha trie: i in RLP.
func indexKey(i int) []byte {
	return rlp.AppendUint64(nil, uint64(i))
}

// DeriveShaPairs returns the pairs a DeriveSha trie holds for the encoded
// list items: indexKey(i) to items[i], in key order (1..127, 0, 128, ...).
func DeriveShaPairs(items [][]byte) []Pair {
	pairs := make([]Pair, len(items))
	for i, item := range items {
		pairs[i] = Pair{Key: indexKey(i), Value: item}
	}
	return Normalize(pairs)
}

// RandomItems returns n random byte strings of minLen to maxLen bytes, stand-ins for
// the encoded items of a DeriveSha list.
func RandomItems(rng *rand.Rand, n, minLen, maxLen int) [][]byte {
	items := make([][]byte, n)
	values := ValuesBetween(minLen, maxLen)
	for i := range items {
		items[i] = values(rng, i)
	}
	return items
}

// Packed returns a copy of pairs whose keys and values sit one after another
// in a single buffer, in order, as an iterator over a database or a file
// would hand them out. Benchmarks use it so that reading the input costs no
// cache misses that a sorted set of separately allocated keys would.
func Packed(pairs []Pair) []Pair {
	size := 0
	for _, p := range pairs {
		size += len(p.Key) + len(p.Value)
	}
	buf := make([]byte, 0, size)
	packed := make([]Pair, len(pairs))
	for i, p := range pairs {
		start := len(buf)
		buf = append(buf, p.Key...)
		buf = append(buf, p.Value...)
		keyEnd := start + len(p.Key)
		packed[i] = Pair{Key: buf[start:keyEnd:keyEnd], Value: buf[keyEnd:len(buf):len(buf)]}
	}
	return packed
}

package stacktrie_test

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"

	"golang.org/x/crypto/sha3"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

// insert100K is go-ethereum's own StackTrie benchmark shape: 100k 8-byte
// big-endian keys 1024 apart, with 20-byte zero values.
func insert100K() []testgen.Pair {
	pairs := make([]testgen.Pair, 100_000)
	value := make([]byte, 20)
	for i := range pairs {
		pairs[i] = testgen.Pair{Key: binary.BigEndian.AppendUint64(nil, uint64(i)<<10), Value: value}
	}
	return pairs
}

// random32 is a hashed-key state: n sorted random 32-byte keys with 32-byte values.
func random32(n int) []testgen.Pair {
	r := rand.New(rand.NewPCG(32, 32))
	pairs := make([]testgen.Pair, n)
	for i := range pairs {
		pairs[i] = testgen.Pair{Key: testgen.Value(r, 32), Value: testgen.Value(r, 32)}
	}
	slices.SortFunc(pairs, func(a, b testgen.Pair) int { return bytes.Compare(a.Key, b.Key) })
	return pairs
}

func BenchmarkInsert100K(b *testing.B) { benchmarkTrie(b, insert100K()) }

func BenchmarkRandom32(b *testing.B) { benchmarkTrie(b, random32(100_000)) }

// benchmarkTrie measures a reused Trie over pairs ("trie"), and beside it the
// time x/crypto's scalar Keccak-256 alone takes over the blobs of the nodes
// the trie hashes ("keccak"): the floor for hashing nodes one at a time.
func benchmarkTrie(b *testing.B, pairs []testgen.Pair) {
	b.Run("trie", func(b *testing.B) {
		b.ReportAllocs()
		tr := stacktrie.New(nil)
		for b.Loop() {
			tr.Reset()
			for _, p := range pairs {
				if err := tr.Update(p.Key, p.Value); err != nil {
					b.Fatal(err)
				}
			}
			tr.Hash()
		}
	})
	b.Run("keccak", func(b *testing.B) {
		blobs := hashedBlobs(pairs)
		b.ReportAllocs()
		h := sha3.NewLegacyKeccak256()
		var out [32]byte
		for b.Loop() {
			for _, blob := range blobs {
				h.Reset()
				h.Write(blob)
				h.(interface{ Read([]byte) (int, error) }).Read(out[:])
			}
		}
		b.ReportMetric(float64(len(blobs)), "hashes/op")
		b.ReportMetric(float64(keccakBlocks(blobs)), "blocks/op")
	})
}

// hashedBlobs returns the encodings of every node the trie hashes for pairs:
// exactly those it reports, since it reports every node it hashes.
func hashedBlobs(pairs []testgen.Pair) [][]byte {
	var blobs [][]byte
	tr := stacktrie.New(func(_ []byte, _ stacktrie.Hash, blob []byte) {
		blobs = append(blobs, bytes.Clone(blob))
	})
	for _, p := range pairs {
		if err := tr.Update(p.Key, p.Value); err != nil {
			panic(err)
		}
	}
	tr.Hash()
	return blobs
}

// keccakBlocks counts the 136-byte Keccak-256 blocks absorbed for blobs,
// padding included.
func keccakBlocks(blobs [][]byte) int {
	n := 0
	for _, blob := range blobs {
		n += len(blob)/136 + 1
	}
	return n
}

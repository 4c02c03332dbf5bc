// Package keccakonly measures the floor under a trie benchmark: the time
// x/crypto's scalar Keccak-256 alone takes over the blobs of the nodes the
// trie hashes, one at a time. A trie cannot hash those nodes faster one by
// one, so the distance from this floor is the trie's own overhead.
package keccakonly

import (
	"bytes"
	"testing"

	"golang.org/x/crypto/sha3"

	"github.com/stacktrie/stacktrie"
)

// Blobs collects copies of the node blobs reported to OnNode, a
// stacktrie.NodeFunc. A trie reports every node it hashes, the
// root included, so these are exactly the blobs it hashes.
type Blobs [][]byte

// OnNode records blob.
func (bs *Blobs) OnNode(_ []byte, _ stacktrie.Hash, blob []byte) {
	*bs = append(*bs, bytes.Clone(blob))
}

// Benchmark hashes every blob once per iteration and reports the hashes and
// the 136-byte Keccak blocks (padding included) per operation.
func Benchmark(b *testing.B, blobs Blobs) {
	b.ReportAllocs()
	h := sha3.NewLegacyKeccak256().(interface {
		Reset()
		Write([]byte) (int, error)
		Read([]byte) (int, error)
	})
	var out [32]byte
	for b.Loop() {
		for _, blob := range blobs {
			h.Reset()
			h.Write(blob)
			h.Read(out[:])
		}
	}
	blocks := 0
	for _, blob := range blobs {
		blocks += len(blob)/136 + 1
	}
	b.ReportMetric(float64(len(blobs)), "hashes/op")
	b.ReportMetric(float64(blocks), "blocks/op")
}

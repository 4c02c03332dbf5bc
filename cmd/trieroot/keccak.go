package main

import "golang.org/x/crypto/sha3"

// keccak256 returns the Keccak-256 hash of data, Ethereum's hash: the
// original Keccak padding, not SHA3-256's.
func keccak256(data ...[]byte) [32]byte {
	h := sha3.NewLegacyKeccak256()
	for _, d := range data {
		h.Write(d)
	}
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

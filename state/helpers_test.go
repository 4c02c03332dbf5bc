package state_test

import (
	"golang.org/x/crypto/sha3"

	"github.com/stacktrie/stacktrie"
)

// keccak is Keccak-256 through x/crypto, apart from the package's hashing.
func keccak(data []byte) stacktrie.Hash {
	var h stacktrie.Hash
	d := sha3.NewLegacyKeccak256()
	d.Write(data)
	d.Sum(h[:0])
	return h
}

package compat

import (
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/stacktrie/stacktrie"
)

// VerifyRangeProof has the signature of go-ethereum's trie.VerifyRangeProof
// and gives its verdicts, computed in one streaming pass by a pooled
// stacktrie.RangeVerifier: a go-ethereum fork switches by changing the
// package it calls. As in go-ethereum, a nil proof means the range is the
// whole trie; unlike it, each node read from proof is checked against the
// hash it is stored under.
func VerifyRangeProof(rootHash common.Hash, firstKey []byte, keys [][]byte, values [][]byte, proof ethdb.KeyValueReader) (bool, error) {
	v := rangeVerifiers.Get().(*stacktrie.RangeVerifier)
	defer rangeVerifiers.Put(v)
	if proof == nil {
		return v.VerifyFunc(stacktrie.Hash(rootHash), firstKey, keys, values, nil)
	}
	return v.VerifyFunc(stacktrie.Hash(rootHash), firstKey, keys, values, func(hash stacktrie.Hash) []byte {
		node, _ := proof.Get(hash[:])
		return node
	})
}

var rangeVerifiers = sync.Pool{New: func() any { return stacktrie.NewRangeVerifier(nil) }}

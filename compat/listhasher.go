// Package compat connects stacktrie to go-ethereum. Its ListHasher lets
// go-ethereum's types.DeriveSha compute transaction, receipt and withdrawal
// roots with stacktrie; its tests check stacktrie against go-ethereum's tries
// root for root and node for node, and its benchmarks compare the two.
//
// It is a module of its own so that the stacktrie module does not depend on
// go-ethereum.
package compat

//go:generate go run ./internal/gen -out ../testdata/geth

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/stacktrie/stacktrie"
)

// ListHasher is a types.ListHasher backed by a stacktrie.Trie, which it reuses
// from one list to the next: after the first lists of a given size, hashing a
// list allocates nothing. Use it wherever go-ethereum takes a ListHasher:
//
//	root := types.DeriveSha(txs, compat.NewListHasher())
//
// Keys must come in ascending order, as types.DeriveSha gives them. A
// ListHasher is not safe for concurrent use.
type ListHasher struct {
	trie *stacktrie.Trie
}

var _ types.ListHasher = (*ListHasher)(nil)

// NewListHasher returns an empty ListHasher.
func NewListHasher() *ListHasher {
	return &ListHasher{trie: stacktrie.New(nil)}
}

// Reset empties the hasher for a new list.
func (h *ListHasher) Reset() {
	h.trie.Reset()
}

// Update inserts a pair. It copies key and value, so the caller may reuse
// them. It fails on an empty value, a key not above the previous one, or an
// Update after Hash without a Reset in between.
func (h *ListHasher) Update(key, value []byte) error {
	return h.trie.Update(key, value)
}

// Hash returns the root of the pairs inserted since the last Reset.
func (h *ListHasher) Hash() common.Hash {
	return common.Hash(h.trie.Hash())
}

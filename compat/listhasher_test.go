package compat_test

import (
	"fmt"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/compat"
	"github.com/stacktrie/stacktrie/compat/internal/trietest"
	"github.com/stacktrie/stacktrie/derivesha"
)

// TestListHasherMatchesStackTrie runs types.DeriveSha with one ListHasher
// and with a new go-ethereum StackTrie each time, over transactions of every
// type and over lists of random pre-encoded items.
func TestListHasherMatchesStackTrie(t *testing.T) {
	rng := caseRand(t, "listhasher")
	hasher := compat.NewListHasher()
	for _, n := range []int{0, 1, 2, 16, 127, 128, 129, 300} {
		for _, txType := range txTypes {
			t.Run(fmt.Sprintf("txs/type=%d/n=%d", txType, n), func(t *testing.T) {
				txs := signedTxs(t, rng, txType, n)
				assert.Equal(t, types.DeriveSha(txs, trie.NewStackTrie(nil)), types.DeriveSha(txs, hasher))
			})
		}
		t.Run(fmt.Sprintf("items/n=%d", n), func(t *testing.T) {
			items := derivesha.Bytes(trietest.RandomItems(rng, n, 1, 600))
			assert.Equal(t, types.DeriveSha(items, trie.NewStackTrie(nil)), types.DeriveSha(items, hasher))
		})
	}
}

// TestListHasherRefusesWhatStackTrieRefuses checks that the ListHasher, like
// go-ethereum's StackTrie, refuses an empty value and a key that is not above
// the last, that a refused pair leaves the root as it was, and that after
// Hash only Reset makes the hasher take pairs again.
func TestListHasherRefusesWhatStackTrieRefuses(t *testing.T) {
	hasher := compat.NewListHasher()
	geth := trie.NewStackTrie(nil)
	refusals := []struct {
		name       string
		key, value []byte
		err        error
	}{
		{"empty value", []byte{0x03}, nil, stacktrie.ErrEmptyValue},
		{"key below the last", []byte{0x01}, []byte("one"), stacktrie.ErrKeyOrder},
		{"repeated key", []byte{0x02}, []byte("two again"), stacktrie.ErrKeyOrder},
	}
	require.NoError(t, hasher.Update([]byte{0x02}, []byte("two")))
	require.NoError(t, geth.Update([]byte{0x02}, []byte("two")))
	for _, r := range refusals {
		assert.ErrorIs(t, hasher.Update(r.key, r.value), r.err, r.name)
		assert.Error(t, geth.Update(r.key, r.value), "geth: %s", r.name)
	}
	assert.Equal(t, geth.Hash(), hasher.Hash(), "root after refused pairs")

	assert.ErrorIs(t, hasher.Update([]byte{0x04}, []byte("four")), stacktrie.ErrFinalized)
	hasher.Reset()
	assert.NoError(t, hasher.Update([]byte{0x01}, []byte("one")), "after Reset")
}

package compat_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/compat"
	"github.com/stacktrie/stacktrie/derivesha"
)

// deriveShaLengths are the list lengths tested: around 128, where index
// keys grow from one byte to two, and a long list.
var deriveShaLengths = []int{0, 1, 127, 128, 129, 1000}

// TestDeriveShaMatchesGeth compares derivesha.DeriveSha, derivesha.Stream
// and the ListHasher with types.DeriveSha over go-ethereum's StackTrie, on
// the lists block headers commit to: transactions of each type and mixed,
// receipts with logs, and withdrawals.
func TestDeriveShaMatchesGeth(t *testing.T) {
	rng := caseRand(t, "derivesha-types")
	maxLen := deriveShaLengths[len(deriveShaLengths)-1]
	byType := make(map[byte]types.Transactions, len(txTypes))
	for _, txType := range txTypes {
		byType[txType] = signedTxs(t, rng, txType, maxLen)
	}
	mixed := make(types.Transactions, maxLen)
	for i := range mixed {
		mixed[i] = byType[txTypes[i%len(txTypes)]][i]
	}
	receipts := testReceipts(rng, maxLen)
	withdrawals := testWithdrawals(rng, maxLen)

	reused := stacktrie.New(nil)
	hasher := compat.NewListHasher()
	for _, n := range deriveShaLengths {
		for _, txType := range txTypes {
			t.Run(fmt.Sprintf("txs/type=%d/n=%d", txType, n), func(t *testing.T) {
				assertDeriveSha(t, byType[txType][:n], reused, hasher)
			})
		}
		t.Run(fmt.Sprintf("txs/mixed/n=%d", n), func(t *testing.T) {
			assertDeriveSha(t, mixed[:n], reused, hasher)
		})
		t.Run(fmt.Sprintf("receipts/n=%d", n), func(t *testing.T) {
			assertDeriveSha(t, receipts[:n], reused, hasher)
		})
		t.Run(fmt.Sprintf("withdrawals/n=%d", n), func(t *testing.T) {
			assertDeriveSha(t, withdrawals[:n], reused, hasher)
		})
	}
}

// assertDeriveSha checks every way stacktrie derives a list root against
// types.DeriveSha with go-ethereum's StackTrie.
func assertDeriveSha[L derivesha.List](t *testing.T, list L, reused *stacktrie.Trie, hasher *compat.ListHasher) {
	t.Helper()
	want := types.DeriveSha(list, trie.NewStackTrie(nil))
	if list.Len() == 0 {
		require.Equal(t, types.EmptyRootHash, want, "geth's root of an empty list")
	}
	assert.Equal(t, want, common.Hash(derivesha.DeriveSha(list, nil)), "derivesha.DeriveSha, pooled trie")
	assert.Equal(t, want, common.Hash(derivesha.DeriveSha(list, reused)), "derivesha.DeriveSha, reused trie")
	assert.Equal(t, want, types.DeriveSha(list, hasher), "types.DeriveSha with compat.ListHasher")

	stream := derivesha.NewStream(nil)
	var buf bytes.Buffer
	for i := range list.Len() {
		buf.Reset()
		list.EncodeIndex(i, &buf)
		require.NoError(t, stream.Append(buf.Bytes()), "stream append %d", i)
	}
	assert.Equal(t, want, common.Hash(stream.Hash()), "derivesha.Stream")
}

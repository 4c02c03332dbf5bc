package compat_test

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/derivesha"
)

// The receipts root of a block and the proof of one of its receipts, in one
// pass over go-ethereum's types.Receipts. Both verifiers accept the proof.
func Example_receiptProof() {
	receipts := make(types.Receipts, 150)
	for i := range receipts {
		r := &types.Receipt{Type: types.DynamicFeeTxType, Status: types.ReceiptStatusSuccessful, CumulativeGasUsed: 21000 * uint64(i+1)}
		r.Logs = []*types.Log{{Address: common.BytesToAddress([]byte{byte(i)}), Data: []byte("transfer")}}
		r.Bloom = types.CreateBloom(r)
		receipts[i] = r
	}
	root, proofs := derivesha.DeriveShaWithProofs(receipts, 130)
	fmt.Println(common.Hash(root) == types.DeriveSha(receipts, trie.NewStackTrie(nil)))

	// Verified here.
	enc, err := stacktrie.VerifyProof(root, derivesha.IndexKey(130), proofs[0])
	if err != nil {
		panic(err)
	}
	var receipt types.Receipt
	if err := receipt.UnmarshalBinary(enc); err != nil {
		panic(err)
	}
	fmt.Println(len(proofs[0]), "proof nodes; cumulative gas", receipt.CumulativeGasUsed)

	// Verified by go-ethereum, from a database of the nodes keyed by hash.
	db := memorydb.New()
	for _, node := range proofs[0] {
		db.Put(crypto.Keccak256(node), node)
	}
	gethEnc, err := trie.VerifyProof(common.Hash(root), derivesha.IndexKey(130), db)
	fmt.Println(string(gethEnc) == string(enc), err)
	// Output:
	// true
	// 5 proof nodes; cumulative gas 2751000
	// true <nil>
}

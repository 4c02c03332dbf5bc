package compat_test

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/stacktrie/stacktrie/compat"
)

// A ListHasher goes where go-ethereum takes a types.ListHasher, here to
// compute a block's withdrawals root. Keep it to reuse for the next list.
func ExampleNewListHasher() {
	withdrawals := types.Withdrawals{
		{Index: 0, Validator: 7, Address: common.HexToAddress("0x00000000000000000000000000000000000000aa"), Amount: 32_000_000_000},
		{Index: 1, Validator: 9, Address: common.HexToAddress("0x00000000000000000000000000000000000000bb"), Amount: 1_500_000},
	}
	hasher := compat.NewListHasher()
	root := types.DeriveSha(withdrawals, hasher)

	fmt.Println(root)
	fmt.Println(root == types.DeriveSha(withdrawals, trie.NewStackTrie(nil)))
	fmt.Println(types.DeriveSha(types.Withdrawals{}, hasher) == types.EmptyRootHash)
	// Output:
	// 0x0c5d2abe0ed6c55fc896aea899fae93f2dc823c77862d0a4f3ef5da2085de08f
	// true
	// true
}

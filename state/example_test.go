package state_test

import (
	"errors"
	"fmt"
	"slices"

	"github.com/holiman/uint256"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/incremental"
	"github.com/stacktrie/stacktrie/state"
)

// A state root from a flat state, as a snapshot iterator gives it: accounts
// by hashed address, each followed by its slots by hashed key. The second
// account's stored storage root is stale, and the Builder says so.
func ExampleBuilder() {
	b := state.NewBuilder(state.Options{
		Workers: 2,
		OnAccount: func(r state.AccountResult) {
			if r.Mismatch() {
				fmt.Printf("account %x…: %d slots give root %x…, not %x…\n", r.Hash[:2], r.Slots, r.ComputedRoot[:4], r.StoredRoot[:4])
			}
		},
	})
	defer b.Close()

	eoa := state.Account{Nonce: 7, Balance: *uint256.NewInt(1e18), Root: stacktrie.EmptyRoot, CodeHash: state.EmptyCodeHash}
	contract := state.Account{Nonce: 1, Root: stacktrie.EmptyRoot, CodeHash: stacktrie.Hash{0xc0, 0xde}}
	if err := b.AddAccount(stacktrie.Hash{0x1a}, eoa.AppendSlimRLP(nil)); err != nil {
		panic(err)
	}
	if err := b.AddAccount(stacktrie.Hash{0x2b}, contract.AppendSlimRLP(nil)); err != nil {
		panic(err)
	}
	for i, value := range [][]byte{{0x01}, {0x82, 0x12, 0x34}} { // RLP, as the snapshot stores slots
		if err := b.AddSlot(stacktrie.Hash{0x30 + byte(i)}, value); err != nil {
			panic(err)
		}
	}
	result := b.Finish()
	fmt.Printf("state root %s\n%d accounts, %d slots, %d mismatch\n", result.Root, result.Accounts, result.Slots, result.Mismatches)
	// Output:
	// account 2b00…: 2 slots give root 9a2de2ab…, not 56e81f17…
	// state root 0x92c9afdaff400fe6941a303c467892364f14f2f0df1c47e5f883c819eb51efc2
	// 2 accounts, 2 slots, 1 mismatch
}

// The same state, held in memory, given to HashAll at once: the workers
// read it where it is, and the root is the stream's.
func ExampleBuilder_HashAll() {
	eoa := state.Account{Nonce: 7, Balance: *uint256.NewInt(1e18), Root: stacktrie.EmptyRoot, CodeHash: state.EmptyCodeHash}
	contract := state.Account{Nonce: 1, Root: stacktrie.EmptyRoot, CodeHash: stacktrie.Hash{0xc0, 0xde}}
	accounts := []state.FlatAccount{
		{Hash: stacktrie.Hash{0x1a}, RLP: eoa.AppendSlimRLP(nil)},
		{Hash: stacktrie.Hash{0x2b}, RLP: contract.AppendSlimRLP(nil), Slots: []state.FlatSlot{
			{Hash: stacktrie.Hash{0x30}, Value: []byte{0x01}},
			{Hash: stacktrie.Hash{0x31}, Value: []byte{0x82, 0x12, 0x34}},
		}},
	}
	b := state.NewBuilder(state.Options{Workers: 2})
	defer b.Close()
	result, err := b.HashAll(accounts)
	if err != nil {
		panic(err)
	}
	fmt.Printf("state root %s\n%d accounts, %d slots, %d mismatch\n", result.Root, result.Accounts, result.Slots, result.Mismatches)

	accounts[1].Slots[0].Hash = stacktrie.Hash{0x32} // now above the slot after it
	b.Reset()
	_, err = b.HashAll(accounts)
	fmt.Println(errors.Is(err, state.ErrSlotOrder))
	// Output:
	// state root 0x92c9afdaff400fe6941a303c467892364f14f2f0df1c47e5f883c819eb51efc2
	// 2 accounts, 2 slots, 1 mismatch
	// true
}

// The two encodings of an account, and the decoder reading both.
func ExampleAccount() {
	a := state.Account{Nonce: 1, Balance: *uint256.NewInt(0x7f), Root: stacktrie.EmptyRoot, CodeHash: state.EmptyCodeHash}
	slim := a.AppendSlimRLP(nil)
	fmt.Printf("slim: %x\nfull: %d bytes\n", slim, len(a.AppendRLP(nil)))

	var b state.Account
	if err := b.DecodeRLP(slim); err != nil {
		panic(err)
	}
	fmt.Println(b == a, b.DecodeRLP([]byte{0xc4, 0x01, 0x00, 0x80, 0x80}))
	// Output:
	// slim: c4017f8080
	// full: 70 bytes
	// true state: malformed account: integer with a leading zero byte
}

// State roots block by block, from tables a node keeps: the flat accounts
// and slots, and the branch records of the account trie and of every
// storage trie. After a block, only the changed prefixes are re-hashed.
func ExampleUpdater() {
	accounts, storage := &incremental.Table{}, &incremental.Table{}
	accountBranches, storageBranches := &incremental.Table{}, &incremental.Table{}
	tables := state.Tables{Accounts: accounts, Storage: storage, AccountBranches: accountBranches, StorageBranches: storageBranches}
	store := state.Store{
		AccountBranch: accountBranches.Write,
		StorageBranch: storageBranches.Write,
		// A node writes each new storage root into the account's flat entry.
		StorageRoot: func(owner, root stacktrie.Hash) {
			var a state.Account
			v, _ := accounts.Get(owner[:])
			if err := a.DecodeRLP(v); err != nil {
				panic(err)
			}
			a.Root = root
			accounts.Put(owner[:], a.AppendSlimRLP(nil))
		},
	}
	contract := stacktrie.Hash{0x2b}
	for i := range 100 {
		eoa := state.Account{Nonce: uint64(i), Root: stacktrie.EmptyRoot, CodeHash: state.EmptyCodeHash}
		address := keccak([]byte{byte(i)})
		accounts.Put(address[:], eoa.AppendSlimRLP(nil))
	}
	code := state.Account{Nonce: 1, Root: stacktrie.EmptyRoot, CodeHash: stacktrie.Hash{0xc0, 0xde}}
	accounts.Put(contract[:], code.AppendSlimRLP(nil))
	for i := range 300 {
		key := keccak([]byte{byte(i), 1})
		storage.Put(slices.Concat(contract[:], key[:]), []byte{0x01})
	}
	u := state.NewUpdater()
	if _, err := u.Build(tables, store); err != nil {
		panic(err)
	}

	// A block writes one slot of the contract; its stored storage root is
	// now stale, and Root works out the new one.
	key := keccak([]byte("new slot"))
	slot := slices.Concat(contract[:], key[:])
	storage.Put(slot, []byte{0x07})
	root, err := u.Root(tables, state.Changes{Slots: [][]byte{slot}}, store)
	if err != nil {
		panic(err)
	}
	scratch, err := state.NewUpdater().Build(state.Tables{Accounts: accounts, Storage: storage}, state.Store{})
	if err != nil {
		panic(err)
	}
	fmt.Println("after the block, as from scratch:", root == scratch)
	// Output:
	// after the block, as from scratch: true
}

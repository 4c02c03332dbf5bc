package compat_test

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	gethstate "github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/holiman/uint256"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/compat/internal/trietest"
	"github.com/stacktrie/stacktrie/incremental"
	"github.com/stacktrie/stacktrie/state"
)

// TestUpdaterMatchesGethState has go-ethereum's StateDB run blocks of
// changes (balances and nonces, slots written and cleared, new contracts)
// and state.Updater follow them over flat tables as a node keeps them:
// after each block its root must be the StateDB's, and each storage root it
// reports the StateDB's for that account. The flat accounts hold the
// storage roots Updater last reported, stale for every account whose slots
// the block changed, as a snapshot is before the block's trie is hashed.
func TestUpdaterMatchesGethState(t *testing.T) {
	rng := caseRand(t, "updater")
	sdb, err := gethstate.New(types.EmptyRootHash, gethstate.NewDatabaseForTesting())
	require.NoError(t, err)
	accounts, storage := &incremental.Table{}, &incremental.Table{}
	accountBranches, storageBranches := &incremental.Table{}, &incremental.Table{}
	tables := state.Tables{Accounts: accounts, Storage: storage, AccountBranches: accountBranches, StorageBranches: storageBranches}
	flatRoots := map[common.Hash]stacktrie.Hash{} // the storage root each flat account holds
	var addrs []common.Address
	reported := map[common.Hash]stacktrie.Hash{}
	store := state.Store{
		AccountBranch: accountBranches.Write,
		StorageBranch: storageBranches.Write,
		StorageRoot:   func(owner, root stacktrie.Hash) { reported[common.Hash(owner)] = root },
	}
	// writeAccount writes an account's flat entry from the StateDB, with
	// the storage root the flat state last had for it.
	writeAccount := func(addr common.Address) {
		h := crypto.Keccak256Hash(addr[:])
		root, ok := flatRoots[h]
		if !ok {
			root = stacktrie.EmptyRoot
		}
		accounts.Put(h[:], types.SlimAccountRLP(types.StateAccount{
			Nonce: sdb.GetNonce(addr), Balance: sdb.GetBalance(addr), Root: common.Hash(root), CodeHash: sdb.GetCodeHash(addr).Bytes(),
		}))
	}
	writeSlot := func(addr common.Address, key, value common.Hash) []byte {
		sdb.SetState(addr, key, value)
		flat := slices.Concat(crypto.Keccak256(addr[:]), crypto.Keccak256(key[:]))
		if value == (common.Hash{}) {
			storage.Delete(flat)
			return flat
		}
		enc, err := rlp.EncodeToBytes(common.TrimLeftZeroes(value[:]))
		require.NoError(t, err)
		storage.Put(flat, enc)
		return flat
	}
	slotKeys := map[common.Address][]common.Hash{}
	u := state.NewUpdater()
	for block := range 20 {
		changedAccounts, changedSlots := map[string]bool{}, map[string]bool{}
		newAccounts := 300
		if block > 0 {
			newAccounts = rng.IntN(4)
		}
		for range newAccounts {
			addr := common.Address(trietest.RandomBytes(rng, 20))
			addrs = append(addrs, addr)
			sdb.SetNonce(addr, 1, tracing.NonceChangeUnspecified)
			if rng.IntN(2) == 0 {
				sdb.SetCode(addr, trietest.RandomBytes(rng, 1+rng.IntN(50)), tracing.CodeChangeUnspecified)
				for range rng.IntN(60) {
					k := common.Hash(trietest.RandomBytes(rng, 32))
					slotKeys[addr] = append(slotKeys[addr], k)
					changedSlots[string(writeSlot(addr, k, randomSlotValue(rng)))] = true
				}
			}
			changedAccounts[string(crypto.Keccak256(addr[:]))] = true
		}
		for range 1 + rng.IntN(30) {
			addr := addrs[rng.IntN(len(addrs))]
			switch rng.IntN(3) {
			case 0:
				sdb.SetBalance(addr, uint256.NewInt(rng.Uint64()), tracing.BalanceChangeUnspecified)
				sdb.SetNonce(addr, sdb.GetNonce(addr)+1, tracing.NonceChangeUnspecified)
				changedAccounts[string(crypto.Keccak256(addr[:]))] = true
			case 1: // a slot written, new or not
				k := common.Hash(trietest.RandomBytes(rng, 32))
				if keys := slotKeys[addr]; len(keys) > 0 && rng.IntN(2) == 0 {
					k = keys[rng.IntN(len(keys))]
				} else {
					slotKeys[addr] = append(slotKeys[addr], k)
				}
				changedSlots[string(writeSlot(addr, k, randomSlotValue(rng)))] = true
			case 2: // a slot cleared
				if keys := slotKeys[addr]; len(keys) > 0 {
					changedSlots[string(writeSlot(addr, keys[rng.IntN(len(keys))], common.Hash{}))] = true
				}
			}
		}
		want := sdb.IntermediateRoot(params.Rules{})
		for _, addr := range addrs {
			writeAccount(addr)
		}
		changes := state.Changes{Accounts: sortedKeys(changedAccounts), Slots: sortedKeys(changedSlots)}
		clear(reported)
		var root stacktrie.Hash
		if block == 0 {
			root, err = u.Build(tables, store)
		} else {
			root, err = u.Root(tables, changes, store)
		}
		require.NoError(t, err, "block %d", block)
		require.Equal(t, want, common.Hash(root), "block %d", block)
		for _, addr := range addrs {
			h := crypto.Keccak256Hash(addr[:])
			if r, ok := reported[h]; ok {
				require.Equal(t, sdb.GetStorageRoot(addr), common.Hash(r), "block %d: storage root of %s", block, h)
				flatRoots[h] = r
			}
			flat, ok := flatRoots[h]
			if !ok {
				flat = stacktrie.EmptyRoot
			}
			require.Equal(t, sdb.GetStorageRoot(addr), common.Hash(flat), "block %d: flat storage root of %s", block, h)
		}
	}
}

// randomSlotValue draws a non-zero slot value of 1 to 32 bytes.
func randomSlotValue(rng *rand.Rand) common.Hash {
	var v common.Hash
	copy(v[rng.IntN(32):], trietest.RandomBytes(rng, 32))
	v[31] |= 1
	return v
}

func sortedKeys(set map[string]bool) [][]byte {
	keys := make([][]byte, 0, len(set))
	for _, k := range slices.Sorted(maps.Keys(set)) {
		keys = append(keys, []byte(k))
	}
	return keys
}

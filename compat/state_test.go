package compat_test

import (
	"bytes"
	"fmt"
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
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/compat/internal/trietest"
	"github.com/stacktrie/stacktrie/state"
)

// randomAccount draws an account whose fields take their edge forms often:
// nonces and balances of every byte length, single bytes on both sides of
// 0x80, empty storage roots and code hashes.
func randomAccount(rng *rand.Rand) state.Account {
	a := state.Account{Nonce: rng.Uint64() >> rng.IntN(65), Root: stacktrie.EmptyRoot, CodeHash: state.EmptyCodeHash}
	a.Balance.SetBytes(trietest.RandomBytes(rng, rng.IntN(33)))
	if rng.IntN(3) == 0 {
		a.Balance.Rsh(&a.Balance, uint(a.Balance.BitLen()-rng.IntN(9)))
	}
	if rng.IntN(2) == 0 {
		a.Root = stacktrie.Hash(trietest.RandomBytes(rng, 32))
	}
	if rng.IntN(2) == 0 {
		a.CodeHash = stacktrie.Hash(trietest.RandomBytes(rng, 32))
	}
	return a
}

// gethAccount is a as go-ethereum holds it.
func gethAccount(a state.Account) types.StateAccount {
	balance := a.Balance
	return types.StateAccount{Nonce: a.Nonce, Balance: &balance, Root: common.Hash(a.Root), CodeHash: bytes.Clone(a.CodeHash[:])}
}

// TestAccountEncodingsMatchGeth checks both encodings byte for byte against
// go-ethereum's: its RLP of types.StateAccount and types.SlimAccountRLP, and
// types.FullAccountRLP of the slim form; and that each encoding decodes to
// the account, as go-ethereum's types.FullAccount reads it too.
func TestAccountEncodingsMatchGeth(t *testing.T) {
	rng := caseRand(t, "accounts")
	for range 5000 {
		a := randomAccount(rng)
		ga := gethAccount(a)
		full, err := rlp.EncodeToBytes(&ga)
		require.NoError(t, err)
		slim := types.SlimAccountRLP(ga)
		require.Equal(t, full, a.AppendRLP(nil), "full: %+v", a)
		require.Equal(t, slim, a.AppendSlimRLP(nil), "slim: %+v", a)
		fullOfSlim, err := types.FullAccountRLP(slim)
		require.NoError(t, err)
		require.Equal(t, full, fullOfSlim)
		for _, enc := range [][]byte{full, slim} {
			var got state.Account
			require.NoError(t, got.DecodeRLP(enc), "%x", enc)
			require.Equal(t, a, got, "%x", enc)
			theirs, err := types.FullAccount(enc)
			require.NoError(t, err)
			require.Equal(t, ga, *theirs, "%x", enc)
		}
	}
}

// TestAccountDecodeAgreesWithGeth damages encodings at random: whatever
// DecodeRLP accepts, go-ethereum's reader of snapshot accounts
// (types.FullAccount) accepts as the same account. Where they differ,
// DecodeRLP is the stricter (TestAccountDecodeStricterThanGeth).
func TestAccountDecodeAgreesWithGeth(t *testing.T) {
	rng := caseRand(t, "damage")
	accepted, refused := 0, 0
	for range 30000 {
		a := randomAccount(rng)
		enc := a.AppendRLP(nil)
		if rng.IntN(2) == 0 {
			enc = a.AppendSlimRLP(nil)
		}
		enc = damage(rng, enc)
		var got state.Account
		if got.DecodeRLP(enc) != nil {
			refused++
			continue
		}
		accepted++
		theirs, err := types.FullAccount(enc)
		require.NoError(t, err, "%x", enc)
		require.Equal(t, gethAccount(got), *theirs, "%x", enc)
	}
	assert.Greater(t, accepted, 1000)
	assert.Greater(t, refused, 10000)
}

// damage changes enc in one of a few ways, or not at all.
func damage(rng *rand.Rand, enc []byte) []byte {
	enc = bytes.Clone(enc)
	i := rng.IntN(len(enc))
	switch rng.IntN(6) {
	case 0:
		enc[i] ^= byte(1 + rng.IntN(255))
	case 1:
		enc[i] = []byte{0x00, 0x7f, 0x80, 0x81, 0xa0, 0xb7, 0xb8, 0xc0, 0xf7, 0xf8}[rng.IntN(10)]
	case 2:
		enc = slices.Insert(enc, i, byte(rng.Uint32()))
	case 3:
		enc = slices.Delete(enc, i, i+1)
	case 4:
		enc = enc[:i]
	}
	return enc
}

// TestAccountDecodeStricterThanGeth lists the forms go-ethereum's reader of
// snapshot accounts takes and DecodeRLP refuses: neither encoding writes
// them.
func TestAccountDecodeStricterThanGeth(t *testing.T) {
	zero, code := []byte{0x80}, append([]byte{0xa0}, bytes.Repeat([]byte{9}, 32)...)
	list := func(fields ...[]byte) []byte {
		payload := bytes.Join(fields, nil)
		if len(payload) > 55 {
			return append([]byte{0xf8, byte(len(payload))}, payload...)
		}
		return append([]byte{0xc0 + byte(len(payload))}, payload...)
	}
	tests := []struct {
		name string
		data []byte
	}{
		{"storage root of 20 bytes", list(zero, zero, append([]byte{0x94}, bytes.Repeat([]byte{7}, 20)...), code)},
		{"code hash of 5 bytes", list(zero, zero, zero, []byte{0x85, 1, 2, 3, 4, 5})},
		{"empty root beside the empty code hash written out", list(zero, zero, zero, append([]byte{0xa0}, types.EmptyCodeHash[:]...))},
		{"empty root written out beside an empty code hash", list(zero, zero, append([]byte{0xa0}, types.EmptyRootHash[:]...), zero)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := types.FullAccount(tt.data)
			assert.NoError(t, err, "go-ethereum takes %x", tt.data)
			var a state.Account
			assert.ErrorIs(t, a.DecodeRLP(tt.data), state.ErrAccount)
		})
	}
}

// gethFlatState is a state made by go-ethereum's core/state, and the flat
// stream its snapshot holds for it.
type gethFlatState struct {
	root     common.Hash // the state root go-ethereum computed
	accounts []flatAccount
}

type flatAccount struct {
	hash  common.Hash
	slim  []byte          // as the snapshot stores it
	slots []trietest.Pair // hashed keys and RLP values, sorted
	root  common.Hash     // the storage root go-ethereum computed
}

// makeGethState has go-ethereum's StateDB build a state of n accounts, the
// i-th with slots(i) storage slots, some with code.
func makeGethState(t *testing.T, rng *rand.Rand, n int, slots func(i int) int) gethFlatState {
	sdb, err := gethstate.New(types.EmptyRootHash, gethstate.NewDatabaseForTesting())
	require.NoError(t, err)
	addrs := make([]common.Address, n)
	values := make([]map[common.Hash]common.Hash, n)
	for i := range addrs {
		addr := common.Address(trietest.RandomBytes(rng, 20))
		addrs[i] = addr
		sdb.SetNonce(addr, 1+rng.Uint64N(1<<20), tracing.NonceChangeUnspecified)
		sdb.SetBalance(addr, new(uint256.Int).SetBytes(trietest.RandomBytes(rng, rng.IntN(20))), tracing.BalanceChangeUnspecified)
		if rng.IntN(3) == 0 {
			sdb.SetCode(addr, trietest.RandomBytes(rng, 1+rng.IntN(100)), tracing.CodeChangeUnspecified)
		}
		values[i] = map[common.Hash]common.Hash{}
		for range slots(i) {
			var v common.Hash
			copy(v[rng.IntN(32):], trietest.RandomBytes(rng, 32))
			v[31] |= 1
			k := common.Hash(trietest.RandomBytes(rng, 32))
			sdb.SetState(addr, k, v)
			values[i][k] = v
		}
	}
	s := gethFlatState{root: sdb.IntermediateRoot(params.Rules{})}
	for i, addr := range addrs {
		a := flatAccount{hash: crypto.Keccak256Hash(addr[:]), root: sdb.GetStorageRoot(addr)}
		a.slim = types.SlimAccountRLP(types.StateAccount{
			Nonce: sdb.GetNonce(addr), Balance: sdb.GetBalance(addr), Root: a.root, CodeHash: sdb.GetCodeHash(addr).Bytes(),
		})
		for k, v := range values[i] {
			value, err := rlp.EncodeToBytes(common.TrimLeftZeroes(v[:]))
			require.NoError(t, err)
			a.slots = append(a.slots, trietest.Pair{Key: crypto.Keccak256(k[:]), Value: value})
		}
		slices.SortFunc(a.slots, func(x, y trietest.Pair) int { return bytes.Compare(x.Key, y.Key) })
		s.accounts = append(s.accounts, a)
	}
	slices.SortFunc(s.accounts, func(x, y flatAccount) int { return bytes.Compare(x.hash[:], y.hash[:]) })
	return s
}

// TestBuilderMatchesGethState has go-ethereum's StateDB build states, feeds
// their flat streams to a Builder, and checks the state root against the
// StateDB's, every storage root against the StateDB's, and every node
// reported, by owner, against go-ethereum's StackTrie over the same trie.
// A few accounts get a stale stored root in the stream: the Builder must
// report them and still give go-ethereum's root, whose leaves hold the
// roots of the slots.
func TestBuilderMatchesGethState(t *testing.T) {
	tests := []struct {
		name     string
		accounts int
		slots    func(rng *rand.Rand, i int) int
	}{
		{"accounts without storage", 2000, func(*rand.Rand, int) int { return 0 }},
		{"many small contracts", 1500, func(rng *rand.Rand, i int) int { return rng.IntN(10) }},
		{"one contract holds half the slots", 600, func(rng *rand.Rand, i int) int {
			if i == 300 {
				return 6000
			}
			return rng.IntN(20)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := caseRand(t, tt.name)
			s := makeGethState(t, rng, tt.accounts, func(i int) int { return tt.slots(rng, i) })
			stale := map[common.Hash]bool{}
			for range 5 {
				stale[s.accounts[rng.IntN(len(s.accounts))].hash] = true
			}
			wantNodes := gethNodes(t, s)
			for _, workers := range []int{1, 2, 4} {
				checkBuilderAgainstGeth(t, s, stale, wantNodes, workers)
			}
		})
	}
}

// gethNodes builds each trie of s with go-ethereum's StackTrie and returns
// its nodes by owner, sorted by path; the roots must be the StateDB's.
func gethNodes(t *testing.T, s gethFlatState) map[common.Hash][]trietest.Node {
	nodes := map[common.Hash][]trietest.Node{}
	var leaves []trietest.Pair
	for _, a := range s.accounts {
		root, storage, err := trietest.GethStackTrie(a.slots)
		require.NoError(t, err)
		require.Equal(t, a.root, root, "storage root of %s", a.hash)
		if len(storage) > 0 {
			nodes[a.hash] = trietest.SortedByPath(storage)
		}
		full, err := types.FullAccountRLP(a.slim)
		require.NoError(t, err)
		leaves = append(leaves, trietest.Pair{Key: a.hash[:], Value: full})
	}
	root, accountNodes, err := trietest.GethStackTrie(leaves)
	require.NoError(t, err)
	require.Equal(t, s.root, root, "state root")
	nodes[common.Hash{}] = trietest.SortedByPath(accountNodes)
	return nodes
}

func checkBuilderAgainstGeth(t *testing.T, s gethFlatState, stale map[common.Hash]bool, wantNodes map[common.Hash][]trietest.Node, workers int) {
	msg := fmt.Sprintf("%d workers", workers)
	nodes := map[common.Hash][]trietest.Node{}
	var reports []state.AccountResult
	b := state.NewBuilder(state.Options{
		Workers: workers,
		OnNode: func(owner stacktrie.Hash, path []byte, hash stacktrie.Hash, blob []byte) {
			nodes[common.Hash(owner)] = append(nodes[common.Hash(owner)], trietest.Node{Path: bytes.Clone(path), Hash: common.Hash(hash), Blob: bytes.Clone(blob)})
		},
		OnAccount: func(r state.AccountResult) { reports = append(reports, r) },
	})
	defer b.Close()
	slots := 0
	for _, a := range s.accounts {
		enc := a.slim
		if stale[a.hash] {
			var acct state.Account
			require.NoError(t, acct.DecodeRLP(enc))
			acct.Root[0] ^= 1
			enc = acct.AppendSlimRLP(nil)
		}
		require.NoError(t, b.AddAccount(stacktrie.Hash(a.hash), enc))
		for _, sl := range a.slots {
			require.NoError(t, b.AddSlot(stacktrie.Hash(sl.Key), sl.Value))
		}
		slots += len(a.slots)
	}
	got := b.Finish()
	require.Equal(t, stacktrie.Hash(s.root), got.Root, msg)
	assert.Equal(t, state.Result{Root: got.Root, Accounts: uint64(len(s.accounts)), Slots: uint64(slots), Mismatches: uint64(len(stale))}, got, msg)
	require.Len(t, reports, len(s.accounts), msg)
	for i, a := range s.accounts {
		assert.Equal(t, stacktrie.Hash(a.root), reports[i].ComputedRoot, "%s: storage root of %s", msg, a.hash)
		assert.Equal(t, stale[a.hash], reports[i].Mismatch(), "%s: %s", msg, a.hash)
	}
	require.Len(t, nodes, len(wantNodes), "%s: tries with nodes", msg)
	for owner, want := range wantNodes {
		require.NoError(t, trietest.SameNodes(want, trietest.SortedByPath(nodes[owner])), "%s: owner %s", msg, owner)
	}
}

package state_test

import (
	"bytes"
	"encoding/hex"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/holiman/uint256"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
	"github.com/stacktrie/stacktrie/state"
)

// rlpItem and rlpOf encode RLP the plain way, apart from the package's
// encoder, so that the tests have something else to compare with.
func rlpItem(s []byte) []byte {
	if len(s) == 1 && s[0] < 0x80 {
		return []byte{s[0]}
	}
	return append(rlpHead(0x80, len(s)), s...)
}

func rlpOf(items ...[]byte) []byte {
	payload := bytes.Join(items, nil)
	return append(rlpHead(0xc0, len(payload)), payload...)
}

func rlpHead(base byte, n int) []byte {
	if n < 56 {
		return []byte{base + byte(n)}
	}
	size := new(big.Int).SetInt64(int64(n)).Bytes()
	return append([]byte{base + 55 + byte(len(size))}, size...)
}

// expectedRLP is an account's encoding built field by field with math/big.
func expectedRLP(a state.Account, slim bool) []byte {
	root, codeHash := a.Root[:], a.CodeHash[:]
	if slim && a.Root == stacktrie.EmptyRoot {
		root = nil
	}
	if slim && a.CodeHash == state.EmptyCodeHash {
		codeHash = nil
	}
	nonce := new(big.Int).SetUint64(a.Nonce).Bytes()
	return rlpOf(rlpItem(nonce), rlpItem(a.Balance.ToBig().Bytes()), rlpItem(root), rlpItem(codeHash))
}

// randomAccount draws an account whose fields take their edge forms often:
// nonces and balances of every byte length, single bytes on both sides of
// 0x80, empty roots and code hashes.
func randomAccount(r *rand.Rand) state.Account {
	var a state.Account
	switch r.IntN(4) {
	case 0:
		a.Nonce = r.Uint64N(0x100)
	default:
		a.Nonce = r.Uint64() >> r.IntN(64)
	}
	balance := testgen.Value(r, r.IntN(33))
	if len(balance) == 1 && r.IntN(2) == 0 {
		balance[0] &= 0x7f
	}
	a.Balance.SetBytes(balance)
	a.Root, a.CodeHash = stacktrie.EmptyRoot, state.EmptyCodeHash
	if r.IntN(2) == 0 {
		a.Root = stacktrie.Hash(testgen.Value(r, 32))
	}
	if r.IntN(2) == 0 {
		a.CodeHash = stacktrie.Hash(testgen.Value(r, 32))
	}
	return a
}

func TestEmptyCodeHash(t *testing.T) {
	// Keccak-256 of nothing, through x/crypto.
	want := keccak(nil)
	assert.Equal(t, want, state.EmptyCodeHash)
}

func TestAccountEncodingVectors(t *testing.T) {
	empty := state.Account{Root: stacktrie.EmptyRoot, CodeHash: state.EmptyCodeHash}
	rich := state.Account{Nonce: 0x80, Root: stacktrie.Hash{1}, CodeHash: stacktrie.Hash{2}}
	rich.Balance.SetAllOne()
	tests := []struct {
		name       string
		account    state.Account
		full, slim string
	}{
		{"empty", empty,
			"f8448080a056e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421a0c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
			"c480808080"},
		{"nonce 1 balance 0x7f", state.Account{Nonce: 1, Balance: *uint256.NewInt(0x7f), Root: stacktrie.EmptyRoot, CodeHash: state.EmptyCodeHash},
			"f844017fa056e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421a0c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
			"c4017f8080"},
		{"largest balance", rich,
			"f8658180a0ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa00100000000000000000000000000000000000000000000000000000000000000a00200000000000000000000000000000000000000000000000000000000000000",
			"f8658180a0ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa00100000000000000000000000000000000000000000000000000000000000000a00200000000000000000000000000000000000000000000000000000000000000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.full, hex.EncodeToString(tt.account.AppendRLP(nil)))
			assert.Equal(t, tt.slim, hex.EncodeToString(tt.account.AppendSlimRLP(nil)))
		})
	}
}

func TestAccountRoundTrip(t *testing.T) {
	seed := testgen.Seed(t)
	r := rand.New(rand.NewPCG(seed, 1))
	prefix := []byte("kept")
	for range 5000 {
		a := randomAccount(r)
		for _, form := range []struct {
			slim   bool
			encode func(*state.Account, []byte) []byte
		}{{false, (*state.Account).AppendRLP}, {true, (*state.Account).AppendSlimRLP}} {
			enc := form.encode(&a, bytes.Clone(prefix))
			require.Equal(t, prefix, enc[:len(prefix)], "appends to dst")
			enc = enc[len(prefix):]
			require.Equal(t, expectedRLP(a, form.slim), enc, "account %+v, slim %v", a, form.slim)
			var got state.Account
			require.NoError(t, got.DecodeRLP(enc), "%x", enc)
			require.Equal(t, a, got, "%x", enc)
		}
	}
}

// TestDecodeRefuses gives the decoder each way an encoding can be wrong,
// each a small change to a valid one: it must refuse it with ErrAccount and
// leave the account as it was.
func TestDecodeRefuses(t *testing.T) {
	zero, root, code := rlpItem(nil), rlpItem(bytes.Repeat([]byte{7}, 32)), rlpItem(bytes.Repeat([]byte{9}, 32))
	full := rlpOf(rlpItem([]byte{5}), rlpItem([]byte{1, 0}), root, code)
	tests := []struct {
		name string
		data []byte
	}{
		{"nothing", nil},
		{"a string", rlpItem([]byte{1, 2})},
		{"a single byte", []byte{0x01}},
		{"trailing byte", append(bytes.Clone(full), 0)},
		{"three fields", rlpOf(zero, zero, zero)},
		{"five fields", rlpOf(zero, zero, zero, zero, zero)},
		{"empty list", rlpOf()},
		{"nonce is a list", rlpOf(rlpOf(), zero, zero, zero)},
		{"code hash is a list", rlpOf(zero, zero, zero, rlpOf(zero))},
		{"nonce 0x00", rlpOf([]byte{0}, zero, zero, zero)},
		{"nonce with a leading zero", rlpOf(rlpItem([]byte{0, 1}), zero, zero, zero)},
		{"nonce of 9 bytes", rlpOf(rlpItem(bytes.Repeat([]byte{1}, 9)), zero, zero, zero)},
		{"balance with a leading zero", rlpOf(zero, rlpItem([]byte{0, 0xff}), zero, zero)},
		{"balance of 33 bytes", rlpOf(zero, rlpItem(bytes.Repeat([]byte{1}, 33)), root, code)},
		{"root of 31 bytes", rlpOf(zero, zero, rlpItem(bytes.Repeat([]byte{7}, 31)), code)},
		{"root of 33 bytes", rlpOf(zero, zero, rlpItem(bytes.Repeat([]byte{7}, 33)), code)},
		{"code hash of 1 byte", rlpOf(zero, zero, root, rlpItem([]byte{0x90}))},
		{"single byte wrapped", rlpOf([]byte{0x81, 0x05}, zero, zero, zero)},
		{"long list header for a short list", append([]byte{0xf8, 4}, bytes.Repeat(zero, 4)...)},
		{"long string header for a short string", rlpOf(zero, zero, append([]byte{0xb8, 32}, bytes.Repeat([]byte{7}, 32)...), code)},
		{"list size with a leading zero", append([]byte{0xf9, 0, byte(len(full) - 2)}, full[2:]...)},
		{"list longer than the input", full[:len(full)-1]},
		{"list size cut off", []byte{0xf9, 0x01}},
		{"field longer than the list", append([]byte{0xc4, 0x80, 0x80, 0x80, 0x81}, 0x99)},
		{"huge list size", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
		{"huge string size", []byte{0xc9, 0xbf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
		{"empty root beside the empty code hash written out", rlpOf(zero, zero, zero, rlpItem(state.EmptyCodeHash[:]))},
		{"empty root written out beside an empty code hash", rlpOf(zero, zero, rlpItem(stacktrie.EmptyRoot[:]), zero)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kept := state.Account{Nonce: 42, Root: stacktrie.Hash{3}}
			a := kept
			err := a.DecodeRLP(tt.data)
			assert.ErrorIs(t, err, state.ErrAccount, "%x", tt.data)
			assert.Equal(t, kept, a, "a refused input changes nothing")
		})
	}
	var a state.Account
	require.NoError(t, a.DecodeRLP(full), "the valid encoding the cases start from")
}

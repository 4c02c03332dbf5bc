package fuzz

import (
	"bytes"
	"math/big"
	"testing"

	"github.com/holiman/uint256"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/state"
)

// FuzzAccountRLP gives arbitrary bytes to Account.DecodeRLP. It must never
// panic, and must accept exactly what an oracle written apart accepts: the
// bytes read with any header that states a size, as four strings, are taken
// as an account, which is then encoded in both forms with math/big; the
// input is an account only if it is one of the two. An accepted input must
// decode to that account, and re-encode to exactly the input in its form.
func FuzzAccountRLP(f *testing.F) {
	empty := state.Account{Root: stacktrie.EmptyRoot, CodeHash: state.EmptyCodeHash}
	rich := state.Account{Nonce: 1 << 40, Root: stacktrie.Hash{1}, CodeHash: stacktrie.Hash{2}}
	rich.Balance.SetAllOne()
	small := state.Account{Nonce: 0x7f, Balance: *uint256.NewInt(0x80), Root: stacktrie.EmptyRoot, CodeHash: stacktrie.Hash{3}}
	for _, a := range []state.Account{empty, rich, small} {
		f.Add(a.AppendRLP(nil))
		f.Add(a.AppendSlimRLP(nil))
	}
	// Non-canonical forms: a size with a leading zero, a zero with one, a
	// long header for a short list, a single byte wrapped.
	f.Add(append([]byte{0xf9, 0x00}, empty.AppendRLP(nil)[1:]...))
	f.Add([]byte{0xc4, 0x00, 0x80, 0x80, 0x80})
	f.Add([]byte{0xf8, 0x04, 0x80, 0x80, 0x80, 0x80})
	f.Add([]byte{0xc5, 0x81, 0x05, 0x80, 0x80, 0x80})
	f.Fuzz(func(t *testing.T, data []byte) {
		var got state.Account
		err := got.DecodeRLP(data)
		want, ok := accountOracle(data)
		if ok != (err == nil) {
			t.Fatalf("%x: decoder says %v, oracle accepts %v", data, err, ok)
		}
		if !ok {
			return
		}
		if got != want {
			t.Fatalf("%x: decoded %+v, oracle %+v", data, got, want)
		}
		if full, slim := got.AppendRLP(nil), got.AppendSlimRLP(nil); !bytes.Equal(data, full) && !bytes.Equal(data, slim) {
			t.Fatalf("%x re-encodes as %x (full) and %x (slim)", data, full, slim)
		}
	})
}

// accountOracle reads data as an account the lenient way, then accepts it
// only if one of its two encodings, made apart, is data.
func accountOracle(data []byte) (state.Account, bool) {
	var a state.Account
	isList, payload, rest, ok := lenientItem(data)
	if !ok || !isList || len(rest) != 0 {
		return a, false
	}
	var fields [4][]byte
	for i := range fields {
		isList, fields[i], payload, ok = lenientItem(payload)
		if !ok || isList {
			return a, false
		}
	}
	nonce, balance := new(big.Int).SetBytes(fields[0]), new(big.Int).SetBytes(fields[1])
	if len(payload) != 0 || !nonce.IsUint64() || balance.BitLen() > 256 {
		return a, false
	}
	a.Nonce = nonce.Uint64()
	a.Balance.SetFromBig(balance)
	a.Root, a.CodeHash = stacktrie.EmptyRoot, state.EmptyCodeHash
	for _, h := range []struct {
		field []byte
		into  *stacktrie.Hash
	}{{fields[2], &a.Root}, {fields[3], &a.CodeHash}} {
		switch len(h.field) {
		case 0:
		case 32:
			*h.into = stacktrie.Hash(h.field)
		default:
			return a, false
		}
	}
	return a, bytes.Equal(data, encodeAccount(a, false)) || bytes.Equal(data, encodeAccount(a, true))
}

// lenientItem reads the first RLP item of data with any header that states
// its size: long forms for short sizes, sizes with leading zeros, single
// bytes wrapped.
func lenientItem(data []byte) (isList bool, payload, rest []byte, ok bool) {
	if len(data) == 0 {
		return false, nil, nil, false
	}
	b := data[0]
	if b < 0x80 {
		return false, data[:1], data[1:], true
	}
	isList = b >= 0xc0
	short := int(b - 0x80) // the size, or 55 plus the size's length
	if isList {
		short = int(b - 0xc0)
	}
	size, head := uint64(short), 1
	if short > 55 {
		n := short - 55
		if len(data) < 1+n {
			return false, nil, nil, false
		}
		size = new(big.Int).SetBytes(data[1 : 1+n]).Uint64()
		head += n
	}
	if size > uint64(len(data)-head) {
		return false, nil, nil, false
	}
	end := head + int(size)
	return isList, data[head:end], data[end:], true
}

// encodeAccount encodes a with math/big and the plain RLP rules: full, or
// slim with the empty root and code hash as empty strings.
func encodeAccount(a state.Account, slim bool) []byte {
	root, codeHash := a.Root[:], a.CodeHash[:]
	if slim && a.Root == stacktrie.EmptyRoot {
		root = nil
	}
	if slim && a.CodeHash == state.EmptyCodeHash {
		codeHash = nil
	}
	nonce := new(big.Int).SetUint64(a.Nonce).Bytes()
	payload := bytes.Join([][]byte{rlpBytes(nonce), rlpBytes(a.Balance.ToBig().Bytes()), rlpBytes(root), rlpBytes(codeHash)}, nil)
	return append(rlpSize(0xc0, len(payload)), payload...)
}

func rlpBytes(s []byte) []byte {
	if len(s) == 1 && s[0] < 0x80 {
		return []byte{s[0]}
	}
	return append(rlpSize(0x80, len(s)), s...)
}

func rlpSize(base byte, n int) []byte {
	if n < 56 {
		return []byte{base + byte(n)}
	}
	size := big.NewInt(int64(n)).Bytes()
	return append([]byte{base + 55 + byte(len(size))}, size...)
}

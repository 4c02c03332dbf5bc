package state

// This file holds Account and its two encodings, which the state trie's
// leaves and go-ethereum's snapshot hold.

import (
	"encoding/binary"

	"github.com/holiman/uint256"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/rlp"
)

// Account is an Ethereum account as the state trie holds it.
type Account struct {
	Nonce    uint64
	Balance  uint256.Int
	Root     stacktrie.Hash // the root of the account's storage trie
	CodeHash stacktrie.Hash // the Keccak-256 hash of the account's code
}

// EmptyCodeHash is the code hash of an account without code: the Keccak-256
// hash of nothing.
var EmptyCodeHash = stacktrie.Hash{
	0xc5, 0xd2, 0x46, 0x01, 0x86, 0xf7, 0x23, 0x3c, 0x92, 0x7e, 0x7d, 0xb2, 0xdc, 0xc7, 0x03, 0xc0,
	0xe5, 0x00, 0xb6, 0x53, 0xca, 0x82, 0x27, 0x3b, 0x7b, 0xfa, 0xd8, 0x04, 0x5d, 0x85, 0xa4, 0x70,
}

// AppendRLP appends the account's consensus encoding, the value of its leaf
// in the state trie: the RLP list of nonce, balance, storage root and code
// hash. It allocates nothing when dst has room.
func (a *Account) AppendRLP(dst []byte) []byte {
	return a.appendRLP(dst, a.Root[:], a.CodeHash[:])
}

// AppendSlimRLP appends the account in go-ethereum's slim encoding, the form
// its snapshot stores: the consensus encoding, except that an empty storage
// root (stacktrie.EmptyRoot) and an empty code hash (EmptyCodeHash) are
// written as empty strings.
func (a *Account) AppendSlimRLP(dst []byte) []byte {
	root, codeHash := a.Root[:], a.CodeHash[:]
	if a.Root == stacktrie.EmptyRoot {
		root = nil
	}
	if a.CodeHash == EmptyCodeHash {
		codeHash = nil
	}
	return a.appendRLP(dst, root, codeHash)
}

func (a *Account) appendRLP(dst, root, codeHash []byte) []byte {
	var nonce [8]byte
	binary.BigEndian.PutUint64(nonce[:], a.Nonce)
	balance := a.Balance.Bytes32()
	n, b := trimLeadingZeros(nonce[:]), trimLeadingZeros(balance[:])
	dst = rlp.AppendHeader(dst, rlp.List, rlp.StringSize(n)+rlp.StringSize(b)+rlp.StringSize(root)+rlp.StringSize(codeHash))
	dst = rlp.AppendString(dst, n)
	dst = rlp.AppendString(dst, b)
	dst = rlp.AppendString(dst, root)
	return rlp.AppendString(dst, codeHash)
}

// trimLeadingZeros drops the zero bytes a big-endian integer starts with;
// zero becomes empty.
func trimLeadingZeros(b []byte) []byte {
	for len(b) > 0 && b[0] == 0 {
		b = b[1:]
	}
	return b
}

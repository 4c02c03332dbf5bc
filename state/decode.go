package state

// This file reads an account back, strictly, since a snapshot is input
// from disk or from the network: canonical RLP only, never a panic.

import (
	"bytes"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/rlp"
)

// DecodeRLP sets a to the account data encodes, in its full (consensus) or
// slim form, and refuses anything but the exact bytes AppendRLP or
// AppendSlimRLP write for some account, with an error wrapping ErrAccount:
// a list of exactly four strings and nothing after it, headers in their
// shortest form, a single byte below 0x80 as itself, nonce and balance
// without leading zero bytes and at most 8 and 32 bytes long, storage root
// and code hash 32 bytes long or empty. An empty root or code hash reads as
// stacktrie.EmptyRoot or EmptyCodeHash. Since the slim form writes those two
// values empty, an account that holds one of them written out beside an
// empty field is neither form and is refused.
//
// A refused input leaves a as it was. DecodeRLP allocates nothing and never
// panics; it reads data without keeping it.
func (a *Account) DecodeRLP(data []byte) error {
	isList, payload, rest, err := readItem(data)
	switch {
	case err != nil:
		return err
	case !isList:
		return errNotList
	case len(rest) != 0:
		return errTrailing
	}
	var fields [4][]byte
	for i := range fields {
		if len(payload) == 0 {
			return errFieldCount
		}
		isList, fields[i], payload, err = readItem(payload)
		switch {
		case err != nil:
			return err
		case isList:
			return errFieldIsList
		}
	}
	if len(payload) != 0 {
		return errFieldCount
	}
	nonce, balance, root, codeHash := fields[0], fields[1], fields[2], fields[3]
	switch {
	case len(nonce) > 0 && nonce[0] == 0, len(balance) > 0 && balance[0] == 0:
		return errLeadingZero
	case len(nonce) > 8:
		return errNonceSize
	case len(balance) > 32:
		return errBalanceSize
	case len(root) != 0 && len(root) != len(a.Root):
		return errRootSize
	case len(codeHash) != 0 && len(codeHash) != len(a.CodeHash):
		return errCodeHashSize
	case len(root) == 0 && bytes.Equal(codeHash, EmptyCodeHash[:]),
		len(codeHash) == 0 && bytes.Equal(root, stacktrie.EmptyRoot[:]):
		return errMixedEncoding
	}
	a.Nonce = 0
	for _, b := range nonce {
		a.Nonce = a.Nonce<<8 | uint64(b)
	}
	a.Balance.SetBytes(balance)
	a.Root, a.CodeHash = stacktrie.EmptyRoot, EmptyCodeHash
	copy(a.Root[:], root)
	copy(a.CodeHash[:], codeHash)
	return nil
}

// readItem splits the first RLP item off data: whether it is a list, its
// payload, and the bytes after it, with the shared strict reader. Its
// errors become the package's own, which wrap ErrAccount and cost no
// allocation.
func readItem(data []byte) (isList bool, payload, rest []byte, err error) {
	isList, payload, rest, err = rlp.Split(data)
	switch err {
	case nil:
		return isList, payload, rest, nil
	case rlp.ErrEmpty, rlp.ErrTruncated:
		return false, nil, nil, errTruncated
	default:
		return false, nil, nil, errNonCanonical
	}
}

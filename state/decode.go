package state

// This file reads an account back, strictly, since a snapshot is input
// from disk or from the network: canonical RLP only, never a panic.

import (
	"bytes"

	"github.com/stacktrie/stacktrie"
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
// payload, and the bytes after it. It accepts only the shortest header for
// the payload's size, and a single byte below 0x80 only as itself.
func readItem(data []byte) (isList bool, payload, rest []byte, err error) {
	if len(data) == 0 {
		return false, nil, nil, errTruncated
	}
	first := data[0]
	if first < rlpString {
		return false, data[:1], data[1:], nil
	}
	kind := byte(rlpString)
	if first >= rlpList {
		kind = rlpList
	}
	size, head := uint64(first-kind), 1
	if size > rlpShortMax {
		n := int(size - rlpShortMax) // 1 to 8 bytes of size
		if len(data) <= n {
			return false, nil, nil, errTruncated
		}
		if data[1] == 0 {
			return false, nil, nil, errNonCanonical
		}
		size = 0
		for _, b := range data[1 : 1+n] {
			size = size<<8 | uint64(b)
		}
		if size <= rlpShortMax {
			return false, nil, nil, errNonCanonical
		}
		head += n
	}
	if size > uint64(len(data)-head) {
		return false, nil, nil, errTruncated
	}
	end := head + int(size)
	payload = data[head:end]
	if kind == rlpString && size == 1 && payload[0] < rlpString {
		return false, nil, nil, errNonCanonical
	}
	return kind == rlpList, payload, data[end:], nil
}

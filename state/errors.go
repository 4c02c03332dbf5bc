package state

// This file lists the package's errors, so that callers find every
// sentinel they can test for in one place.

import (
	"errors"
	"fmt"

	"github.com/stacktrie/stacktrie"
)

// Errors returned by Account.DecodeRLP and by the Builder's methods, wrapped
// with what was wrong; test with errors.Is. A Builder call refused with any
// of them changes nothing.
var (
	// ErrAccount refuses bytes that are not an account in canonical RLP,
	// full or slim: see Account.DecodeRLP.
	ErrAccount = errors.New("state: malformed account")
	// ErrAccountOrder refuses a hashed address not above the previous one.
	ErrAccountOrder = errors.New("state: account not in ascending order")
	// ErrSlotOrder refuses a hashed slot not above the previous slot of its
	// account, or a slot before any account.
	ErrSlotOrder = errors.New("state: slot not in ascending order")
	// ErrEmptySlot refuses an empty slot value: a storage trie holds none.
	ErrEmptySlot = errors.New("state: empty slot value")
	// ErrFinished refuses an account or slot after Finish, until Reset.
	ErrFinished = errors.New("state: add after Finish")
	// ErrStreamOpen refuses HashAll while a stream begun with AddAccount is
	// open.
	ErrStreamOpen = errors.New("state: a stream is open")
)

// The errors of refused accounts and slots, the same from a stream and
// from HashAll.

func accountOrderError(hash, previous *stacktrie.Hash) error {
	return fmt.Errorf("%w: %s after %s", ErrAccountOrder, *hash, *previous)
}

func accountDecodeError(hash *stacktrie.Hash, err error) error {
	return fmt.Errorf("account %s: %w", *hash, err)
}

func emptySlotError(slot, account *stacktrie.Hash) error {
	return fmt.Errorf("%w: slot %s of account %s", ErrEmptySlot, *slot, *account)
}

func slotOrderError(slot, previous, account *stacktrie.Hash) error {
	return fmt.Errorf("%w: slot %s after %s in account %s", ErrSlotOrder, *slot, *previous, *account)
}

// The ways an account's encoding is refused, made once so that decoding
// allocates nothing even when it fails.
var (
	errNotList       = accountError("not an RLP list")
	errTruncated     = accountError("input ends inside an item")
	errNonCanonical  = accountError("non-canonical RLP header")
	errTrailing      = accountError("bytes after the account")
	errFieldCount    = accountError("not four fields")
	errFieldIsList   = accountError("a field is a list")
	errLeadingZero   = accountError("integer with a leading zero byte")
	errNonceSize     = accountError("nonce over 8 bytes")
	errBalanceSize   = accountError("balance over 32 bytes")
	errRootSize      = accountError("storage root neither 32 bytes nor empty")
	errCodeHashSize  = accountError("code hash neither 32 bytes nor empty")
	errMixedEncoding = accountError("an empty field beside an empty value written out: neither slim nor full")
)

func accountError(what string) error {
	return fmt.Errorf("%w: %s", ErrAccount, what)
}

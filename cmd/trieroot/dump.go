package main

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/holiman/uint256"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/rlp"
)

// dumpAccount is an account as geth dump writes it: a line of its own with
// --iterative, a value of the accounts object without. A line holding root
// alone, the state root, reads as one too.
type dumpAccount struct {
	Root     *string     `json:"root"` // an account's storage root, or the state root
	Balance  *string     `json:"balance"`
	Nonce    *uint64     `json:"nonce"`
	CodeHash *string     `json:"codeHash"`
	Code     *string     `json:"code"`
	Storage  dumpStorage `json:"storage"`
	Address  *string     `json:"address"`
	Key      *string     `json:"key"` // the hash of the address
}

// accountChecker checks dumped accounts one at a time, each against itself:
// its key against its address, its code against its code hash and its
// storage against its storage root. It encodes each as its leaf in the
// state trie; memory holds one account's storage at a time.
type accountChecker struct {
	storage *stacktrie.Trie

	count, slots       int
	checked, unchecked int // storage roots recomputed, and left unchecked

	slotBuf []storageSlot
	payload []byte
	leaf    []byte
}

// storageSlot is a storage entry ready for the trie.
type storageSlot struct {
	key   [32]byte // the hash of the slot
	value []byte   // the value in RLP
	slot  string   // the slot as the dump writes it
}

func newAccountChecker() *accountChecker {
	return &accountChecker{storage: stacktrie.New(nil)}
}

// check checks an account and returns its state trie key and leaf; the
// leaf is valid until the next call.
func (c *accountChecker) check(a *dumpAccount) (key, leaf []byte, err error) {
	if key, err = accountKeyOf(a); err != nil {
		return nil, nil, err
	}
	var balance uint256.Int
	if err := balance.UnmarshalText([]byte(*a.Balance)); err != nil {
		return nil, nil, fmt.Errorf("balance %q: not a number below 2^256", abbreviate(*a.Balance))
	}
	if a.Nonce == nil || a.Root == nil || a.CodeHash == nil {
		return nil, nil, errors.New("an account needs nonce, root and codeHash")
	}
	root, err := decodeFixedHex(*a.Root, 32)
	if err != nil {
		return nil, nil, fmt.Errorf("root %w", err)
	}
	codeHash, err := decodeFixedHex(*a.CodeHash, 32)
	if err != nil {
		return nil, nil, fmt.Errorf("codeHash %w", err)
	}
	if a.Code != nil {
		code, err := decodeHex(nil, *a.Code)
		if err != nil {
			return nil, nil, fmt.Errorf("code %w", err)
		}
		if h := keccak256(code); !bytes.Equal(h[:], codeHash) {
			return nil, nil, fmt.Errorf("the code hashes to %s, not to its codeHash %s", hex0x(h[:]), hex0x(codeHash))
		}
	}
	if err := c.checkStorage(a.Storage, stacktrie.Hash(root)); err != nil {
		return nil, nil, err
	}
	c.payload = rlp.AppendUint(c.payload[:0], *a.Nonce)
	c.payload = rlp.AppendString(c.payload, balance.Bytes())
	c.payload = rlp.AppendString(c.payload, root)
	c.payload = rlp.AppendString(c.payload, codeHash)
	c.leaf = rlp.AppendList(c.leaf[:0], c.payload)
	c.count++
	return key, c.leaf, nil
}

// accountKeyOf is the account's trie key: its key field, or the hash of
// its address; with both, they must agree.
func accountKeyOf(a *dumpAccount) ([]byte, error) {
	var key []byte
	if a.Key != nil {
		k, err := decodeFixedHex(*a.Key, 32)
		if err != nil {
			return nil, fmt.Errorf("key %w", err)
		}
		key = k
	}
	if a.Address != nil {
		addr, err := decodeFixedHex(*a.Address, 20)
		if err != nil {
			return nil, fmt.Errorf("address %w", err)
		}
		h := keccak256(addr)
		if key != nil && !bytes.Equal(key, h[:]) {
			return nil, fmt.Errorf("address %s hashes to %s, not to its key %s", *a.Address, hex0x(h[:]), hex0x(key))
		}
		key = h[:]
	}
	if key == nil {
		return nil, errors.New("an account needs an address or a key")
	}
	return key, nil
}

// checkStorage recomputes the storage root from the dumped slots and
// compares it with the account's root. An account dumped without storage
// (geth dump --nostorage, or no slots) has nothing to compare unless its
// root is the empty root.
func (c *accountChecker) checkStorage(storage dumpStorage, root stacktrie.Hash) error {
	if len(storage) == 0 && root != stacktrie.EmptyRoot {
		c.unchecked++
		return nil
	}
	slots := c.slotBuf[:0]
	for _, s := range storage {
		key, err := decodeFixedHex(s.slot, 32)
		if err != nil {
			return fmt.Errorf("storage slot %w", err)
		}
		value, err := decodeHex(nil, s.value)
		if err != nil {
			return fmt.Errorf("storage slot %s: value %w", s.slot, err)
		}
		value = bytes.TrimLeft(value, "\x00")
		switch {
		case len(value) == 0:
			return fmt.Errorf("storage slot %s holds zero, which the trie does not store", s.slot)
		case len(value) > 32:
			return fmt.Errorf("storage slot %s: value of %d bytes, more than 32", s.slot, len(value))
		}
		slots = append(slots, storageSlot{key: keccak256(key), value: rlp.AppendString(nil, value), slot: s.slot})
	}
	slices.SortStableFunc(slots, func(a, b storageSlot) int { return bytes.Compare(a.key[:], b.key[:]) })
	c.storage.Reset()
	for i, s := range slots {
		if err := c.storage.Update(s.key[:], s.value); err != nil {
			return fmt.Errorf("storage slot %s is listed twice, the second time as %s", slots[i-1].slot, s.slot)
		}
	}
	c.slotBuf = slots[:0]
	if got := c.storage.Hash(); got != root {
		return fmt.Errorf("storage root %s of the %d slots dumped differs from the account's root %s (geth leaves out slots whose key it has no preimage for)",
			got, len(slots), root)
	}
	c.slots += len(slots)
	c.checked++
	return nil
}

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/holiman/uint256"

	"github.com/stacktrie/stacktrie"
)

// dumpLine is one line of an iterative state dump: an account, or the
// state root alone.
type dumpLine struct {
	Root     *string           `json:"root"` // an account's storage root, or the state root
	Balance  *string           `json:"balance"`
	Nonce    *uint64           `json:"nonce"`
	CodeHash *string           `json:"codeHash"`
	Code     *string           `json:"code"`
	Storage  map[string]string `json:"storage"` // slot (not hashed) to value, hex
	Address  *string           `json:"address"`
	Key      *string           `json:"key"` // the hash of the address
}

// dumpChecker checks a dump's lines one at a time: each account's code
// hash, key and storage root, and the order of the keys. It builds the
// state trie from the accounts; memory holds one account at a time.
type dumpChecker struct {
	accounts trie
	storage  *stacktrie.Trie

	root     stacktrie.Hash // the dump's state root
	rootLine int
	lastKey  []byte
	lastLine int

	count, slots       int
	checked, unchecked int // storage roots recomputed, and left unchecked

	slotBuf []storageSlot
	value   []byte
	payload []byte
}

// storageSlot is a storage entry ready for the trie.
type storageSlot struct {
	key   [32]byte // the hash of the slot
	value []byte   // the value in RLP
	slot  string   // the slot as the dump writes it
}

func newDumpChecker(accounts trie) *dumpChecker {
	return &dumpChecker{accounts: accounts, storage: stacktrie.New(nil)}
}

// read checks every line of the dump and inserts its accounts.
func (d *dumpChecker) read(in *input) error {
	return in.eachLine(isBlank, func(line []byte) error {
		if err := d.line(in.line, line); err != nil {
			return in.errorf("%v", err)
		}
		return nil
	})
}

// line checks one line, number n.
func (d *dumpChecker) line(n int, text []byte) error {
	var l dumpLine
	if err := json.Unmarshal(text, &l); err != nil {
		if string(bytes.TrimSpace(text)) == "{" {
			return errors.New("not one JSON object a line: is it geth dump without --iterative?")
		}
		return fmt.Errorf("not a JSON account or root line: %v", err)
	}
	if l.Balance == nil {
		return d.rootLineAt(n, &l)
	}
	if err := d.account(&l); err != nil {
		return err
	}
	d.lastLine = n
	return nil
}

// rootLineAt takes the line that holds the state root alone.
func (d *dumpChecker) rootLineAt(n int, l *dumpLine) error {
	if l.Root == nil || l.Nonce != nil || l.CodeHash != nil || l.Address != nil || l.Key != nil || l.Storage != nil {
		return errors.New("neither an account (no balance) nor the root line")
	}
	if d.rootLine > 0 {
		return fmt.Errorf("a second root line; the first is on line %d", d.rootLine)
	}
	root, err := decodeFixedHex(*l.Root, 32)
	if err != nil {
		return fmt.Errorf("root %w", err)
	}
	d.root, d.rootLine = stacktrie.Hash(root), n
	return nil
}

// account checks an account and inserts it into the state trie.
func (d *dumpChecker) account(l *dumpLine) error {
	key, err := accountKeyOf(l)
	if err != nil {
		return err
	}
	var balance uint256.Int
	if err := balance.UnmarshalText([]byte(*l.Balance)); err != nil {
		return fmt.Errorf("balance %q: not a number below 2^256", abbreviate(*l.Balance))
	}
	if l.Nonce == nil || l.Root == nil || l.CodeHash == nil {
		return errors.New("an account needs nonce, root and codeHash")
	}
	root, err := decodeFixedHex(*l.Root, 32)
	if err != nil {
		return fmt.Errorf("root %w", err)
	}
	codeHash, err := decodeFixedHex(*l.CodeHash, 32)
	if err != nil {
		return fmt.Errorf("codeHash %w", err)
	}
	if l.Code != nil {
		code, err := decodeHex(nil, *l.Code)
		if err != nil {
			return fmt.Errorf("code %w", err)
		}
		if h := keccak256(code); !bytes.Equal(h[:], codeHash) {
			return fmt.Errorf("the code hashes to %s, not to its codeHash %s", hex0x(h[:]), hex0x(codeHash))
		}
	}
	if err := d.checkStorage(l.Storage, stacktrie.Hash(root)); err != nil {
		return err
	}

	d.payload = rlpUint(d.payload[:0], *l.Nonce)
	d.payload = rlpUint256(d.payload, &balance)
	d.payload = rlpString(d.payload, root)
	d.payload = rlpString(d.payload, codeHash)
	d.value = rlpList(d.value[:0], d.payload)
	if err := d.accounts.Update(key, d.value); err != nil {
		return fmt.Errorf("account key %s is not above %s on line %d: the accounts must come in hashed-key order, as geth dump --iterative writes them",
			hex0x(key), hex0x(d.lastKey), d.lastLine)
	}
	d.lastKey = append(d.lastKey[:0], key...)
	d.count++
	return nil
}

// accountKeyOf is the account's trie key: its key field, or the hash of
// its address; with both, they must agree.
func accountKeyOf(l *dumpLine) ([]byte, error) {
	var key []byte
	if l.Key != nil {
		k, err := decodeFixedHex(*l.Key, 32)
		if err != nil {
			return nil, fmt.Errorf("key %w", err)
		}
		key = k
	}
	if l.Address != nil {
		addr, err := decodeFixedHex(*l.Address, 20)
		if err != nil {
			return nil, fmt.Errorf("address %w", err)
		}
		h := keccak256(addr)
		if key != nil && !bytes.Equal(key, h[:]) {
			return nil, fmt.Errorf("address %s hashes to %s, not to its key %s", *l.Address, hex0x(h[:]), hex0x(key))
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
func (d *dumpChecker) checkStorage(storage map[string]string, root stacktrie.Hash) error {
	if len(storage) == 0 && root != stacktrie.EmptyRoot {
		d.unchecked++
		return nil
	}
	slots := d.slotBuf[:0]
	for slot, text := range storage {
		key, err := decodeFixedHex(slot, 32)
		if err != nil {
			return fmt.Errorf("storage slot %w", err)
		}
		value, err := decodeHex(nil, text)
		if err != nil {
			return fmt.Errorf("storage slot %s: value %w", slot, err)
		}
		value = bytes.TrimLeft(value, "\x00")
		switch {
		case len(value) == 0:
			return fmt.Errorf("storage slot %s holds zero, which the trie does not store", slot)
		case len(value) > 32:
			return fmt.Errorf("storage slot %s: value of %d bytes, more than 32", slot, len(value))
		}
		slots = append(slots, storageSlot{key: keccak256(key), value: rlpString(nil, value), slot: slot})
	}
	slices.SortFunc(slots, func(a, b storageSlot) int { return bytes.Compare(a.key[:], b.key[:]) })
	d.storage.Reset()
	for i, s := range slots {
		if err := d.storage.Update(s.key[:], s.value); err != nil {
			return fmt.Errorf("storage slot %s is listed twice, the second time as %s", slots[i-1].slot, s.slot)
		}
	}
	d.slotBuf = slots[:0]
	if got := d.storage.Hash(); got != root {
		return fmt.Errorf("storage root %s of the %d slots dumped differs from the account's root %s (geth leaves out slots whose key it has no preimage for)",
			got, len(slots), root)
	}
	d.slots += len(slots)
	d.checked++
	return nil
}

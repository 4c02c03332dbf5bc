package main

import (
	"bytes"
	"fmt"

	"github.com/cockroachdb/pebble"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/state"
)

// Key lengths in the flat state: the prefix and one or two hashes. Other
// keys under the same prefixes are not go-ethereum's flat state, and its
// own iterators pass over them too.
const (
	flatAccountKeyLen = 1 + 32
	flatStorageKeyLen = 1 + 32 + 32
)

// flatCounts are what streaming the flat state counted.
type flatCounts struct {
	accounts, slots uint64
	dangling        uint64 // slots of accounts that the flat state does not hold
}

// prefixIter iterates over the keys that start with prefix.
func (g *gethDB) prefixIter(prefix byte) (*pebble.Iterator, error) {
	return g.db.NewIter(&pebble.IterOptions{LowerBound: []byte{prefix}, UpperBound: []byte{prefix + 1}})
}

// streamFlat feeds the flat state to b in key order: each account, then
// its slots. Every few thousand accounts it calls progress with the last
// account's hash.
func (g *gethDB) streamFlat(b *state.Builder, progress func(stacktrie.Hash)) (c flatCounts, err error) {
	defer recoverPebble(&err)
	accounts, err := g.prefixIter(flatAccountPrefix)
	if err != nil {
		return c, err
	}
	defer accounts.Close()
	slots, err := g.prefixIter(flatStoragePrefix)
	if err != nil {
		return c, err
	}
	defer slots.Close()

	slots.First()
	for accounts.First(); accounts.Valid(); accounts.Next() {
		key := accounts.Key()
		if len(key) != flatAccountKeyLen {
			continue
		}
		hash := stacktrie.Hash(key[1:])
		c.dangling += skipSlotsBefore(slots, hash[:])
		if err := b.AddAccount(hash, accounts.Value()); err != nil {
			return c, err
		}
		c.accounts++
		n, err := addSlots(b, slots, hash[:])
		c.slots += n
		if err != nil {
			return c, err
		}
		if c.accounts%4096 == 0 {
			progress(hash)
		}
	}
	c.dangling += skipSlotsBefore(slots, nil)
	if err := accounts.Error(); err != nil {
		return c, err
	}
	return c, slots.Error()
}

// skipSlotsBefore passes over the slots of accounts below account, or of
// all accounts if account is nil, and counts them.
func skipSlotsBefore(slots *pebble.Iterator, account []byte) uint64 {
	var n uint64
	for ; slots.Valid(); slots.Next() {
		key := slots.Key()
		if len(key) != flatStorageKeyLen {
			continue
		}
		if account != nil && bytes.Compare(key[1:33], account) >= 0 {
			break
		}
		n++
	}
	return n
}

// addSlots feeds b the slots of account, where slots stands.
func addSlots(b *state.Builder, slots *pebble.Iterator, account []byte) (uint64, error) {
	var n uint64
	for ; slots.Valid(); slots.Next() {
		key := slots.Key()
		if len(key) != flatStorageKeyLen {
			continue
		}
		if !bytes.Equal(key[1:33], account) {
			break
		}
		if err := b.AddSlot(stacktrie.Hash(key[33:]), slots.Value()); err != nil {
			return n, fmt.Errorf("slot %s: %w", hex0x(key[33:]), err)
		}
		n++
	}
	return n, nil
}

// countSlots counts the flat state's slots of one account.
func (g *gethDB) countSlots(account stacktrie.Hash) (n uint64, err error) {
	defer recoverPebble(&err)
	lower := append([]byte{flatStoragePrefix}, account[:]...)
	upper := append([]byte{flatStoragePrefix}, account[:]...)
	upper = increment(upper)
	it, err := g.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return 0, err
	}
	defer it.Close()
	for it.First(); it.Valid(); it.Next() {
		if len(it.Key()) == flatStorageKeyLen {
			n++
		}
	}
	return n, it.Error()
}

// increment returns the key just past every key that starts with b: b plus
// one in its last byte that is not 0xff, cut there.
func increment(b []byte) []byte {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] != 0xff {
			b[i]++
			return b[:i+1]
		}
	}
	return nil
}

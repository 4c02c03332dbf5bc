package testgen

// This file applies a block of changes to a model of the flat state, as the
// tests of incremental roots do block after block, beside the store under
// test.

import (
	"maps"
	"slices"
)

// ApplyChanges applies changes, a nil value deleting its key, to state and,
// through put, to the caller's store, in ascending key order, and returns
// the changed keys in that order, as incremental.Root takes them.
func ApplyChanges(state, changes map[string][]byte, put func(key, value []byte)) [][]byte {
	changed := make([][]byte, 0, len(changes))
	for _, k := range slices.Sorted(maps.Keys(changes)) {
		key := []byte(k)
		changed = append(changed, key)
		put(key, changes[k])
		if v := changes[k]; v != nil {
			state[k] = v
		} else {
			delete(state, k)
		}
	}
	return changed
}

// A SlotTable is where a state's storage is kept by owner and slot, as an
// incremental.Table keeps it.
type SlotTable interface {
	Put(key, value []byte)
	Delete(key []byte)
}

// SetSlot writes value to slot in slots, an account's storage in a model,
// and to table under owner's and slot's bytes joined, marking that key in
// changed; a nil value deletes the slot from both.
func SetSlot[H ~[32]byte](table SlotTable, changed map[string]bool, slots map[H][]byte, owner, slot H, value []byte) {
	key := slices.Concat(owner[:], slot[:])
	changed[string(key)] = true
	if value == nil {
		delete(slots, slot)
		table.Delete(key)
		return
	}
	slots[slot] = value
	table.Put(key, value)
}

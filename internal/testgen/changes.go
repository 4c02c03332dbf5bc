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

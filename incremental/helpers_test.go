package incremental

import (
	"bytes"
	"maps"
	"slices"
)

// tableOf returns a Table of the leaves.
func tableOf(leaves []kv) *Table {
	t := &Table{}
	for _, l := range leaves {
		t.Put(l.key, l.value)
	}
	return t
}

// contents returns a table's entries by key.
func contents(t *Table) map[string][]byte {
	m := make(map[string][]byte, t.Len())
	for k, v := range t.All() {
		m[string(k)] = bytes.Clone(v)
	}
	return m
}

// sortedLeaves returns the leaves of a flat state held as a map.
func sortedLeaves(state map[string][]byte) []kv {
	keys := slices.Sorted(maps.Keys(state))
	out := make([]kv, len(keys))
	for i, k := range keys {
		out[i] = kv{[]byte(k), state[k]}
	}
	return out
}

// built returns the root and records Build gives for the leaves.
func built(b *Builder, leaves []kv) ([32]byte, map[string][]byte, error) {
	recs := make(map[string][]byte)
	root, err := b.Build(tableOf(leaves), func(path, branch []byte) {
		recs[string(path)] = bytes.Clone(branch)
	})
	return root, recs, err
}

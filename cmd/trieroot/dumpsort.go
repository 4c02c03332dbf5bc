package main

import (
	"bytes"
	"slices"
)

// leafSorter gathers state trie leaves that come in any order, to insert
// them sorted. The leaves share one buffer, so that a dump of many
// accounts costs a few allocations, not one an account.
type leafSorter struct {
	leaves []sortedLeaf
	values []byte
}

// sortedLeaf is one gathered leaf: its key, its value's place in the
// shared buffer and the line of the input it came from.
type sortedLeaf struct {
	key        [32]byte
	start, end int
	line       int
}

// add keeps a copy of a leaf read on the given line.
func (s *leafSorter) add(key, value []byte, line int) {
	l := sortedLeaf{key: [32]byte(key), start: len(s.values), line: line}
	s.values = append(s.values, value...)
	l.end = len(s.values)
	s.leaves = append(s.leaves, l)
}

// insert sorts the leaves by key and inserts them into t; a key found
// twice is an error at the line of its second appearance.
func (s *leafSorter) insert(in *input, t trie) error {
	// Stable, so that of equal keys the first in the input comes first.
	slices.SortStableFunc(s.leaves, func(a, b sortedLeaf) int { return bytes.Compare(a.key[:], b.key[:]) })
	for i, l := range s.leaves {
		if i > 0 && l.key == s.leaves[i-1].key {
			return in.errorAt(l.line, "the account of key %s appears twice, first on line %d", hex0x(l.key[:]), s.leaves[i-1].line)
		}
		if err := t.Update(l.key[:], s.values[l.start:l.end]); err != nil {
			return in.errorAt(l.line, "%v", err) // cannot happen: keys ascend, leaves are not empty
		}
	}
	return nil
}

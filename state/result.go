package state

// This file holds what a Builder reports: per account and per stream.

import "github.com/stacktrie/stacktrie"

// Result is what a Builder computed from a stream.
type Result struct {
	Root       stacktrie.Hash // the state root, with every account's computed storage root
	Accounts   uint64         // accounts read
	Slots      uint64         // storage slots read
	Mismatches uint64         // accounts whose stored storage root is not the computed one
}

// AccountResult reports one account once its storage root is known.
type AccountResult struct {
	Hash         stacktrie.Hash // the hashed address
	Slots        uint64         // the account's storage slots in the stream
	StoredRoot   stacktrie.Hash // the storage root the account's encoding holds
	ComputedRoot stacktrie.Hash // the root of the slots: the one in the state trie's leaf
}

// Mismatch reports whether the stored storage root differs from the
// computed one.
func (r AccountResult) Mismatch() bool {
	return r.StoredRoot != r.ComputedRoot
}

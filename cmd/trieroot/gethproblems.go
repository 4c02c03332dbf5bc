package main

import (
	"fmt"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/state"
)

// accountProblem is an account whose flat state disagrees with the trie.
type accountProblem struct {
	Account jsonHash `json:"account"` // the hashed address
	Slots   uint64   `json:"slots"`   // its slots in the flat state
	Problem string   `json:"problem"`
}

// jsonHash is a hash that JSON writes as 0x-hex, as the roots are written.
type jsonHash stacktrie.Hash

func (h jsonHash) MarshalText() ([]byte, error) {
	return []byte(stacktrie.Hash(h).String()), nil
}

func (h jsonHash) String() string { return stacktrie.Hash(h).String() }

// problemList keeps the first few problems and counts them all.
type problemList struct {
	first []accountProblem
	count uint64
}

// maxProblems is how many problems trieroot geth names.
const maxProblems = 5

func (l *problemList) add(p accountProblem) {
	l.count++
	if len(l.first) < maxProblems {
		l.first = append(l.first, p)
	}
}

// storageCheck collects the Builder's verdict on each account's storage.
type storageCheck struct {
	checked    uint64 // accounts with a storage root to check
	mismatches problemList
}

func (s *storageCheck) onAccount(r state.AccountResult) {
	if r.Slots > 0 || r.StoredRoot != stacktrie.EmptyRoot {
		s.checked++
	}
	if r.Mismatch() {
		s.mismatches.add(accountProblem{Account: jsonHash(r.Hash), Slots: r.Slots,
			Problem: fmt.Sprintf("its slots give storage root %s, the account holds %s", r.ComputedRoot, r.StoredRoot)})
	}
}

package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/state"
)

// report puts the findings in the order the command prints them.
func (c *gethCommand) report(g *gethDB, tr trieRoot, res state.Result, counts flatCounts,
	storage *storageCheck, leaves *problemList, elapsed time.Duration) *report {
	r := &report{format: c.format()}
	r.add("scheme", tr.scheme)
	r.add("accounts", counts.accounts)
	r.add("slots", counts.slots)
	r.add("storageRootsChecked", storage.checked)
	r.add("storageMismatches", storage.mismatches.count)
	r.add("accountMismatches", leaves.count)
	r.add("danglingSlots", counts.dangling)
	problems := append(append([]accountProblem{}, storage.mismatches.first...), leaves.first...)
	if c.format() == jsonOutput {
		r.add("mismatches", problems)
	} else {
		for _, p := range problems {
			r.add("mismatch", fmt.Sprintf("%s (%d slots): %s", p.Account, p.Slots, p.Problem))
		}
	}
	r.add("stateRoot", res.Root.String())
	r.add("trieRoot", tr.root.String())
	r.add("match", res.Root == tr.root)
	seconds := max(elapsed.Seconds(), 1e-9)
	r.add("seconds", float64(elapsed.Milliseconds())/1000)
	r.add("accountsPerSecond", uint64(float64(counts.accounts)/seconds))
	r.add("slotsPerSecond", uint64(float64(counts.slots)/seconds))
	if res.Root != tr.root {
		r.mismatch = &inputError{name: g.dir, err: mismatchError(res.Root, tr.root, storage, leaves)}
	}
	return r
}

// mismatchError is the one line on stderr when the roots differ.
func mismatchError(computed, stored stacktrie.Hash, storage *storageCheck, leaves *problemList) error {
	msg := fmt.Sprintf("the flat state's root %s differs from the trie's root %s", computed, stored)
	var first *accountProblem
	switch {
	case len(storage.mismatches.first) > 0:
		first = &storage.mismatches.first[0]
	case len(leaves.first) > 0:
		first = &leaves.first[0]
	default:
		return errors.New(msg + "; no single account differs from the trie's leaves")
	}
	return fmt.Errorf("%s: %d accounts differ, the first %s", msg, storage.mismatches.count+leaves.count, first.Account)
}

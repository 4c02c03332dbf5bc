package main

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/state"
)

// gethCommand is trieroot geth: it checks a go-ethereum node's database in
// place, rebuilding the state root from the flat state and comparing it
// with the root the trie holds.
type gethCommand struct {
	outputFlags
	workers int
}

func (c *gethCommand) flags(fs *flag.FlagSet) {
	c.outputFlags.define(fs)
	fs.IntVar(&c.workers, "workers", 0, "hash on `N` cores (0: all of them)")
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

func (c *gethCommand) run(e *env, path string) (rep *report, err error) {
	if c.workers < 0 {
		return nil, fmt.Errorf("--workers %d: want 0 (all cores) or more", c.workers)
	}
	g, err := openGethDB(path)
	if err != nil {
		return nil, err
	}
	defer g.Close()
	tr, err := g.readTrieRoot()
	if err == nil {
		err = g.checkFlatState(tr)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", g.dir, err)
	}

	var storage storageCheck
	b := state.NewBuilder(state.Options{Workers: c.workers, OnAccount: storage.onAccount})
	defer b.Close()
	progress := func(stacktrie.Hash) {}
	if e.progress.enabled && !c.quiet {
		bar := newKeySpaceBar(e.stderr, e.progress.delay)
		defer bar.finish()
		progress = bar.update
	}
	start := time.Now()
	counts, err := g.streamFlat(b, progress)
	if err != nil {
		return nil, fmt.Errorf("%s: the flat state: %w", g.dir, err)
	}
	res := b.Finish()
	elapsed := time.Since(start)

	var leaves problemList
	if res.Root != tr.root {
		if leaves, err = g.diagnose(tr); err != nil {
			return nil, fmt.Errorf("%s: comparing the flat state with the trie: %w", g.dir, err)
		}
		if err := g.countProblemSlots(leaves.first); err != nil {
			return nil, fmt.Errorf("%s: %w", g.dir, err)
		}
	}
	return c.report(g, tr, res, counts, &storage, &leaves, elapsed), nil
}

// countProblemSlots fills in the slots of the accounts found by diagnose.
func (g *gethDB) countProblemSlots(problems []accountProblem) error {
	for i := range problems {
		n, err := g.countSlots(stacktrie.Hash(problems[i].Account))
		if err != nil {
			return err
		}
		problems[i].Slots = n
	}
	return nil
}

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

package main

import (
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

func (c *gethCommand) run(e *env, path string) (*report, error) {
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

package main

import (
	"errors"
	"flag"
	"fmt"
)

// stateCommand is trieroot state: it checks a state dump in go-ethereum's
// iterative format, the output of `geth dump --iterative`.
type stateCommand struct {
	trieFlags
}

func (c *stateCommand) flags(fs *flag.FlagSet) {
	c.define(fs, "an address, or the 32-byte hash of one")
	c.defineWorkers(fs)
}

func (c *stateCommand) run(e *env, path string) (*report, error) {
	out, in, err := c.open(e, path, accountKey)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	t := c.newTrie(out.onNode())
	defer t.Close()
	d := newDumpChecker(t)
	if err := d.read(in); err != nil {
		out.discard()
		return nil, err
	}
	in.Close()
	root := d.accounts.Hash()
	r := &report{format: c.format()}
	r.add("accounts", d.count)
	r.add("slots", d.slots)
	r.add("storageRootsChecked", d.checked)
	r.add("storageRootsUnchecked", d.unchecked)
	r.add("stateRoot", root.String())
	if d.rootLine == 0 {
		r.add("dumpRoot", nil)
		r.add("match", false)
		r.mismatch = &inputError{name: in.name, err: errors.New("no root line: is it the output of geth dump --iterative?")}
		return r, out.close(r, root)
	}
	r.add("dumpRoot", d.root.String())
	r.add("match", root == d.root)
	if root != d.root {
		r.mismatch = &inputError{name: in.name, line: d.rootLine,
			err: fmt.Errorf("the dump's root %s differs from the state root %s of its accounts", d.root, root)}
	}
	return r, out.close(r, root)
}

// accountKey is the state trie key that a --proof argument names: the
// hash of an address, or a hash given as is.
func accountKey(s string) ([]byte, error) {
	b, err := decodeHex(nil, s)
	if err != nil {
		return nil, err
	}
	switch len(b) {
	case 20:
		h := keccak256(b)
		return h[:], nil
	case 32:
		return b, nil
	}
	return nil, fmt.Errorf("%d bytes: want an address (20) or a hashed key (32)", len(b))
}

package main

import (
	"errors"
	"flag"
	"fmt"
)

// stateCommand is trieroot state: it checks a state dump as go-ethereum
// writes it, `geth dump` whole or `geth dump --iterative` line by line.
type stateCommand struct {
	trieFlags
	sort bool
}

func (c *stateCommand) flags(fs *flag.FlagSet) {
	c.define(fs, "an address, or the 32-byte hash of one")
	c.defineWorkers(fs)
	fs.BoolVar(&c.sort, "sort", false, "sort the accounts of --iterative lines, which may then come in any order (a whole-state dump is sorted anyway)")
}

func (c *stateCommand) run(e *env, path string) (*report, error) {
	out, in, err := c.open(e, path, accountKey)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	t := c.newTrie(out.onNode())
	defer t.Close()
	d := newStateDump()
	plain := isPlainDump(in)
	switch {
	case plain && c.sort:
		err = &inputError{name: in.name, err: errors.New("--sort is for geth dump --iterative lines; this is a whole-state geth dump, which is sorted anyway")}
	case plain:
		err = d.readPlain(in, t)
	case c.sort:
		err = d.readLinesSorted(in, t)
	default:
		err = d.readLines(in, t)
	}
	if err != nil {
		out.discard()
		return nil, err
	}
	in.Close()
	root := t.Hash()
	a := d.accounts
	r := &report{format: c.format()}
	r.add("accounts", a.count)
	r.add("slots", a.slots)
	r.add("storageRootsChecked", a.checked)
	r.add("storageRootsUnchecked", a.unchecked)
	r.add("stateRoot", root.String())
	if d.rootLine == 0 {
		missing := "no root line: is it the output of geth dump --iterative?"
		if plain {
			missing = "no root: is it the output of geth dump?"
		}
		r.add("dumpRoot", nil)
		r.add("match", false)
		r.mismatch = &inputError{name: in.name, err: errors.New(missing)}
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

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/stacktrie/stacktrie"
)

// stateDump is what reading a dump found: its accounts, checked, and the
// state root it claims.
type stateDump struct {
	accounts *accountChecker
	root     stacktrie.Hash
	rootLine int // the line of the root; 0 when the dump holds none
}

func newStateDump() *stateDump {
	return &stateDump{accounts: newAccountChecker()}
}

// readLines reads `geth dump --iterative`, one JSON object a line, and
// inserts each account into t as it comes: they must come in hashed-key
// order, as geth writes them. Memory holds one account at a time.
func (d *stateDump) readLines(in *input, t trie) error {
	var lastKey []byte
	lastLine := 0
	return d.eachAccountLine(in, func(key, leaf []byte) error {
		if err := t.Update(key, leaf); err != nil {
			return fmt.Errorf("account key %s is not above %s on line %d: the accounts must come in hashed-key order, as geth dump --iterative writes them, or pass --sort",
				hex0x(key), hex0x(lastKey), lastLine)
		}
		lastKey, lastLine = append(lastKey[:0], key...), in.line
		return nil
	})
}

// readLinesSorted reads `geth dump --iterative` lines in any order (--sort):
// it checks each account as it comes, keeps its key and leaf, and inserts
// them into t once sorted. Memory grows by about 150 bytes an account;
// storage is still checked one account at a time.
func (d *stateDump) readLinesSorted(in *input, t trie) error {
	var leaves leafSorter
	err := d.eachAccountLine(in, func(key, leaf []byte) error {
		leaves.add(key, leaf, in.line)
		return nil
	})
	if err != nil {
		return err
	}
	return leaves.insert(in, t)
}

// eachAccountLine checks every line of an iterative dump, takes its root
// line, and calls take with the key and leaf of each account in the order
// of the lines.
func (d *stateDump) eachAccountLine(in *input, take func(key, leaf []byte) error) error {
	return in.eachLine(isBlank, func(line []byte) error {
		if err := d.line(in.line, line, take); err != nil {
			return in.errorf("%v", err)
		}
		return nil
	})
}

// line checks one line, number n.
func (d *stateDump) line(n int, text []byte, take func(key, leaf []byte) error) error {
	var a dumpAccount
	if err := json.Unmarshal(text, &a); err != nil {
		if string(bytes.TrimSpace(text)) == "{" {
			return errors.New("not one JSON object a line, nor a whole-state geth dump (its first key root or accounts)")
		}
		return fmt.Errorf("not a JSON account or root line: %v", err)
	}
	if a.Balance == nil {
		return d.rootLineAt(n, &a)
	}
	key, leaf, err := d.accounts.check(&a)
	if err != nil {
		return err
	}
	return take(key, leaf)
}

// rootLineAt takes the line that holds the state root alone.
func (d *stateDump) rootLineAt(n int, a *dumpAccount) error {
	if a.Root == nil || a.Nonce != nil || a.CodeHash != nil || a.Address != nil || a.Key != nil || a.Storage != nil {
		return errors.New("neither an account (no balance) nor the root line")
	}
	if d.rootLine > 0 {
		return fmt.Errorf("a second root line; the first is on line %d", d.rootLine)
	}
	return d.takeRoot(n, *a.Root)
}

// takeRoot records the dump's state root, written on line n.
func (d *stateDump) takeRoot(n int, text string) error {
	root, err := decodeFixedHex(text, 32)
	if err != nil {
		return fmt.Errorf("root %w", err)
	}
	d.root, d.rootLine = stacktrie.Hash(root), n
	return nil
}

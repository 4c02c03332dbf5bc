package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/state"
)

// diagnose finds the accounts whose flat state differs from the trie's
// leaves, by walking the stored trie beside the flat accounts: an account
// of one and not the other, or a leaf whose nonce, balance, storage root or
// code hash differ. It compares the storage roots the accounts hold; the
// storage roots their slots give are the Builder's to check.
func (g *gethDB) diagnose(tr trieRoot) (problems problemList, err error) {
	defer recoverPebble(&err)
	flat, err := g.prefixIter(flatAccountPrefix)
	if err != nil {
		return problems, err
	}
	defer flat.Close()
	flat.First()
	next := func() []byte {
		for ; flat.Valid(); flat.Next() {
			if len(flat.Key()) == flatAccountKeyLen {
				return flat.Key()[1:]
			}
		}
		return nil
	}
	var buf []byte
	trie := &storedTrie{g: g, scheme: tr.scheme}
	compare := func(key, value []byte) error {
		for k := next(); k != nil && bytes.Compare(k, key) < 0; k = next() {
			problems.add(accountProblem{Account: jsonHash(k), Problem: "in the flat state, not in the trie"})
			flat.Next()
		}
		k := next()
		if k == nil || !bytes.Equal(k, key) {
			problems.add(accountProblem{Account: jsonHash(key), Problem: "in the trie, not in the flat state"})
			return nil
		}
		var a state.Account
		if err := a.DecodeRLP(flat.Value()); err != nil {
			return fmt.Errorf("account %s: %w", hex0x(key), err)
		}
		buf = a.AppendRLP(buf[:0])
		if !bytes.Equal(buf, value) {
			problems.add(accountProblem{Account: jsonHash(key), Problem: leafDifference(&a, value)})
		}
		flat.Next()
		return nil
	}
	if tr.root != stacktrie.EmptyRoot {
		if err := trie.walk(tr.root[:], compare); err != nil {
			return problems, err
		}
	}
	for k := next(); k != nil; k = next() {
		problems.add(accountProblem{Account: jsonHash(k), Problem: "in the flat state, not in the trie"})
		flat.Next()
	}
	return problems, flat.Error()
}

// leafDifference says how the flat account differs from the trie's leaf.
func leafDifference(flat *state.Account, leaf []byte) string {
	var t state.Account
	if err := t.DecodeRLP(leaf); err != nil {
		return fmt.Sprintf("the trie's leaf is not an account: %v", err)
	}
	var diffs []string
	if flat.Nonce != t.Nonce {
		diffs = append(diffs, fmt.Sprintf("nonce %d, the trie's %d", flat.Nonce, t.Nonce))
	}
	if flat.Balance != t.Balance {
		diffs = append(diffs, fmt.Sprintf("balance %s, the trie's %s", flat.Balance.Dec(), t.Balance.Dec()))
	}
	if flat.Root != t.Root {
		diffs = append(diffs, fmt.Sprintf("storage root %s, the trie's %s", flat.Root, t.Root))
	}
	if flat.CodeHash != t.CodeHash {
		diffs = append(diffs, fmt.Sprintf("code hash %s, the trie's %s", flat.CodeHash, t.CodeHash))
	}
	return "the flat state's " + strings.Join(diffs, "; ")
}

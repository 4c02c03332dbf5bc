package main

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/stacktrie/stacktrie"
)

// The keys of go-ethereum's database that trieroot geth reads (go-ethereum's
// core/rawdb/schema.go).
var (
	accountTrieRootKey = []byte("A") // the path scheme's account trie node at the empty path
	persistentStateKey = []byte("LastStateID")
	snapshotRootKey    = []byte("SnapshotRoot")
	snapshotGenKey     = []byte("SnapshotGenerator")
	snapshotOffKey     = []byte("SnapshotDisabled")
	verkleRootKey      = []byte("vA") // the verkle table's account trie root node
	flatAccountPrefix  = byte('a')    // + hashed address: the slim RLP of the account
	flatStoragePrefix  = byte('o')    // + hashed address + hashed slot: the slot's RLP value
)

// Trie schemes, as go-ethereum names them.
const (
	pathScheme = "path"
	hashScheme = "hash"
)

// trieRoot is the root that the database's trie holds, and how it keeps it.
type trieRoot struct {
	scheme string
	root   stacktrie.Hash
}

// readTrieRoot finds the database's scheme as go-ethereum does, the path
// scheme first, and the root its trie holds: for the path scheme the hash of
// the account trie's root node, for the hash scheme the root of the flat
// state, whose nodes are keyed by hash.
func (g *gethDB) readTrieRoot() (trieRoot, error) {
	node, err := g.get(accountTrieRootKey)
	if err != nil {
		return trieRoot{}, err
	}
	if node != nil {
		return trieRoot{pathScheme, keccak256(node)}, nil
	}
	id, err := g.get(persistentStateKey)
	if err != nil {
		return trieRoot{}, err
	}
	if len(id) == 8 && binary.BigEndian.Uint64(id) != 0 {
		// go-ethereum deletes the root node of an empty state.
		return trieRoot{pathScheme, stacktrie.EmptyRoot}, nil
	}
	if node, err := g.get(verkleRootKey); err != nil {
		return trieRoot{}, err
	} else if node != nil {
		return trieRoot{}, errors.New("a verkle state: trieroot geth checks Merkle-Patricia states only")
	}
	snapRoot, err := g.get(snapshotRootKey)
	if err != nil {
		return trieRoot{}, err
	}
	if len(snapRoot) == 32 {
		root := stacktrie.Hash(snapRoot)
		if node, err := g.get(snapRoot); err != nil || node != nil || root == stacktrie.EmptyRoot {
			return trieRoot{hashScheme, root}, err
		}
		return trieRoot{}, fmt.Errorf("no trie: the flat state is for root %s, whose node is not in the database", root)
	}
	return trieRoot{}, errors.New("no state: neither a path-scheme trie nor a hash-scheme snapshot (an empty or a fresh node?)")
}

// checkFlatState refuses a flat state that go-ethereum would not trust: one
// turned off, one still being generated, or one of another state than the
// path scheme's trie.
func (g *gethDB) checkFlatState(tr trieRoot) error {
	off, err := g.get(snapshotOffKey)
	if err != nil {
		return err
	}
	if off != nil {
		return errors.New("the flat state (snapshot) is turned off in this database: go-ethereum keeps none up to date")
	}
	gen, err := g.get(snapshotGenKey)
	if err != nil {
		return err
	}
	if gen != nil {
		progress, err := decodeGenerator(gen)
		if err != nil {
			return fmt.Errorf("the snapshot generator's record: %w", err)
		}
		if !progress.done {
			return fmt.Errorf("the flat state is incomplete: go-ethereum is still generating it (%d accounts and %d slots so far, up to %s); let geth finish",
				progress.accounts, progress.slots, hex0x(progress.marker))
		}
	}
	if tr.scheme == pathScheme {
		snapRoot, err := g.get(snapshotRootKey)
		if err != nil {
			return err
		}
		if len(snapRoot) == 32 && stacktrie.Hash(snapRoot) != tr.root {
			return fmt.Errorf("the flat state is for root %s, the trie's root is %s: go-ethereum will regenerate the flat state", stacktrie.Hash(snapRoot), tr.root)
		}
	}
	return nil
}

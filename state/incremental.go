package state

// This file drives the incremental package over a whole state, block by
// block: each account's storage trie through incremental's per-owner form
// (PrefixCursor and PrefixStore over tables that hold every owner), then
// the account trie, whose leaves are the flat accounts in consensus RLP with
// the storage roots just worked out.

import (
	"bytes"
	"fmt"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/incremental"
)

// Tables are the sorted tables a node keeps to compute state roots block by
// block, each read through an incremental.Cursor of its own: two views of
// one database need two iterators, since each cursor keeps its place. A
// nil cursor is an empty table.
type Tables struct {
	// Accounts maps a hashed address to the account's slim or full RLP,
	// as go-ethereum's snapshot holds it. The storage root an account
	// holds is read only for accounts whose storage the block left alone.
	Accounts incremental.Cursor
	// Storage maps a hashed address followed by a hashed slot, 64 bytes,
	// to the slot's value.
	Storage incremental.Cursor
	// AccountBranches maps a nibble path to a branch record of the account
	// trie; StorageBranches maps a hashed address followed by a nibble
	// path to a branch record of that account's storage trie.
	AccountBranches, StorageBranches incremental.Cursor
}

// Changes are the keys a block changed, each list in ascending order.
type Changes struct {
	// Accounts holds the hashed address of every account inserted,
	// updated or deleted, apart from a change of its storage root.
	Accounts [][]byte
	// Slots holds the hashed address followed by the hashed slot of every
	// slot inserted, updated or deleted. An account deleted with its
	// storage has every slot it held here, so that its records go too.
	Slots [][]byte
}

// Store receives what Updater.Root and Build work out, once they succeed.
// Each field may be nil.
type Store struct {
	// AccountBranch writes (path, record) or deletes (path, nil) a record
	// of the account trie, as incremental.Root passes them.
	AccountBranch func(path, branch []byte)
	// StorageBranch does the same for a storage trie; key is the hashed
	// address followed by the nibble path.
	StorageBranch func(key, branch []byte)
	// StorageRoot gives the storage root worked out for each account
	// whose storage the block changed, so that the caller can write it
	// into the account's flat entry, as go-ethereum's snapshot holds it.
	StorageRoot func(owner, root stacktrie.Hash)
}

// An Updater computes state roots from Tables: Build from scratch, Root
// after each block. It keeps its builders and buffers from one call to the
// next, so that it allocates nothing once its buffers have grown. It is not
// safe for concurrent use.
type Updater struct {
	// accountTrie builds the account trie; storageTrie each storage trie,
	// in Build while accountTrie reads the account the storage belongs to.
	accountTrie, storageTrie *incremental.Builder
	leaves                   consensusAccounts
	storage                  incremental.PrefixCursor
	branches                 incremental.PrefixCursor
	prefixed                 incremental.PrefixStore
	write                    func(path, branch []byte) // prefixed.Write, made once
	slots                    [][]byte                  // one owner's changed slots, the owner cut off
	changed                  [][]byte                  // the accounts whose leaves the block changed
	roots                    []ownerRoot
	writes                   pendingWrites
	// buildSlots and buildStore are Build's slots table and store while it
	// runs.
	buildSlots incremental.Cursor
	buildStore Store
}

// ownerRoot is a storage root worked out.
type ownerRoot struct{ owner, root stacktrie.Hash }

// NewUpdater returns an Updater.
func NewUpdater() *Updater {
	u := &Updater{
		accountTrie: incremental.NewBuilder(incremental.HashedKeyLen),
		storageTrie: incremental.NewBuilder(incremental.HashedKeyLen),
	}
	u.write = u.prefixed.Write
	u.leaves.u = u
	return u
}

// Build computes the state root from scratch: every account's storage root
// from its slots, and the account trie over the accounts with those roots,
// in one pass over the accounts. It passes every record to store as it is
// finalized, and once the root is computed, each storage root that differs
// from the one the account holds. Slots under a hashed address that no
// account has are not read. A Build that fails may have passed some records
// to store already. It keeps nothing per account but the storage roots
// that differ, until the end.
func (u *Updater) Build(t Tables, store Store) (stacktrie.Hash, error) {
	t = t.orEmpty()
	u.roots = u.roots[:0]
	u.buildSlots, u.buildStore = t.Storage, store
	defer func() { u.buildSlots, u.buildStore = nil, Store{} }() // no reference kept to the caller's
	u.leaves.reset(t.Accounts, true)
	root, err := u.accountTrie.Build(&u.leaves, store.AccountBranch)
	if err == nil {
		err = u.leaves.err
	}
	if err != nil {
		return stacktrie.Hash{}, err
	}
	if store.StorageRoot != nil {
		for _, r := range u.roots {
			store.StorageRoot(r.owner, r.root)
		}
	}
	return root, nil
}

// buildStorage is Build's storage root of the account at owner, worked out
// from its slots as the account trie reads the account; it keeps the root
// if it differs from the one a holds.
func (u *Updater) buildStorage(owner *stacktrie.Hash, a *Account) (stacktrie.Hash, error) {
	u.storage.Reset(u.buildSlots, owner[:])
	var write func(path, branch []byte)
	if u.buildStore.StorageBranch != nil {
		u.prefixed.Reset(u.buildStore.StorageBranch, owner[:])
		write = u.write
	}
	root, err := u.storageTrie.Build(&u.storage, write)
	if err != nil {
		return stacktrie.Hash{}, fmt.Errorf("storage of account %s: %w", *owner, err)
	}
	if root != a.Root {
		u.roots = append(u.roots, ownerRoot{owner: *owner, root: root})
	}
	return root, nil
}

// Root computes the state root after a block from the tables as the block
// left them and the keys it changed: the storage root of each account with
// a changed slot, then the account trie, over only the changed prefixes of
// each. Once all of that has succeeded, and only then, store receives the
// records to write and delete, storage tries first, and the new storage
// roots.
func (u *Updater) Root(t Tables, c Changes, store Store) (stacktrie.Hash, error) {
	if err := incremental.CheckChanged(c.Accounts, len(stacktrie.Hash{})); err != nil {
		return stacktrie.Hash{}, err
	}
	if err := incremental.CheckChanged(c.Slots, 2*len(stacktrie.Hash{})); err != nil {
		return stacktrie.Hash{}, err
	}
	t = t.orEmpty()
	u.writes.reset()
	u.roots = u.roots[:0]
	for i := 0; i < len(c.Slots); {
		owner := stacktrie.Hash(c.Slots[i])
		u.slots = u.slots[:0]
		for ; i < len(c.Slots) && bytes.HasPrefix(c.Slots[i], owner[:]); i++ {
			u.slots = append(u.slots, c.Slots[i][len(owner):])
		}
		u.storage.Reset(t.Storage, owner[:])
		u.branches.Reset(t.StorageBranches, owner[:])
		u.prefixed.Reset(u.writes.storage, owner[:])
		root, err := u.storageTrie.Root(&u.branches, &u.storage, u.slots, u.write)
		if err != nil {
			return stacktrie.Hash{}, fmt.Errorf("storage of account %s: %w", owner, err)
		}
		u.roots = append(u.roots, ownerRoot{owner: owner, root: root})
	}
	u.changed = mergeChanged(u.changed[:0], c.Accounts, u.roots)
	u.leaves.reset(t.Accounts, false)
	root, err := u.accountTrie.Root(t.AccountBranches, &u.leaves, u.changed, u.writes.account)
	if err == nil {
		err = u.leaves.err
	}
	if err != nil {
		return stacktrie.Hash{}, err
	}
	u.writes.apply(store)
	if store.StorageRoot != nil {
		for _, r := range u.roots {
			store.StorageRoot(r.owner, r.root)
		}
	}
	return root, nil
}

// orEmpty returns t with an empty table for each nil cursor.
func (t Tables) orEmpty() Tables {
	for _, c := range []*incremental.Cursor{&t.Accounts, &t.Storage, &t.AccountBranches, &t.StorageBranches} {
		if *c == nil {
			*c = emptyTable{}
		}
	}
	return t
}

// emptyTable is a Cursor over nothing.
type emptyTable struct{}

func (emptyTable) Seek([]byte) ([]byte, []byte, bool) { return nil, nil, false }
func (emptyTable) Next() ([]byte, []byte, bool)       { return nil, nil, false }

// mergeChanged appends to dst the union of accounts and the owners of
// roots, both ascending, in ascending order.
func mergeChanged(dst, accounts [][]byte, roots []ownerRoot) [][]byte {
	i, j := 0, 0
	for i < len(accounts) || j < len(roots) {
		switch {
		case j == len(roots) || i < len(accounts) && bytes.Compare(accounts[i], roots[j].owner[:]) < 0:
			dst = append(dst, accounts[i])
			i++
		case i == len(accounts) || bytes.Compare(accounts[i], roots[j].owner[:]) > 0:
			dst = append(dst, roots[j].owner[:])
			j++
		default:
			dst = append(dst, accounts[i])
			i++
			j++
		}
	}
	return dst
}

// consensusAccounts is the account trie's leaves: a cursor over the flat
// accounts whose values it re-encodes in consensus RLP, with the storage
// roots worked out in place of the stored ones: built from the slots in
// Build, the roots of the changed storage tries in Root. An account that
// does not decode, or whose storage fails, ends the leaves, and err says
// why; the Updater then fails.
type consensusAccounts struct {
	u      *Updater // which works out the storage roots
	cursor incremental.Cursor
	build  bool // Build's leaves: each storage root is built
	next   int  // Root's leaves: the first of u.roots not below the last key read
	// The account being read, kept here: the storage trie's cursor keeps
	// owner as its prefix, and a local would escape, once an account.
	owner   stacktrie.Hash
	account Account
	leaf    []byte
	err     error
}

func (c *consensusAccounts) reset(cursor incremental.Cursor, build bool) {
	c.cursor, c.build, c.next, c.err = cursor, build, 0, nil
}

func (c *consensusAccounts) Seek(key []byte) ([]byte, []byte, bool) {
	return c.convert(c.cursor.Seek(key))
}

func (c *consensusAccounts) Next() ([]byte, []byte, bool) {
	return c.convert(c.cursor.Next())
}

func (c *consensusAccounts) convert(k, v []byte, ok bool) ([]byte, []byte, bool) {
	if !ok || c.err != nil {
		return nil, nil, false
	}
	if len(k) != len(stacktrie.Hash{}) {
		c.err = fmt.Errorf("%w: hashed address %#x", incremental.ErrKeyLength, k)
		return nil, nil, false
	}
	a := &c.account
	if err := a.DecodeRLP(v); err != nil {
		c.err = fmt.Errorf("account %#x: %w", k, err)
		return nil, nil, false
	}
	if c.build {
		c.owner = stacktrie.Hash(k)
		root, err := c.u.buildStorage(&c.owner, a)
		if err != nil {
			c.err = err
			return nil, nil, false
		}
		a.Root = root
	} else {
		// The root worked out if the block changed the account's storage.
		roots := c.u.roots
		for c.next < len(roots) && bytes.Compare(roots[c.next].owner[:], k) < 0 {
			c.next++
		}
		if c.next < len(roots) && bytes.Equal(roots[c.next].owner[:], k) {
			a.Root = roots[c.next].root
		}
	}
	c.leaf = a.AppendRLP(c.leaf[:0])
	return k, c.leaf, true
}

// pendingWrites holds the records Root works out until it has succeeded:
// keys and records back to back in one buffer.
type pendingWrites struct {
	buf     []byte
	entries []pendingWrite
	// storage and account are the store functions that fill it, made once.
	storage, account func(key, branch []byte)
}

type pendingWrite struct {
	account         bool // a record of the account trie, else of a storage trie
	deletion        bool
	start, mid, end int32 // buf[start:mid] is the key, buf[mid:end] the record
}

func (p *pendingWrites) reset() {
	if p.storage == nil {
		p.storage = func(key, branch []byte) { p.add(false, key, branch) }
		p.account = func(key, branch []byte) { p.add(true, key, branch) }
	}
	p.buf, p.entries = p.buf[:0], p.entries[:0]
}

func (p *pendingWrites) add(account bool, key, branch []byte) {
	start := len(p.buf)
	p.buf = append(append(p.buf, key...), branch...)
	p.entries = append(p.entries, pendingWrite{account: account, deletion: branch == nil,
		start: int32(start), mid: int32(start + len(key)), end: int32(len(p.buf))})
}

// apply passes every write to store, in the order held.
func (p *pendingWrites) apply(store Store) {
	for _, e := range p.entries {
		key, branch := p.buf[e.start:e.mid], p.buf[e.mid:e.end]
		if e.deletion {
			branch = nil
		}
		switch {
		case e.account && store.AccountBranch != nil:
			store.AccountBranch(key, branch)
		case !e.account && store.StorageBranch != nil:
			store.StorageBranch(key, branch)
		}
	}
}

package fuzz

import (
	"bytes"
	"encoding/binary"
	"maps"
	"slices"
	"testing"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/incremental"
	"github.com/stacktrie/stacktrie/internal/reftrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
	"github.com/stacktrie/stacktrie/state"
)

// FuzzUpdater runs blocks of changes drawn from the input on a whole state,
// accounts with storage, through state.Updater: after each block its root
// must be the reference trie's over the accounts, each with the root the
// reference trie gives its slots; every flat account, updated with the
// storage roots Root reports, must hold that root; and both branch tables,
// updated with what Root stored, must hold exactly what Build gives from
// scratch.
//
// Each change is an op byte and an owner byte, then for a slot a slot
// byte, and for a write a value length byte. The op byte's low bits say:
// write a slot, clear a slot, clear every slot of the account, bump the
// account's nonce, delete the account with its storage, or end the block.
// Owners and slots come from single bytes, laid out so that many share
// long prefixes; a slot written to an owner without an account creates it.
func FuzzUpdater(f *testing.F) {
	// Slots of one account over blocks, a second account, a slot cleared,
	// the second account deleted, a nonce bumped.
	f.Add([]byte{0, 1, 2, 5, 5, 0, 0, 1, 3, 40, 5, 0, 0, 2, 3, 1, 1, 1, 2, 5, 0, 4, 2, 5, 0, 3, 1})
	// Owners that share their first bytes; storage cleared, an account
	// deleted and created again.
	f.Add([]byte{0, 0x21, 1, 1, 0, 0x22, 1, 1, 5, 0, 0, 0x23, 7, 33, 2, 0x22, 5, 0, 3, 0x40, 4, 0x21, 5, 0, 0, 0x21, 9, 2})
	// Twenty accounts, enough for stored branches in the account trie, then
	// blocks that change storage alone, so that only the storage roots
	// change the account trie.
	many := []byte{}
	for b := range byte(20) {
		many = append(many, 3, b)
	}
	f.Add(append(many, 5, 0, 0, 5, 9, 3, 5, 0, 0, 17, 1, 1, 1, 5, 9, 5, 0, 2, 17))
	f.Fuzz(func(t *testing.T, data []byte) {
		m := newStateModel()
		u := state.NewUpdater()
		for blocks := 0; len(data) > 0 && blocks < maxBlocks; blocks++ {
			var changes state.Changes
			changes, data = m.block(data)
			root, err := u.Root(m.tables(), changes, m.store())
			if err != nil {
				t.Fatal(err)
			}
			if want := m.oracleRoot(); root != want {
				t.Fatalf("block %d: root %x, reference %x", blocks, root, want)
			}
			m.checkStorageRoots(t)
			m.checkBranches(t, root)
		}
	})
}

type modelAccount struct {
	nonce uint64
	slots map[stacktrie.Hash][]byte
}

// stateModel is the flat state in a model and in the tables Updater reads,
// and the branch tables it keeps.
type stateModel struct {
	accounts                         map[stacktrie.Hash]*modelAccount
	accountTable, storageTable       *incremental.Table
	accountBranches, storageBranches *incremental.Table
}

func newStateModel() *stateModel {
	return &stateModel{
		accounts:     map[stacktrie.Hash]*modelAccount{},
		accountTable: &incremental.Table{}, storageTable: &incremental.Table{},
		accountBranches: &incremental.Table{}, storageBranches: &incremental.Table{},
	}
}

func (m *stateModel) tables() state.Tables {
	return state.Tables{Accounts: m.accountTable, Storage: m.storageTable, AccountBranches: m.accountBranches, StorageBranches: m.storageBranches}
}

// store writes into the branch tables and each storage root into the
// account's flat entry.
func (m *stateModel) store() state.Store {
	return state.Store{
		AccountBranch: m.accountBranches.Write,
		StorageBranch: m.storageBranches.Write,
		StorageRoot: func(owner, root stacktrie.Hash) {
			v, ok := m.accountTable.Get(owner[:])
			if !ok {
				return
			}
			var a state.Account
			if err := a.DecodeRLP(v); err != nil {
				panic(err)
			}
			a.Root = root
			m.accountTable.Put(owner[:], a.AppendSlimRLP(nil))
		},
	}
}

// ownerHash and slotHash spread single bytes over 32-byte keys whose first
// bytes many of them share.
func ownerHash(b byte) stacktrie.Hash {
	var h stacktrie.Hash
	h[0] = b >> 5
	for i := 1; i < len(h); i++ {
		h[i] = b
	}
	return h
}

func slotHash(b byte) stacktrie.Hash {
	var h stacktrie.Hash
	h[0], h[1] = b>>6, b>>3
	for i := 2; i < len(h); i++ {
		h[i] = b
	}
	return h
}

// block reads one block's changes off data, applies them to the model and
// the flat tables, and returns the changed keys and the rest of data. A new
// account's flat entry holds the empty storage root; an account whose slots
// change keeps its old one until Root reports the new one.
func (m *stateModel) block(data []byte) (state.Changes, []byte) {
	changedAccounts := map[stacktrie.Hash]bool{}
	changedSlots := map[string]bool{}
	account := func(owner stacktrie.Hash) *modelAccount {
		a, ok := m.accounts[owner]
		if !ok {
			a = &modelAccount{slots: map[stacktrie.Hash][]byte{}}
			m.accounts[owner] = a
			m.writeAccount(owner, stacktrie.EmptyRoot)
			changedAccounts[owner] = true
		}
		return a
	}
	setSlot := func(owner stacktrie.Hash, a *modelAccount, slot stacktrie.Hash, value []byte) {
		testgen.SetSlot(m.storageTable, changedSlots, a.slots, owner, slot, value)
	}
	for len(data) >= 2 {
		op, owner := data[0]%8, ownerHash(data[1])
		data = data[2:]
		switch op {
		case 0, 6: // write a slot
			if len(data) < 2 {
				return m.changes(changedAccounts, changedSlots), nil
			}
			slot, n := slotHash(data[0]), 1+int(data[1]%40)
			data = data[2:]
			setSlot(owner, account(owner), slot, bytes.Repeat([]byte{slot[31] ^ byte(n)}, n))
		case 1: // clear a slot, there or not
			if len(data) < 1 {
				return m.changes(changedAccounts, changedSlots), nil
			}
			slot := slotHash(data[0])
			data = data[1:]
			if a, ok := m.accounts[owner]; ok {
				setSlot(owner, a, slot, nil)
			}
		case 2: // clear every slot of the account
			if a, ok := m.accounts[owner]; ok {
				for slot := range a.slots {
					setSlot(owner, a, slot, nil)
				}
			}
		case 3, 7: // bump the nonce
			a := account(owner)
			a.nonce++
			v, _ := m.accountTable.Get(owner[:])
			var stored state.Account
			if err := stored.DecodeRLP(v); err != nil {
				panic(err)
			}
			m.writeAccount(owner, stored.Root)
			changedAccounts[owner] = true
		case 4: // delete the account with its storage
			if a, ok := m.accounts[owner]; ok {
				for slot := range a.slots {
					setSlot(owner, a, slot, nil)
				}
				delete(m.accounts, owner)
				m.accountTable.Delete(owner[:])
				changedAccounts[owner] = true
			}
		case 5:
			return m.changes(changedAccounts, changedSlots), data
		}
	}
	return m.changes(changedAccounts, changedSlots), nil
}

func (m *stateModel) changes(accounts map[stacktrie.Hash]bool, slots map[string]bool) state.Changes {
	var c state.Changes
	for owner := range accounts {
		c.Accounts = append(c.Accounts, bytes.Clone(owner[:]))
	}
	for key := range slots {
		c.Slots = append(c.Slots, []byte(key))
	}
	slices.SortFunc(c.Accounts, bytes.Compare)
	slices.SortFunc(c.Slots, bytes.Compare)
	return c
}

// writeAccount writes the account's flat entry, holding root.
func (m *stateModel) writeAccount(owner, root stacktrie.Hash) {
	a := state.Account{Nonce: m.accounts[owner].nonce, Root: root, CodeHash: state.EmptyCodeHash}
	m.accountTable.Put(owner[:], a.AppendSlimRLP(nil))
}

func (m *stateModel) storageRoot(a *modelAccount) stacktrie.Hash {
	t := reftrie.New()
	for slot, v := range a.slots {
		t.Put(slot[:], v)
	}
	return t.Root()
}

// oracleRoot is the reference trie's state root over the model, each
// account's leaf written here apart from the state package: the RLP list
// of the nonce, a zero balance, the storage root and the empty code hash.
func (m *stateModel) oracleRoot() stacktrie.Hash {
	t := reftrie.New()
	for owner, a := range m.accounts {
		var nonce [8]byte
		binary.BigEndian.PutUint64(nonce[:], a.nonce)
		n := bytes.TrimLeft(nonce[:], "\x00")
		var fields []byte
		switch {
		case len(n) == 1 && n[0] < 0x80:
			fields = append(fields, n[0])
		default:
			fields = append(append(fields, 0x80+byte(len(n))), n...)
		}
		root := m.storageRoot(a)
		fields = append(fields, 0x80) // zero balance
		fields = append(append(fields, 0xa0), root[:]...)
		fields = append(append(fields, 0xa0), state.EmptyCodeHash[:]...)
		t.Put(owner[:], append([]byte{0xf8, byte(len(fields))}, fields...))
	}
	return t.Root()
}

func (m *stateModel) checkStorageRoots(t *testing.T) {
	for _, owner := range slices.SortedFunc(maps.Keys(m.accounts), func(a, b stacktrie.Hash) int { return bytes.Compare(a[:], b[:]) }) {
		v, _ := m.accountTable.Get(owner[:])
		var a state.Account
		if err := a.DecodeRLP(v); err != nil {
			t.Fatal(err)
		}
		if want := m.storageRoot(m.accounts[owner]); a.Root != want {
			t.Fatalf("account %x holds storage root %x, reference %x", owner, a.Root, want)
		}
	}
}

func (m *stateModel) checkBranches(t *testing.T, root stacktrie.Hash) {
	accounts, storage := map[string][]byte{}, map[string][]byte{}
	built, err := state.NewUpdater().Build(state.Tables{Accounts: m.accountTable, Storage: m.storageTable}, state.Store{
		AccountBranch: func(path, branch []byte) { accounts[string(path)] = bytes.Clone(branch) },
		StorageBranch: func(key, branch []byte) { storage[string(key)] = bytes.Clone(branch) },
	})
	if err != nil || built != root {
		t.Fatalf("Build gives %x (%v), Root %x", built, err, root)
	}
	for name, want := range map[string]struct {
		table *incremental.Table
		built map[string][]byte
	}{"account": {m.accountBranches, accounts}, "storage": {m.storageBranches, storage}} {
		if want.table.Len() != len(want.built) {
			t.Fatalf("%d %s branches stored, Build gives %d", want.table.Len(), name, len(want.built))
		}
		for key, record := range want.table.All() {
			if !bytes.Equal(want.built[string(key)], record) {
				t.Fatalf("%s branch at %x: stored %x, Build gives %x", name, key, record, want.built[string(key)])
			}
		}
	}
}

package state_test

import (
	"bytes"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/incremental"
	"github.com/stacktrie/stacktrie/internal/testgen"
	"github.com/stacktrie/stacktrie/state"
)

// chainState is a node's tables for Updater: the flat state, in a model and
// in tables, and the stored branch records.
type chainState struct {
	accounts map[stacktrie.Hash]*modelAccount
	// The tables as Updater reads them; accountsTable holds the accounts
	// as last written, with storage roots that a block may have made stale.
	accountsTable, storageTable  *incremental.Table
	accountBranches, storageTree *incremental.Table
}

type modelAccount struct {
	account state.Account
	slim    bool
	slots   map[stacktrie.Hash][]byte
}

func (c *chainState) writeAccount(h stacktrie.Hash) {
	m, ok := c.accounts[h]
	if !ok {
		c.accountsTable.Delete(h[:])
		return
	}
	c.accountsTable.Put(h[:], expectedRLP(m.account, m.slim))
}

func (c *chainState) tables() state.Tables {
	return state.Tables{Accounts: c.accountsTable, Storage: c.storageTable, AccountBranches: c.accountBranches, StorageBranches: c.storageTree}
}

// store writes into the branch tables, and storage roots into the model's
// accounts and the accounts table, as a node updates its snapshot.
func (c *chainState) store(roots map[stacktrie.Hash]stacktrie.Hash) state.Store {
	return state.Store{
		AccountBranch: c.accountBranches.Write,
		StorageBranch: c.storageTree.Write,
		StorageRoot: func(owner, root stacktrie.Hash) {
			if roots != nil {
				roots[owner] = root
			}
			if m, ok := c.accounts[owner]; ok {
				m.account.Root = root
				c.writeAccount(owner)
			}
		},
	}
}

// flat is the model in the form the oracle takes.
func (c *chainState) flat() flatState {
	var s flatState
	for _, h := range slices.SortedFunc(maps.Keys(c.accounts), func(a, b stacktrie.Hash) int { return bytes.Compare(a[:], b[:]) }) {
		m := c.accounts[h]
		a := flatAccount{hash: h, account: m.account}
		for _, k := range slices.SortedFunc(maps.Keys(m.slots), func(a, b stacktrie.Hash) int { return bytes.Compare(a[:], b[:]) }) {
			a.slots = append(a.slots, flatSlot{hash: k, value: m.slots[k]})
		}
		s = append(s, a)
	}
	return s
}

func newChainState(r *rand.Rand, shape stateShape) *chainState {
	c := &chainState{
		accounts:      map[stacktrie.Hash]*modelAccount{},
		accountsTable: &incremental.Table{}, storageTable: &incremental.Table{},
		accountBranches: &incremental.Table{}, storageTree: &incremental.Table{},
	}
	for _, a := range shape.generate(r) {
		m := &modelAccount{account: a.account, slim: a.slim, slots: map[stacktrie.Hash][]byte{}}
		for _, sl := range a.slots {
			m.slots[sl.hash] = sl.value
			c.storageTable.Put(slices.Concat(a.hash[:], sl.hash[:]), sl.value)
		}
		c.accounts[a.hash] = m
		c.writeAccount(a.hash)
	}
	return c
}

// block applies random changes to the model and the flat tables and
// returns the changed keys. Accounts whose slots change keep their stored
// storage root, now stale, in the accounts table: Root must work it out.
func (c *chainState) block(r *rand.Rand, size int) state.Changes {
	changedAccounts := map[stacktrie.Hash]bool{}
	changedSlots := map[string]bool{}
	owners := slices.Collect(maps.Keys(c.accounts))
	slices.SortFunc(owners, func(a, b stacktrie.Hash) int { return bytes.Compare(a[:], b[:]) })
	pick := func() (stacktrie.Hash, *modelAccount, bool) {
		if len(owners) == 0 {
			return stacktrie.Hash{}, nil, false
		}
		h := owners[r.IntN(len(owners))]
		m, ok := c.accounts[h]
		return h, m, ok
	}
	setSlot := func(h stacktrie.Hash, m *modelAccount, k stacktrie.Hash, v []byte) {
		testgen.SetSlot(c.storageTable, changedSlots, m.slots, h, k, v)
	}
	for range size {
		switch op := r.IntN(20); {
		case op < 8: // a slot written, new or not
			if h, m, ok := pick(); ok {
				k := stacktrie.Hash(testgen.Value(r, 32))
				if len(m.slots) > 0 && r.IntN(2) == 0 {
					k = slices.Collect(maps.Keys(m.slots))[r.IntN(len(m.slots))]
				}
				setSlot(h, m, k, drawSlotValue(r, false))
			}
		case op < 11: // a slot cleared, or one that was never there
			if h, m, ok := pick(); ok {
				k := stacktrie.Hash(testgen.Value(r, 32))
				if len(m.slots) > 0 && r.IntN(4) != 0 {
					k = slices.Collect(maps.Keys(m.slots))[r.IntN(len(m.slots))]
				}
				setSlot(h, m, k, nil)
			}
		case op < 12: // every slot of an account cleared
			if h, m, ok := pick(); ok {
				for k := range m.slots {
					setSlot(h, m, k, nil)
				}
			}
		case op < 15: // an account's nonce or balance changed
			if h, m, ok := pick(); ok {
				m.account.Nonce++
				m.account.Balance.SetUint64(r.Uint64())
				c.writeAccount(h)
				changedAccounts[h] = true
			}
		case op < 17: // a new account, with some storage
			h := stacktrie.Hash(testgen.Value(r, 32))
			if _, ok := c.accounts[h]; ok {
				continue
			}
			m := &modelAccount{account: randomAccount(r), slim: r.IntN(2) == 0, slots: map[stacktrie.Hash][]byte{}}
			m.account.Root = stacktrie.EmptyRoot
			c.accounts[h] = m
			owners = append(owners, h)
			for range r.IntN(40) {
				setSlot(h, m, stacktrie.Hash(testgen.Value(r, 32)), drawSlotValue(r, false))
			}
			c.writeAccount(h)
			changedAccounts[h] = true
		default: // an account deleted with its storage
			if h, m, ok := pick(); ok {
				for k := range m.slots {
					setSlot(h, m, k, nil)
				}
				delete(c.accounts, h)
				c.writeAccount(h)
				changedAccounts[h] = true
			}
		}
	}
	var ch state.Changes
	for h := range changedAccounts {
		ch.Accounts = append(ch.Accounts, bytes.Clone(h[:]))
	}
	for k := range changedSlots {
		ch.Slots = append(ch.Slots, []byte(k))
	}
	slices.SortFunc(ch.Accounts, bytes.Compare)
	slices.SortFunc(ch.Slots, bytes.Compare)
	return ch
}

// records returns a table's entries.
func records(t *incremental.Table) map[string]string {
	m := map[string]string{}
	for k, v := range t.All() {
		m[string(k)] = string(v)
	}
	return m
}

// TestUpdaterBlocks runs blocks of random changes through Updater.Root and
// checks each root against the reference trie's root of the whole state,
// the storage roots it reports against the reference trie's, and the
// branch tables it keeps against what Build writes from scratch.
func TestUpdaterBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(testgen.Seed(t), 21))
	shapes := []stateShape{
		stateShapes[2], // few accounts
		{name: "small contracts", accounts: 300, slots: few(8)},
		{name: "one large contract", accounts: 100, slots: func(r *rand.Rand, i int) int {
			if i == 50 {
				return 3000
			}
			return r.IntN(4)
		}},
	}
	for _, shape := range shapes {
		t.Run(shape.name, func(t *testing.T) {
			c := newChainState(r, shape)
			u := state.NewUpdater()
			// The first computation fixes the storage roots some generated
			// accounts hold wrongly.
			root, err := u.Build(c.tables(), c.store(nil))
			require.NoError(t, err)
			require.Equal(t, oracleState(c.flat()).root, root, "Build")
			blocks := 25
			if testing.Short() {
				blocks = 8
			}
			for b := range blocks {
				changes := c.block(r, 1+r.IntN(60))
				reported := map[stacktrie.Hash]stacktrie.Hash{}
				root, err := u.Root(c.tables(), changes, c.store(reported))
				require.NoError(t, err, "block %d", b)
				want := oracleState(c.flat())
				require.Equal(t, want.root, root, "block %d", b)
				for i, a := range c.flat() {
					require.Equal(t, want.storage[i].root, a.account.Root, "block %d: storage root of %s", b, a.hash)
				}
				for owner := range reported {
					assert.True(t, slices.ContainsFunc(changes.Slots, func(k []byte) bool { return bytes.HasPrefix(k, owner[:]) }),
						"block %d: a storage root reported for %s, whose slots did not change", b, owner)
				}
				// The stored records are what Build writes over the new state.
				fresh := &chainState{accounts: c.accounts, accountsTable: c.accountsTable, storageTable: c.storageTable,
					accountBranches: &incremental.Table{}, storageTree: &incremental.Table{}}
				built, err := state.NewUpdater().Build(fresh.tables(), state.Store{AccountBranch: fresh.accountBranches.Write, StorageBranch: fresh.storageTree.Write})
				require.NoError(t, err)
				require.Equal(t, root, built, "block %d: Build over the new state", b)
				require.Equal(t, records(fresh.accountBranches), records(c.accountBranches), "block %d: account trie records", b)
				require.Equal(t, records(fresh.storageTree), records(c.storageTree), "block %d: storage trie records", b)
			}
		})
	}
}

// TestUpdaterRefusals: a call Root refuses stores nothing.
func TestUpdaterRefusals(t *testing.T) {
	r := rand.New(rand.NewPCG(testgen.Seed(t), 22))
	c := newChainState(r, stateShapes[4])
	u := state.NewUpdater()
	_, err := u.Build(c.tables(), c.store(nil))
	require.NoError(t, err)
	changes := c.block(r, 30)
	// An account the block changed, so that Root reads it.
	var h stacktrie.Hash
	for _, k := range changes.Accounts {
		if _, ok := c.accounts[stacktrie.Hash(k)]; ok {
			h = stacktrie.Hash(k)
		}
	}
	require.NotZero(t, h, "the block changes no account that stays")
	stored := 0
	counting := state.Store{
		AccountBranch: func(_, _ []byte) { stored++ },
		StorageBranch: func(_, _ []byte) { stored++ },
		StorageRoot:   func(_, _ stacktrie.Hash) { stored++ },
	}
	tests := []struct {
		name    string
		changes state.Changes
		damage  func() (undo func())
		want    error
	}{
		{"an account key of 31 bytes", state.Changes{Accounts: [][]byte{h[:31]}}, nil, incremental.ErrKeyLength},
		{"a slot key of 32 bytes", state.Changes{Slots: [][]byte{h[:]}}, nil, incremental.ErrKeyLength},
		{"slots out of order", state.Changes{Slots: [][]byte{slices.Concat(h[:], h[:]), slices.Concat(h[:], make([]byte, 32))}}, nil, incremental.ErrKeyOrder},
		{"an account that does not decode", changes, func() func() {
			old, _ := c.accountsTable.Get(h[:])
			old = bytes.Clone(old)
			c.accountsTable.Put(h[:], []byte{0xc1, 0x80})
			return func() { c.accountsTable.Put(h[:], old) }
		}, state.ErrAccount},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.damage != nil {
				defer tt.damage()()
			}
			stored = 0
			_, err := u.Root(c.tables(), tt.changes, counting)
			assert.ErrorIs(t, err, tt.want)
			assert.Zero(t, stored, "stored after a refusal")
		})
	}
	// Refused calls left nothing behind: the block still gives the oracle's root.
	root, err := u.Root(c.tables(), changes, c.store(nil))
	require.NoError(t, err)
	assert.Equal(t, oracleState(c.flat()).root, root)
}

// TestUpdaterBuildRefusals: Build reports an account key of the wrong
// length, an account that does not decode and accounts out of order, and
// the Updater builds the sound tables after them.
func TestUpdaterBuildRefusals(t *testing.T) {
	r := rand.New(rand.NewPCG(testgen.Seed(t), 23))
	c := newChainState(r, stateShapes[4])
	u := state.NewUpdater()
	var h stacktrie.Hash
	for h = range c.accounts {
		break
	}
	good, _ := c.accountsTable.Get(h[:])
	tests := []struct {
		name     string
		accounts incremental.Cursor
		want     error
	}{
		{"an account key of 31 bytes", &listed{keys: [][]byte{h[:31]}, value: good}, incremental.ErrKeyLength},
		{"an account that does not decode", &listed{keys: [][]byte{h[:]}, value: []byte{0xc1, 0x80}}, state.ErrAccount},
		{"accounts out of order", &listed{keys: [][]byte{h[:], make([]byte, 32)}, value: good}, incremental.ErrKeyOrder},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tables := c.tables()
			tables.Accounts = tt.accounts
			_, err := u.Build(tables, state.Store{})
			assert.ErrorIs(t, err, tt.want)
		})
	}
	root, err := u.Build(c.tables(), c.store(nil))
	require.NoError(t, err)
	assert.Equal(t, oracleState(c.flat()).root, root)
}

// listed is a cursor over keys in the order given, sorted or not, each
// with value.
type listed struct {
	keys  [][]byte
	value []byte
	at    int
}

func (b *listed) Seek([]byte) ([]byte, []byte, bool) { b.at = 0; return b.current() }
func (b *listed) Next() ([]byte, []byte, bool)       { b.at++; return b.current() }
func (b *listed) current() ([]byte, []byte, bool) {
	if b.at >= len(b.keys) {
		return nil, nil, false
	}
	return b.keys[b.at], b.value, true
}

// TestUpdaterNilTables: nil cursors are empty tables, whose root is the
// empty trie's, and a block over them inserts.
func TestUpdaterNilTables(t *testing.T) {
	u := state.NewUpdater()
	root, err := u.Build(state.Tables{}, state.Store{})
	require.NoError(t, err)
	assert.Equal(t, stacktrie.EmptyRoot, root)
	root, err = u.Root(state.Tables{}, state.Changes{Accounts: [][]byte{make([]byte, 32)}, Slots: [][]byte{make([]byte, 64)}}, state.Store{})
	require.NoError(t, err)
	assert.Equal(t, stacktrie.EmptyRoot, root, "every changed key deleted")
}

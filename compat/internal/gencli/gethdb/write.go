package main

import (
	"fmt"
	"math/big"
	"os"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/state/snapshot"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/ethereum/go-ethereum/triedb/hashdb"
	"github.com/ethereum/go-ethereum/triedb/pathdb"
)

// summary is what gethdb prints: go-ethereum's state root and the counts,
// for the tests and the benchmark to compare with.
type summary struct {
	Scheme      string      `json:"scheme"`
	Root        common.Hash `json:"root"`
	Accounts    int         `json:"accounts"`
	Slots       int         `json:"slots"`
	Contracts   int         `json:"contracts"`
	BigContract common.Hash `json:"bigContract"` // the hashed address of the largest contract
	BigSlots    int         `json:"bigSlots"`
	Blocks      int         `json:"blocks"`
}

// stateWriter commits blocks of state changes in one scheme and flushes
// each to disk, flat state included.
type stateWriter struct {
	db    ethdb.Database
	tdb   *triedb.Database
	snaps *snapshot.Tree // the hash scheme's flat state; pathdb keeps its own
	sdb   state.Database
	root  common.Hash
	block uint64
}

// writeState writes the planned state into a new database in datadir.
func writeState(datadir string, spec *stateSpec) (*summary, error) {
	if _, err := os.Stat(chaindata(datadir)); err == nil {
		return nil, fmt.Errorf("%s exists already: give a new data directory", chaindata(datadir))
	}
	db, err := openDatabase(datadir)
	if err != nil {
		return nil, err
	}
	w, err := newStateWriter(db, spec.scheme)
	if err != nil {
		db.Close()
		return nil, err
	}
	accounts := spec.plan()
	for _, block := range blocks(accounts, spec.blockItems) {
		if err := w.commit(block); err != nil {
			w.close(false)
			return nil, err
		}
	}
	if err := w.close(spec.compact); err != nil {
		return nil, err
	}
	sum := &summary{Scheme: spec.scheme, Root: w.root, Accounts: len(accounts), Blocks: int(w.block),
		BigContract: crypto.Keccak256Hash(accounts[0].address[:]), BigSlots: accounts[0].slots}
	for _, a := range accounts {
		sum.Slots += a.slots
		if a.code != nil {
			sum.Contracts++
		}
	}
	return sum, nil
}

func newStateWriter(db ethdb.Database, scheme string) (*stateWriter, error) {
	w := &stateWriter{db: db, root: types.EmptyRootHash}
	codes := state.NewCodeDB(db)
	if scheme == "path" {
		config := *pathdb.Defaults
		config.NoAsyncGeneration, config.NoAsyncFlush = true, true
		w.tdb = triedb.NewDatabase(db, &triedb.Config{PathDB: &config})
		w.sdb = state.NewDatabase(w.tdb, codes)
		return w, nil
	}
	w.tdb = triedb.NewDatabase(db, &triedb.Config{HashDB: hashdb.Defaults})
	snaps, err := snapshot.New(snapshot.Config{CacheSize: 16}, db, w.tdb, types.EmptyRootHash)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	w.snaps = snaps
	w.sdb = state.NewMPTDatabase(w.tdb, codes).WithSnapshot(snaps)
	return w, nil
}

// blockWork is one account's part of a block: the account itself, if the
// block creates it, and a run of its slots.
type blockWork struct {
	account *accountPlan
	create  bool
	slots   int
}

// blocks packs the accounts into blocks of at most items accounts and slots,
// an account with all its slots in one block where they fit, its slots
// spread over the following blocks where they do not.
func blocks(accounts []*accountPlan, items int) [][]blockWork {
	var out [][]blockWork
	var cur []blockWork
	size := 0
	for _, a := range accounts {
		create := true
		for left := a.slots; create || left > 0; {
			if size >= items {
				out, cur, size = append(out, cur), nil, 0
			}
			n := min(left, items-size-1)
			if !create {
				n = min(left, items-size)
			}
			n = max(n, 0)
			cur = append(cur, blockWork{account: a, create: create, slots: n})
			size += n + 1
			left -= n
			create = false
		}
	}
	return append(out, cur)
}

// commit writes one block's changes, commits them and flushes them to disk.
func (w *stateWriter) commit(work []blockWork) error {
	st, err := state.New(w.root, w.sdb)
	if err != nil {
		return err
	}
	for _, b := range work {
		a := b.account
		if b.create {
			st.SetNonce(a.address, a.nonce, tracing.NonceChangeUnspecified)
			st.SetBalance(a.address, a.balance, tracing.BalanceChangeUnspecified)
			if a.code != nil {
				st.SetCode(a.address, a.code, tracing.CodeChangeUnspecified)
			}
		}
		for range b.slots {
			key, value := a.nextSlot()
			st.SetState(a.address, key, value)
		}
	}
	w.block++
	// Cancun's rules: empty accounts are deleted.
	rules := params.MainnetChainConfig.Rules(big.NewInt(19_426_587), true, 1_710_338_135)
	root, err := st.Commit(rules, w.block)
	if err != nil {
		return err
	}
	if err := w.tdb.Commit(root, false); err != nil {
		return err
	}
	if w.snaps != nil {
		if err := w.snaps.Cap(root, 0); err != nil {
			return err
		}
	}
	w.root = root
	return nil
}

// close ends the trie database, which flushes what it holds, compacts the
// key-value store if asked, and closes it and the freezer.
func (w *stateWriter) close(compact bool) error {
	if w.snaps != nil {
		w.snaps.Release()
	}
	err := w.tdb.Close()
	if err == nil && compact {
		err = w.db.Compact(nil, nil)
	}
	if cerr := w.db.Close(); err == nil {
		err = cerr
	}
	return err
}

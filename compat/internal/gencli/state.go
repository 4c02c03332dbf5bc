package main

import (
	"bytes"
	"encoding/json"
	"math/big"
	"math/rand/v2"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/ethereum/go-ethereum/triedb/hashdb"

	"github.com/stacktrie/stacktrie/compat/internal/gencli/balances"
	"github.com/stacktrie/stacktrie/compat/internal/trietest"
)

// stateAccounts is the number of accounts in the sample state.
const stateAccounts = 40

// writeState builds a state with go-ethereum's state package, commits it and
// writes it with the dumpers that `geth dump` and `geth dump --iterative`
// use. The trie database records preimages, as a node run with
// --cache.preimages does, so the dumps hold addresses and storage slot keys;
// one more dump is read through a trie database without them.
//
// The accounts vary every field: balances of a few bits and of more than 64
// (up to 2^128), zero balances with nonzero nonces, code on every fifth
// account, and storage on every third, one account with 150 slots.
func writeState(o *output) error {
	rng := rand.New(rand.NewPCG(40, 4))
	db := rawdb.NewMemoryDatabase()
	tdb := triedb.NewDatabase(db, &triedb.Config{Preimages: true, HashDB: hashdb.Defaults})
	sdb := state.NewDatabase(tdb, state.NewCodeDB(db))
	st, err := state.New(types.EmptyRootHash, sdb)
	if err != nil {
		return err
	}
	slots := 0
	for i := range stateAccounts {
		addr := common.BytesToAddress(trietest.RandomBytes(rng, 20))
		bal, nonce := balances.Of(rng, i), uint64(i%7)
		if bal.IsZero() && nonce == 0 {
			nonce = 1 // an empty account would be deleted
		}
		st.SetNonce(addr, nonce, tracing.NonceChangeUnspecified)
		st.SetBalance(addr, bal, tracing.BalanceChangeUnspecified)
		if i%5 == 0 {
			st.SetCode(addr, trietest.RandomBytes(rng, 1+rng.IntN(200)), tracing.CodeChangeUnspecified)
		}
		n := 0
		switch {
		case i == 7:
			n = 150
		case i%3 == 0:
			n = 1 + rng.IntN(12)
		}
		for j := range n {
			key := common.BigToHash(big.NewInt(int64(j))) // solidity's first slots
			if j%2 == 1 {
				key = common.BytesToHash(trietest.RandomBytes(rng, 32)) // a mapping's slot
			}
			value := common.BytesToHash(trietest.RandomBytes(rng, 1+rng.IntN(32)))
			value[31] |= 1 // never zero, which would delete the slot
			st.SetState(addr, key, value)
		}
		slots += n
	}
	// Cancun's rules: empty accounts are deleted, storage may be wiped.
	rules := params.MainnetChainConfig.Rules(big.NewInt(19_426_587), true, 1_710_338_135)
	root, err := st.Commit(rules, 1)
	if err != nil {
		return err
	}
	if err := tdb.Commit(root, false); err != nil {
		return err
	}
	want := map[string]any{"stateRoot": root, "dumpRoot": root, "match": true, "accounts": stateAccounts, "slots": slots}
	if err := writeDumps(o, root, sdb, want); err != nil {
		return err
	}
	// The same state read without preimages: geth files each account under
	// its hashed address and leaves out every storage slot.
	bare := triedb.NewDatabase(db, &triedb.Config{HashDB: hashdb.Defaults})
	return writeBareDump(o, root, state.NewDatabase(bare, state.NewCodeDB(db)))
}

// writeDumps writes the state at root as geth dump writes it, whole and
// with --iterative, and the iterative lines shuffled, with the cases that
// expect want of each.
func writeDumps(o *output, root common.Hash, sdb state.Database, want map[string]any) error {
	dumped, err := state.New(root, sdb)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	dumped.IterativeDump(&state.DumpConfig{}, json.NewEncoder(&buf))
	if err := o.write("state/dump.jsonl", buf.Bytes()); err != nil {
		return err
	}
	o.addCase("state", "state/dump.jsonl", nil, want)

	lines := bytes.SplitAfter(buf.Bytes(), []byte("\n"))
	rand.New(rand.NewPCG(41, 4)).Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	if err := o.write("state/unsorted.jsonl", bytes.Join(lines, nil)); err != nil {
		return err
	}
	o.addCase("state", "state/unsorted.jsonl", []string{"--sort"}, want)

	if err := o.write("state/dump.json", append(dumped.Dump(&state.DumpConfig{}), '\n')); err != nil {
		return err
	}
	o.addCase("state", "state/dump.json", nil, want)
	return nil
}

// writeBareDump writes the whole-state dump of a database that keeps no
// preimages.
func writeBareDump(o *output, root common.Hash, sdb state.Database) error {
	dumped, err := state.New(root, sdb)
	if err != nil {
		return err
	}
	raw := dumped.RawDump(&state.DumpConfig{})
	withStorage := 0
	for _, a := range raw.Accounts {
		if !bytes.Equal(a.Root, types.EmptyRootHash[:]) {
			withStorage++
		}
	}
	if err := o.write("state/nopreimages.json", append(dumped.Dump(&state.DumpConfig{}), '\n')); err != nil {
		return err
	}
	o.addCase("state", "state/nopreimages.json", nil, map[string]any{
		"stateRoot": root, "dumpRoot": root, "match": true, "accounts": stateAccounts, "slots": 0,
		"storageRootsUnchecked": withStorage,
	})
	return nil
}

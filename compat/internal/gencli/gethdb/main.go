// Command gethdb writes a go-ethereum node database with go-ethereum's own
// state code, for cmd/trieroot's tests and for the benchmark of trieroot geth
// against go-ethereum's VerifyState. Nothing it writes is committed: tests
// run it at test time,
//
//	go -C compat/internal/gencli run ./gethdb [flags] DATADIR
//
// and it writes DATADIR/geth/chaindata as geth lays it out (pebble, with the
// freezer under chaindata/ancient): N accounts, one contract in eight with
// storage of sizes spread over orders of magnitude, and one contract that
// holds a given share of all slots. The state is written over several
// blocks, each committed with the path scheme (or the hash scheme with
// -scheme hash, and its snapshot), the flat state is flushed to disk and the
// database closed cleanly. The same flags and seed write the same state.
// It prints one JSON object: go-ethereum's state root and the counts.
//
//	go -C compat/internal/gencli run ./gethdb -hold DATADIR
//
// opens an existing database as geth does, locking it, prints "holding" once
// it has, and keeps it open until its standard input ends: a running node,
// for the test of a locked database.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
)

func main() {
	var spec stateSpec
	flag.IntVar(&spec.accounts, "accounts", 300, "accounts in the state")
	flag.IntVar(&spec.slots, "slots", 3000, "storage slots in the state, over all contracts")
	flag.Float64Var(&spec.bigShare, "big", 0.5, "share of the slots held by the largest contract")
	flag.Uint64Var(&spec.seed, "seed", 1, "seed of the state's contents")
	flag.StringVar(&spec.scheme, "scheme", "path", "trie scheme: path or hash")
	flag.IntVar(&spec.blockItems, "block", 100_000, "accounts and slots written per block at most")
	flag.BoolVar(&spec.compact, "compact", false, "compact the database before closing it, so that tables hold what the log would, as geth db compact does")
	hold := flag.Bool("hold", false, "hold an existing database open until standard input ends")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: gethdb [flags] DATADIR | gethdb -hold DATADIR")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	datadir := flag.Arg(0)
	var err error
	if *hold {
		err = holdOpen(datadir, os.Stdin, os.Stdout)
	} else {
		err = generate(datadir, &spec)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gethdb:", err)
		os.Exit(1)
	}
}

// generate writes the state and prints its summary.
func generate(datadir string, spec *stateSpec) error {
	if err := spec.check(); err != nil {
		return err
	}
	sum, err := writeState(datadir, spec)
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(sum)
}

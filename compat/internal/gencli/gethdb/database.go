package main

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"

	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/ethdb/pebble"
)

// chaindata is where geth keeps its key-value database in a data directory.
func chaindata(datadir string) string {
	return filepath.Join(datadir, "geth", "chaindata")
}

// openDatabase opens the node database of datadir as geth opens it: pebble
// for the key-value store, and the freezer beside it under ancient, where the
// path scheme keeps its state history.
func openDatabase(datadir string) (ethdb.Database, error) {
	dir := chaindata(datadir)
	kv, err := pebble.New(dir, 64, 64, "", false)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	db, err := rawdb.Open(kv, rawdb.OpenOptions{Ancient: filepath.Join(dir, "ancient")})
	if err != nil {
		kv.Close()
		return nil, fmt.Errorf("open the freezer of %s: %w", dir, err)
	}
	return db, nil
}

// holdOpen opens the database, which locks it as a running node does, says
// so on out, and closes it when in ends.
func holdOpen(datadir string, in io.Reader, out io.Writer) error {
	db, err := openDatabase(datadir)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := fmt.Fprintln(out, "holding"); err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, bufio.NewReader(in))
	return err
}

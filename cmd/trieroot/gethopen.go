package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cockroachdb/pebble"
	"github.com/cockroachdb/pebble/vfs"
)

// errInUse says that a running node holds the database: pebble allows one
// process at a time, and geth keeps it locked while it runs.
var errInUse = errors.New("database is in use by another process (is geth running?)")

// gethDB is a go-ethereum key-value database opened read-only.
type gethDB struct {
	dir string // the chaindata folder
	db  *pebble.DB
}

// chaindataDir finds the pebble folder: DATADIR/geth/chaindata, where geth
// keeps it in its data directory, or the folder given itself.
func chaindataDir(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !info.IsDir() {
		return "", fmt.Errorf("%s: not a directory: give geth's data directory or its chaindata", path)
	}
	nested := filepath.Join(path, "geth", "chaindata")
	if info, err := os.Stat(nested); err == nil && info.IsDir() {
		return nested, nil
	}
	return path, nil
}

// openGethDB opens the database of the data directory or chaindata folder at
// path, read-only, refusing one that another process holds.
func openGethDB(path string) (*gethDB, error) {
	dir, err := chaindataDir(path)
	if err != nil {
		return nil, err
	}
	if err := checkPebble(dir, path); err != nil {
		return nil, err
	}
	if pid, err := lockHolder(filepath.Join(dir, "LOCK")); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	} else if pid != 0 {
		return nil, fmt.Errorf("%s: %w: process %d holds its lock", dir, errInUse, pid)
	}
	db, err := openPebble(dir)
	if err != nil {
		if isLockConflict(err) {
			return nil, fmt.Errorf("%s: %w", dir, errInUse)
		}
		return nil, fmt.Errorf("%s: cannot open the database: %v", dir, oneLine(err))
	}
	return &gethDB{dir: dir, db: db}, nil
}

// checkPebble says clearly why dir holds no pebble database, if it does not.
func checkPebble(dir, given string) error {
	desc, err := pebble.Peek(dir, vfs.Default)
	if err != nil {
		return fmt.Errorf("%s: not a pebble database: %v", dir, oneLine(err))
	}
	if desc.Exists {
		return nil
	}
	if manifests, _ := filepath.Glob(filepath.Join(dir, "MANIFEST-*")); len(manifests) > 0 {
		return fmt.Errorf("%s: pebble's files but no format marker naming the current manifest: a damaged database?", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "CURRENT")); err == nil {
		return fmt.Errorf("%s: no pebble database (a CURRENT file but no format marker: LevelDB, or pebble from before geth 1.13?); trieroot geth reads pebble only", dir)
	}
	where := dir
	if dir == given {
		where = fmt.Sprintf("%s or %s", filepath.Join(given, "geth", "chaindata"), given)
	}
	return fmt.Errorf("no pebble database in %s: give geth's data directory or its chaindata", where)
}

// openPebble opens the database read-only. Pebble reports some damage by
// calling its logger's Fatalf, or by panicking; both become errors here.
func openPebble(dir string) (db *pebble.DB, err error) {
	defer recoverPebble(&err)
	return pebble.Open(dir, &pebble.Options{ReadOnly: true, Logger: pebbleLogger{}})
}

// pebbleLogger keeps pebble quiet, and turns its fatal errors into panics
// that recoverPebble turns into errors, where pebble's own logger would end
// the process.
type pebbleLogger struct{}

func (pebbleLogger) Infof(string, ...any) {}

func (pebbleLogger) Fatalf(format string, args ...any) {
	panic(pebbleFatal{fmt.Errorf(format, args...)})
}

type pebbleFatal struct{ err error }

// recoverPebble turns a panic of pebble into *err.
func recoverPebble(err *error) {
	switch r := recover().(type) {
	case nil:
	case pebbleFatal:
		*err = r.err
	default:
		*err = fmt.Errorf("pebble failed: %v", r)
	}
}

// isLockConflict reports whether pebble failed to take the database's lock
// because someone holds it: another process, or this one.
func isLockConflict(err error) bool {
	return isLockBusy(err) || strings.Contains(err.Error(), "lock held by current process")
}

// oneLine keeps the first line of an error, as trieroot prints one line.
func oneLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// Close closes the database.
func (g *gethDB) Close() error {
	return g.db.Close()
}

// get returns a copy of the value at key, or nil if there is none.
func (g *gethDB) get(key []byte) (value []byte, err error) {
	defer recoverPebble(&err)
	v, closer, err := g.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the database: %w", err)
	}
	defer closer.Close()
	return append([]byte{}, v...), nil
}

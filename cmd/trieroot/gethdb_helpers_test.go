package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/cockroachdb/pebble"
	"github.com/stretchr/testify/require"
)

// gethSummary is what compat/internal/gencli/gethdb prints of a database it
// wrote: go-ethereum's state root and the counts.
type gethSummary struct {
	Scheme      string   `json:"scheme"`
	Root        jsonHash `json:"root"`
	Accounts    uint64   `json:"accounts"`
	Slots       uint64   `json:"slots"`
	BigContract jsonHash `json:"bigContract"`
	BigSlots    uint64   `json:"bigSlots"`
}

// gethDBs builds the generator once per test process and keeps each
// database it writes, so that tests copy one rather than write it again.
var gethDBs struct {
	sync.Mutex
	dir       string // the process's folder, removed by TestMain
	generator string // the gethdb binary
	made      map[string]*gethTemplate
}

type gethTemplate struct {
	datadir string
	summary gethSummary
}

func TestMain(m *testing.M) {
	code := m.Run()
	if gethDBs.dir != "" {
		os.RemoveAll(gethDBs.dir)
	}
	os.Exit(code)
}

// gethGenerator builds compat/internal/gencli/gethdb, which writes
// databases with go-ethereum's own code.
func gethGenerator(t *testing.T) string {
	t.Helper()
	if gethDBs.dir == "" {
		dir, err := os.MkdirTemp("", "trieroot-gethdb-")
		require.NoError(t, err)
		gethDBs.dir, gethDBs.made = dir, map[string]*gethTemplate{}
	}
	if gethDBs.generator == "" {
		bin := filepath.Join(gethDBs.dir, "gethdb")
		gencli, err := filepath.Abs(filepath.Join("..", "..", "compat", "internal", "gencli"))
		require.NoError(t, err)
		out, err := exec.Command("go", "-C", gencli, "build", "-o", bin, "./gethdb").CombinedOutput()
		require.NoError(t, err, "building gethdb: %s", out)
		gethDBs.generator = bin
	}
	return gethDBs.generator
}

// gethDatabase returns a fresh copy of the database that gethdb writes with
// args, and go-ethereum's summary of it.
func gethDatabase(t *testing.T, args ...string) (string, gethSummary) {
	t.Helper()
	gethDBs.Lock()
	defer gethDBs.Unlock()
	gen := gethGenerator(t)
	key := string(must(json.Marshal(args)))
	tmpl := gethDBs.made[key]
	if tmpl == nil {
		datadir, err := os.MkdirTemp(gethDBs.dir, "db-")
		require.NoError(t, err)
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(gen, append(args, datadir)...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		require.NoError(t, cmd.Run(), "gethdb %v: %s", args, stderr.String())
		tmpl = &gethTemplate{datadir: datadir}
		require.NoError(t, json.Unmarshal(stdout.Bytes(), &tmpl.summary), stdout.String())
		gethDBs.made[key] = tmpl
	}
	datadir := filepath.Join(t.TempDir(), "datadir")
	copyDir(t, tmpl.datadir, datadir)
	return datadir, tmpl.summary
}

// UnmarshalText reads the hashes of gethdb's summary and trieroot's --json.
func (h *jsonHash) UnmarshalText(text []byte) error {
	b, err := decodeFixedHex(string(text), 32)
	if err != nil {
		return err
	}
	*h = jsonHash(b)
	return nil
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// copyDir copies the files under src to dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	require.NoError(t, err)
}

// editDatabase opens the database of datadir for writing, as pebble, and
// lets edit change it.
func editDatabase(t *testing.T, datadir string, edit func(db *pebble.DB)) {
	t.Helper()
	db, err := pebble.Open(filepath.Join(datadir, "geth", "chaindata"), &pebble.Options{Logger: pebbleLogger{}})
	require.NoError(t, err)
	edit(db)
	require.NoError(t, db.Close())
}

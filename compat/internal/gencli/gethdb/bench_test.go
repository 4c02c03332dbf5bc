package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/ethdb/pebble"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/ethereum/go-ethereum/triedb/pathdb"
)

// The database of BenchmarkVerifyState: the target size by default,
// smaller for a quick run.
var (
	benchAccounts = flag.Int("accounts", 200_000, "accounts in the benchmark's database")
	benchSlots    = flag.Int("slots", 2_000_000, "storage slots in the benchmark's database")
	benchCache    = flag.String("dbcache", os.Getenv("STACKTRIE_GETHDB_CACHE"), "folder that keeps the benchmark's databases between runs (default: a temporary one)")
)

// bench holds what the benchmark makes once per process: the database, with
// go-ethereum's summary of it, and the trieroot binary.
var bench struct {
	once     sync.Once
	err      error
	tmp      string
	datadir  string
	summary  *summary
	trieroot string
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if bench.tmp != "" {
		os.RemoveAll(bench.tmp)
	}
	os.Exit(code)
}

// prepareBench writes the database, or finds it in the cache folder, and
// builds trieroot.
func prepareBench(b *testing.B) {
	b.Helper()
	bench.once.Do(func() {
		if bench.tmp, bench.err = os.MkdirTemp("", "gethdb-bench-"); bench.err != nil {
			return
		}
		bench.trieroot = filepath.Join(bench.tmp, "trieroot")
		build := exec.Command("go", "-C", filepath.Join("..", "..", "..", "..", "cmd", "trieroot"), "build", "-o", bench.trieroot, ".")
		if out, err := build.CombinedOutput(); err != nil {
			bench.err = fmt.Errorf("building trieroot: %v: %s", err, out)
			return
		}
		bench.datadir, bench.summary, bench.err = benchDatabase()
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
}

// benchDatabase writes the database of the flags' size, unless the cache
// folder holds it already.
func benchDatabase() (string, *summary, error) {
	spec := &stateSpec{accounts: *benchAccounts, slots: *benchSlots, bigShare: 0.5, seed: 1, scheme: "path", blockItems: 100_000}
	parent := *benchCache
	if parent == "" {
		parent = bench.tmp
	}
	datadir := filepath.Join(parent, fmt.Sprintf("%s-%d-%d-%g-%d", spec.scheme, spec.accounts, spec.slots, spec.bigShare, spec.seed))
	summaryFile := filepath.Join(datadir, "summary.json")
	if data, err := os.ReadFile(summaryFile); err == nil {
		var s summary
		if err := json.Unmarshal(data, &s); err == nil {
			return datadir, &s, nil
		}
	}
	if err := os.RemoveAll(datadir); err != nil {
		return "", nil, err
	}
	start := time.Now()
	s, err := writeState(datadir, spec)
	if err != nil {
		return "", nil, err
	}
	data, _ := json.Marshal(s)
	if err := os.WriteFile(summaryFile, data, 0o644); err != nil {
		return "", nil, err
	}
	fmt.Fprintf(os.Stderr, "gethdb: wrote %d accounts and %d slots in %v\n", s.Accounts, s.Slots, time.Since(start).Round(time.Second))
	return datadir, s, nil
}

// BenchmarkVerifyState checks one on-disk database of the path scheme,
// written by go-ethereum, both ways, each from opening the database to
// closing it: go-ethereum's triedb.Database.VerifyState, as `geth snapshot
// verify-state` runs it, and `trieroot geth` on every core and on one. Run
// it with -benchtime 1x -count N and read benchstat's -col /impl.
func BenchmarkVerifyState(b *testing.B) {
	prepareBench(b)
	b.Run("impl=geth", func(b *testing.B) {
		for b.Loop() {
			cpu := cpuTime(syscall.RUSAGE_SELF)
			if err := gethVerifyState(bench.datadir, bench.summary); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric((cpuTime(syscall.RUSAGE_SELF) - cpu).Seconds(), "cpu-s/op")
		}
	})
	for _, workers := range []string{"0", "1"} {
		name := "impl=trieroot"
		if workers == "1" {
			name = "impl=trieroot-1"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				cpu := cpuTime(syscall.RUSAGE_CHILDREN)
				runTrieroot(b, workers)
				b.ReportMetric((cpuTime(syscall.RUSAGE_CHILDREN) - cpu).Seconds(), "cpu-s/op")
			}
		})
	}
}

// gethVerifyState opens the database read-only as geth does and verifies
// its flat state against the root.
func gethVerifyState(datadir string, s *summary) error {
	dir := chaindata(datadir)
	kv, err := pebble.New(dir, 512, 512, "", true)
	if err != nil {
		return err
	}
	db, err := rawdb.Open(kv, rawdb.OpenOptions{Ancient: filepath.Join(dir, "ancient"), ReadOnly: true})
	if err != nil {
		kv.Close()
		return err
	}
	defer db.Close()
	tdb := triedb.NewDatabase(db, &triedb.Config{PathDB: pathdb.ReadOnly})
	defer tdb.Close()
	return tdb.VerifyState(s.Root)
}

// runTrieroot runs trieroot geth on the database and checks that it
// matched go-ethereum's root.
func runTrieroot(b *testing.B, workers string) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bench.trieroot, "geth", "--json", "--workers", workers, bench.datadir)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("trieroot geth: %v: %s", err, stderr.String())
	}
	var out struct {
		StateRoot string `json:"stateRoot"`
		Match     bool   `json:"match"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || !out.Match || out.StateRoot != bench.summary.Root.Hex() {
		b.Fatalf("trieroot geth: %s", stdout.String())
	}
}

// cpuTime is the user and system time of this process or of its waited-for
// children.
func cpuTime(who int) time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(who, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

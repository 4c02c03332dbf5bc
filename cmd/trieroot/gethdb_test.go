package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble"
	"github.com/holiman/uint256"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/state"
)

// smallGethDB is the database the tests check: a few hundred accounts and
// a few thousand slots, half of them in one contract, over four blocks.
var smallGethDB = []string{"-accounts", "300", "-slots", "3000", "-block", "1000", "-seed", "7"}

// compactedGethDB is the same database compacted: its tables, not its
// log, hold the state, as in a node that has run a while.
var compactedGethDB = append([]string{"-compact"}, smallGethDB...)

// gethReport is trieroot geth's --json output.
type gethReport struct {
	Scheme              string           `json:"scheme"`
	Accounts            uint64           `json:"accounts"`
	Slots               uint64           `json:"slots"`
	StorageRootsChecked uint64           `json:"storageRootsChecked"`
	StorageMismatches   uint64           `json:"storageMismatches"`
	AccountMismatches   uint64           `json:"accountMismatches"`
	Mismatches          []accountProblem `json:"mismatches"`
	StateRoot           jsonHash         `json:"stateRoot"`
	TrieRoot            jsonHash         `json:"trieRoot"`
	Match               bool             `json:"match"`
}

func runGeth(t *testing.T, args ...string) (result, gethReport) {
	t.Helper()
	res := runCLI(t, "", append([]string{"geth", "--json"}, args...)...)
	var rep gethReport
	if res.stdout != "" {
		require.NoError(t, json.Unmarshal([]byte(res.stdout), &rep), res.stdout)
	}
	return res, rep
}

// TestGethIntact checks databases that go-ethereum wrote, in both schemes:
// the root trieroot geth rebuilds from the flat state is the one go-ethereum
// computed, on any number of workers, from the data directory or from its
// chaindata folder.
func TestGethIntact(t *testing.T) {
	for _, tt := range []struct{ name, scheme string }{{"path", "path"}, {"hash", "hash"}, {"path compacted", "path"}} {
		t.Run(tt.name, func(t *testing.T) {
			scheme, db := tt.scheme, smallGethDB
			if strings.HasSuffix(tt.name, "compacted") {
				db = compactedGethDB
			}
			datadir, want := gethDatabase(t, append([]string{"-scheme", scheme}, db...)...)
			require.Equal(t, scheme, want.Scheme)
			require.Greater(t, want.BigSlots, want.Slots/3, "one contract holds far more slots than the others")
			for _, args := range [][]string{
				{datadir},
				{"--workers", "1", datadir},
				{"--workers", "2", datadir},
				{"--workers", "3", filepath.Join(datadir, "geth", "chaindata")},
			} {
				res, rep := runGeth(t, args...)
				require.Equal(t, exitOK, res.code, res.stderr)
				assert.Empty(t, res.stderr)
				assert.Equal(t, scheme, rep.Scheme)
				assert.Equal(t, want.Root, rep.StateRoot, "go-ethereum's root")
				assert.Equal(t, want.Root, rep.TrieRoot)
				assert.True(t, rep.Match)
				assert.Equal(t, want.Accounts, rep.Accounts)
				assert.Equal(t, want.Slots, rep.Slots)
				assert.NotZero(t, rep.StorageRootsChecked)
				assert.Zero(t, rep.StorageMismatches+rep.AccountMismatches)
				assert.Empty(t, rep.Mismatches)
			}
		})
	}
}

// TestGethMismatches edits the flat state of a database in place, as damage
// would, and expects trieroot geth to report a mismatch naming the account,
// with the slots it has in the flat state.
func TestGethMismatches(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(t *testing.T, db *pebble.DB) stacktrie.Hash // the account changed
		problem string
	}{
		{"changed storage value", func(t *testing.T, db *pebble.DB) stacktrie.Hash {
			key, value := slotOfContract(t, db)
			value[len(value)-1] ^= 0x01
			require.NoError(t, db.Set(key, value, pebble.Sync))
			return stacktrie.Hash(key[1:33])
		}, "its slots give storage root"},
		{"missing slot", func(t *testing.T, db *pebble.DB) stacktrie.Hash {
			key, _ := slotOfContract(t, db)
			require.NoError(t, db.Delete(key, pebble.Sync))
			return stacktrie.Hash(key[1:33])
		}, "its slots give storage root"},
		{"changed balance", func(t *testing.T, db *pebble.DB) stacktrie.Hash {
			key, value := nthAccount(t, db, 100)
			var a state.Account
			require.NoError(t, a.DecodeRLP(value))
			a.Balance.Add(&a.Balance, uint256.NewInt(1))
			require.NoError(t, db.Set(key, a.AppendSlimRLP(nil), pebble.Sync))
			return stacktrie.Hash(key[1:])
		}, "the flat state's balance"},
		{"missing account", func(t *testing.T, db *pebble.DB) stacktrie.Hash {
			key, _ := nthAccount(t, db, 200)
			require.NoError(t, db.Delete(key, pebble.Sync))
			return stacktrie.Hash(key[1:])
		}, "in the trie, not in the flat state"},
	}
	for _, scheme := range []string{"path", "hash"} {
		for _, tt := range tests {
			t.Run(scheme+" "+tt.name, func(t *testing.T) {
				datadir, want := gethDatabase(t, append([]string{"-scheme", scheme}, smallGethDB...)...)
				var account stacktrie.Hash
				var slots uint64
				editDatabase(t, datadir, func(db *pebble.DB) {
					account = tt.edit(t, db)
					slots = countFlatSlots(t, db, account)
				})
				res, rep := runGeth(t, datadir)
				require.Equal(t, exitFail, res.code, res.stderr)
				assert.False(t, rep.Match)
				assert.Equal(t, want.Root, rep.TrieRoot, "the trie is untouched")
				assert.NotEqual(t, want.Root, rep.StateRoot)
				require.Len(t, rep.Mismatches, 1, "exactly the account changed")
				assert.Equal(t, jsonHash(account), rep.Mismatches[0].Account)
				assert.Equal(t, slots, rep.Mismatches[0].Slots)
				assert.Contains(t, rep.Mismatches[0].Problem, tt.problem)
				assert.Equal(t, 1, strings.Count(res.stderr, "\n"), res.stderr)
				assert.Contains(t, res.stderr, account.String())
			})
		}
	}
}

// TestGethManyMismatches changes the nonce of seven accounts: all seven
// are counted, and the first five, in hashed-address order, are named.
func TestGethManyMismatches(t *testing.T) {
	datadir, want := gethDatabase(t, append([]string{"-scheme", "path"}, smallGethDB...)...)
	var changed []stacktrie.Hash
	editDatabase(t, datadir, func(db *pebble.DB) {
		for n := 10; n <= 70; n += 10 {
			key, value := nthAccount(t, db, n)
			var a state.Account
			require.NoError(t, a.DecodeRLP(value))
			a.Nonce++
			require.NoError(t, db.Set(key, a.AppendSlimRLP(nil), pebble.Sync))
			changed = append(changed, stacktrie.Hash(key[1:]))
		}
	})
	res, rep := runGeth(t, datadir)
	require.Equal(t, exitFail, res.code, res.stderr)
	assert.Equal(t, want.Root, rep.TrieRoot, "the trie is untouched")
	assert.Equal(t, uint64(len(changed)), rep.AccountMismatches)
	require.Len(t, rep.Mismatches, 5)
	for i, m := range rep.Mismatches {
		assert.Equal(t, jsonHash(changed[i]), m.Account, "mismatch %d", i)
		assert.Contains(t, m.Problem, "nonce")
	}
	assert.Contains(t, res.stderr, fmt.Sprintf("%d accounts differ, the first %s", len(changed), changed[0]))
}

// slotOfContract returns a storage slot of the first account with several.
func slotOfContract(t *testing.T, db *pebble.DB) (key, value []byte) {
	t.Helper()
	it := must(db.NewIter(&pebble.IterOptions{LowerBound: []byte("o"), UpperBound: []byte("p")}))
	defer it.Close()
	var prev []byte
	for it.First(); it.Valid(); it.Next() {
		if len(it.Key()) != flatStorageKeyLen {
			continue // a hash-scheme trie node, keyed by its hash
		}
		if prev != nil && bytes.Equal(prev[:33], it.Key()[:33]) {
			return bytes.Clone(it.Key()), bytes.Clone(it.Value())
		}
		prev = bytes.Clone(it.Key())
	}
	t.Fatal("no account with two slots")
	return nil, nil
}

// nthAccount returns the n-th account of the flat state.
func nthAccount(t *testing.T, db *pebble.DB, n int) (key, value []byte) {
	t.Helper()
	it := must(db.NewIter(&pebble.IterOptions{LowerBound: []byte("a"), UpperBound: []byte("b")}))
	defer it.Close()
	for it.First(); it.Valid(); it.Next() {
		if len(it.Key()) != flatAccountKeyLen {
			continue // a hash-scheme trie node, keyed by its hash
		}
		if n == 0 {
			return bytes.Clone(it.Key()), bytes.Clone(it.Value())
		}
		n--
	}
	t.Fatal("too few accounts")
	return nil, nil
}

// countFlatSlots counts the slots of account in the flat state.
func countFlatSlots(t *testing.T, db *pebble.DB, account stacktrie.Hash) uint64 {
	t.Helper()
	prefix := append([]byte("o"), account[:]...)
	it := must(db.NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: increment(bytes.Clone(prefix))}))
	defer it.Close()
	var n uint64
	for it.First(); it.Valid(); it.Next() {
		if len(it.Key()) == flatStorageKeyLen {
			n++
		}
	}
	return n
}

// TestGethLocked holds a database open as a running node does, in another
// process through go-ethereum and in this one through pebble, and expects
// trieroot geth to refuse it.
func TestGethLocked(t *testing.T) {
	datadir, _ := gethDatabase(t, smallGethDB...)

	holder := exec.Command(gethGenerator(t), "-hold", datadir)
	stdin := must(holder.StdinPipe())
	stdout := must(holder.StdoutPipe())
	require.NoError(t, holder.Start())
	t.Cleanup(func() {
		if holder.ProcessState == nil { // a check failed before the holder was let go
			holder.Process.Kill()
			holder.Wait()
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err, "the holder did not open the database")
	require.Equal(t, "holding\n", line)
	res, _ := runGeth(t, datadir)
	assert.Equal(t, exitFail, res.code)
	assert.Contains(t, res.stderr, "database is in use by another process (is geth running?)")
	assert.Contains(t, res.stderr, "process "+strconv.Itoa(holder.Process.Pid)+" holds its lock")
	assert.Equal(t, 1, strings.Count(res.stderr, "\n"), res.stderr)
	require.NoError(t, stdin.Close())
	require.NoError(t, holder.Wait())

	res, _ = runGeth(t, datadir)
	require.Equal(t, exitOK, res.code, "released: %s", res.stderr)

	editDatabase(t, datadir, func(*pebble.DB) {
		res, _ := runGeth(t, datadir)
		assert.Equal(t, exitFail, res.code)
		assert.Contains(t, res.stderr, "database is in use by another process (is geth running?)")
	})
}

// TestGethGarbage gives trieroot geth folders that hold no database, or a
// damaged one: each is one clear line on stderr and exit status 1, never a
// panic.
func TestGethGarbage(t *testing.T) {
	randomFiles := func(t *testing.T) string {
		dir := t.TempDir()
		for i, name := range []string{"MANIFEST-000001", "000004.log", "OPTIONS-000003", "notes.txt"} {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), bytes.Repeat([]byte{byte(i), 0xff, 0x13}, 500), 0o644))
		}
		return dir
	}
	damagedDB := func(db []string, damage func(t *testing.T, chaindata string)) func(*testing.T) []string {
		return func(t *testing.T) []string {
			datadir, _ := gethDatabase(t, db...)
			damage(t, filepath.Join(datadir, "geth", "chaindata"))
			return []string{"geth", datadir}
		}
	}
	damaged := func(damage func(t *testing.T, chaindata string)) func(*testing.T) []string {
		return damagedDB(smallGethDB, damage)
	}
	eachFile := func(pattern string, change func([]byte) []byte) func(t *testing.T, chaindata string) {
		return func(t *testing.T, chaindata string) {
			files := must(filepath.Glob(filepath.Join(chaindata, pattern)))
			require.NotEmpty(t, files, pattern)
			for _, f := range files {
				data := must(os.ReadFile(f))
				require.NoError(t, os.WriteFile(f, change(data), 0o644))
			}
		}
	}
	half := func(b []byte) []byte { return b[:len(b)/2] }
	scramble := func(b []byte) []byte {
		for i := range b {
			b[i] ^= byte(i*7 + 1)
		}
		return b
	}
	checkErrorCases(t, []errorCase{
		{"missing folder", fixed("geth", "no-such-datadir"), "", exitFail, "trieroot: stat no-such-datadir: no such file or directory", nil},
		{"a file", fixed("geth", sample("state/dump.jsonl")), "", exitFail, "trieroot: testdata/state/dump.jsonl: not a directory", nil},
		{"empty folder", func(t *testing.T) []string { return []string{"geth", t.TempDir()} }, "", exitFail,
			"trieroot: no pebble database in ", []string{"give geth's data directory or its chaindata"}},
		{"random files", func(t *testing.T) []string { return []string{"geth", randomFiles(t)} }, "", exitFail,
			"trieroot: ", []string{"pebble"}},
		{"truncated manifest", damaged(eachFile("MANIFEST-*", half)), "", exitFail, "trieroot: ", []string{"cannot open the database"}},
		{"scrambled manifest", damaged(eachFile("MANIFEST-*", scramble)), "", exitFail, "trieroot: ", []string{"cannot open the database"}},
		{"truncated log", damaged(eachFile("*.log", half)), "", exitFail, "trieroot: ", nil},
		{"scrambled log", damaged(eachFile("*.log", scramble)), "", exitFail, "trieroot: ", nil},
		{"truncated table", damagedDB(compactedGethDB, eachFile("*.sst", half)), "", exitFail, "trieroot: ", []string{"cannot open the database", ".sst"}},
		{"scrambled table", damagedDB(compactedGethDB, eachFile("*.sst", scramble)), "", exitFail, "trieroot: ", []string{"pebble/table"}},
		{"missing table", damagedDB(compactedGethDB, func(t *testing.T, chaindata string) {
			for _, f := range must(filepath.Glob(filepath.Join(chaindata, "*.sst"))) {
				require.NoError(t, os.Remove(f))
			}
		}), "", exitFail, "trieroot: ", []string{"cannot open the database", "file does not exist"}},
		{"no format marker", damaged(func(t *testing.T, chaindata string) {
			for _, f := range must(filepath.Glob(filepath.Join(chaindata, "marker.*"))) {
				require.NoError(t, os.Remove(f))
			}
		}), "", exitFail, "trieroot: ", nil},
		{"a malformed account", damaged(func(t *testing.T, chaindata string) {
			editDatabase(t, filepath.Dir(filepath.Dir(chaindata)), func(db *pebble.DB) {
				key, _ := nthAccount(t, db, 5)
				require.NoError(t, db.Set(key, []byte{0xc3, 0x01, 0x02}, pebble.Sync))
			})
		}), "", exitFail, "trieroot: ", []string{"the flat state: account 0x", "malformed account"}},
		{"an empty slot", damaged(func(t *testing.T, chaindata string) {
			editDatabase(t, filepath.Dir(filepath.Dir(chaindata)), func(db *pebble.DB) {
				key, _ := slotOfContract(t, db)
				require.NoError(t, db.Set(key, nil, pebble.Sync))
			})
		}), "", exitFail, "trieroot: ", []string{"empty slot value"}},
		{"no state", func(t *testing.T) []string {
			dir := t.TempDir()
			db := must(pebble.Open(dir, &pebble.Options{Logger: pebbleLogger{}}))
			require.NoError(t, db.Close())
			return []string{"geth", dir}
		}, "", exitFail, "trieroot: ", []string{"no state: neither a path-scheme trie nor a hash-scheme snapshot"}},
		{"a flat state being generated", damaged(func(t *testing.T, chaindata string) {
			editDatabase(t, filepath.Dir(filepath.Dir(chaindata)), func(db *pebble.DB) {
				// wiping false, done false, marker 0x1234, 10 accounts, 20 slots, 30 bytes
				record := []byte{0xc8, 0x80, 0x80, 0x82, 0x12, 0x34, 0x0a, 0x14, 0x1e}
				require.NoError(t, db.Set([]byte("SnapshotGenerator"), record, pebble.Sync))
			})
		}), "", exitFail, "trieroot: ", []string{"the flat state is incomplete", "(10 accounts and 20 slots so far, up to 0x1234)"}},
		{"a flat state turned off", damaged(func(t *testing.T, chaindata string) {
			editDatabase(t, filepath.Dir(filepath.Dir(chaindata)), func(db *pebble.DB) {
				// What go-ethereum's rawdb.WriteSnapshotDisabled writes.
				require.NoError(t, db.Set([]byte("SnapshotDisabled"), []byte("42"), pebble.Sync))
			})
		}), "", exitFail, "trieroot: ", []string{"the flat state (snapshot) is turned off"}},
		{"a flat state of another root", damaged(func(t *testing.T, chaindata string) {
			editDatabase(t, filepath.Dir(filepath.Dir(chaindata)), func(db *pebble.DB) {
				require.NoError(t, db.Set([]byte("SnapshotRoot"), bytes.Repeat([]byte{0x11}, 32), pebble.Sync))
			})
		}), "", exitFail, "trieroot: ", []string{"the flat state is for root 0x1111", "go-ethereum will regenerate"}},
		{"a missing trie node", damaged(func(t *testing.T, chaindata string) {
			editDatabase(t, filepath.Dir(filepath.Dir(chaindata)), func(db *pebble.DB) {
				key, value := nthAccount(t, db, 3)
				var a state.Account
				require.NoError(t, a.DecodeRLP(value))
				a.Nonce++ // a mismatch, so that the trie is walked
				require.NoError(t, db.Set(key, a.AppendSlimRLP(nil), pebble.Sync))
				require.NoError(t, db.DeleteRange([]byte("A\x00"), []byte("A\x10"), pebble.Sync))
			})
		}), "", exitFail, "trieroot: ", []string{"the trie's node at path", "is missing"}},
	})
}

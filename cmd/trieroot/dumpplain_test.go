package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// firstAccount is the first account of the whole-state sample, as it is
// filed there (by checksummed address), and the line it starts on.
const (
	firstAccount     = "0x09c0529a60142548383bd36c53868Dab5d7ABE2E"
	firstAccountLine = 4
)

// TestStateFormatsAgree reads the same state in every form trieroot state
// takes and expects the same report, proof included: the sorted lines, the
// shuffled lines with --sort, the whole-state dump as geth writes it, on
// one line, and with its keys in the other order, on 1 and 2 workers.
func TestStateFormatsAgree(t *testing.T) {
	whole, err := os.ReadFile(sample("state/dump.json"))
	require.NoError(t, err)
	var compact bytes.Buffer
	require.NoError(t, json.Compact(&compact, whole))
	var doc struct {
		Root     string          `json:"root"`
		Accounts json.RawMessage `json:"accounts"`
	}
	require.NoError(t, json.Unmarshal(whole, &doc))
	accountsFirst := `{"accounts": ` + string(doc.Accounts) + `, "root": "` + doc.Root + `"}`

	proof := []string{"--json", "--proof", strings.ToLower(firstAccount)}
	want := runCLI(t, "", append([]string{"state", sample("state/dump.jsonl")}, proof...)...)
	require.Equal(t, exitOK, want.code, want.stderr)
	tests := []struct {
		name  string
		stdin string
		args  []string
	}{
		{"shuffled lines, --sort", "", []string{"--sort", sample("state/unsorted.jsonl")}},
		{"shuffled lines, --sort, 2 workers", "", []string{"--sort", "--workers", "2", sample("state/unsorted.jsonl")}},
		{"whole", "", []string{sample("state/dump.json")}},
		{"whole, 2 workers", "", []string{"--workers", "2", sample("state/dump.json")}},
		{"whole, one line", compact.String(), []string{"-"}},
		{"whole, accounts first", accountsFirst, []string{"-"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runCLI(t, tt.stdin, append(append([]string{"state"}, proof...), tt.args...)...)
			require.Equal(t, exitOK, got.code, got.stderr)
			assert.Empty(t, got.stderr)
			assert.JSONEq(t, want.stdout, got.stdout)
		})
	}
}

// TestStateWithoutPreimages reads the whole-state dump of a node that keeps
// no preimages, whose accounts are filed under pre(HASH) and hold no slots:
// the same state root and proof, every storage root left unchecked.
func TestStateWithoutPreimages(t *testing.T) {
	proof := []string{"--json", "--proof", firstAccount}
	var with, without map[string]any
	res := runCLI(t, "", append([]string{"state", sample("state/dump.json")}, proof...)...)
	require.Equal(t, exitOK, res.code, res.stderr)
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &with))
	res = runCLI(t, "", append([]string{"state", sample("state/nopreimages.json")}, proof...)...)
	require.Equal(t, exitOK, res.code, res.stderr)
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &without))
	for _, name := range []string{"accounts", "stateRoot", "dumpRoot", "match", "proofs"} {
		assert.Equal(t, with[name], without[name], name)
	}
	// Only the empty storage roots check, against no slots.
	assert.EqualValues(t, 0, without["slots"])
	assert.EqualValues(t, 40, with["storageRootsChecked"])
	assert.EqualValues(t, 15, without["storageRootsUnchecked"])
	assert.EqualValues(t, 25, without["storageRootsChecked"])
}

// editWhole returns a copy of the whole-state sample with edit applied.
func editWhole(edit func(string) string) func(t *testing.T) []string {
	return func(t *testing.T) []string {
		return []string{"state", mutated(t, "state/dump.json", edit)}
	}
}

// firstAccountBlock is the text of the whole-state sample's first account,
// from its name to its closing brace and comma.
func firstAccountBlock(s string) string {
	start := strings.Index(s, `        "`+firstAccount)
	end := strings.Index(s[start:], "\n        },\n")
	return s[start : start+end+len("\n        },\n")]
}

func TestWholeStateDumpErrors(t *testing.T) {
	root := strings.Repeat("0", 64)
	at := func(line int) string { return "dump.json:" + strconv.Itoa(line) + ": " }
	checkErrorCases(t, []errorCase{
		{"given --sort", func(*testing.T) []string { return []string{"state", "--sort", sample("state/dump.json")} },
			"", exitFail, "dump.json: --sort is for geth dump --iterative lines", nil},
		{"cut short", editWhole(func(s string) string { return s[:len(s)/2] }),
			"", exitFail, "dump.json:", []string{"the dump ends early: is it cut short?"}},
		{"malformed between accounts", editWhole(replaceOnce(`"accounts": {`, `"accounts" {`)),
			"", exitFail, at(3) + "not JSON: invalid character '{' after object key", nil},
		{"malformed in an account", editWhole(replaceOnce(`"nonce": 6,`, `"nonce": 6`)),
			"", exitFail, at(firstAccountLine) + "account " + firstAccount + ": invalid character", nil},
		{"an address twice", editWhole(func(s string) string {
			block := firstAccountBlock(s)
			return strings.Replace(s, block, block+strings.Replace(block, firstAccount, strings.ToLower(firstAccount), 1), 1)
		}), "", exitFail, "dump.json:", []string{"the account of key 0x0013b980", "appears twice, first on line " + strconv.Itoa(firstAccountLine)}},
		{"filed under another address", editWhole(replaceOnce(firstAccount, "0x"+strings.Repeat("ab", 20))),
			"", exitFail, at(firstAccountLine) + "account 0x" + strings.Repeat("ab", 20) + " holds address 0x09c0529a", nil},
		{"filed under a name", editWhole(replaceOnce(firstAccount, "alice")),
			"", exitFail, at(firstAccountLine) + `account "alice": an account's name is its address or pre(KEY)`, nil},
		{"filed under another key", func(t *testing.T) []string {
			return []string{"state", mutated(t, "state/nopreimages.json", replaceOnce("5654)", "5655)"))}
		}, "", exitFail, "nopreimages.json:" + strconv.Itoa(firstAccountLine) + ": account pre(0x0013b980", []string{"holds key 0x0013b980"}},
		{"storage value changed", editWhole(replaceOnce(`"c3e379047ce036261b57703172de59"`, `"c3e379047ce036261b57703172de58"`)),
			"", exitFail, at(firstAccountLine) + "account " + firstAccount + ": storage root 0x", []string{"differs from the account's root"}},
		{"a slot twice", editWhole(func(s string) string {
			slot := `                "0x0000000000000000000000000000000000000000000000000000000000000000": "c3e379047ce036261b57703172de59",` + "\n"
			return strings.Replace(s, slot, slot+slot, 1)
		}), "", exitFail, at(firstAccountLine) + "account " + firstAccount + ": storage slot 0x0000", []string{"is listed twice"}},
		{"root changed", editWhole(replaceOnce(`"root": "6740`, `"root": "6741`)),
			"", exitFail, at(2) + "the dump's root 0x6741", []string{"differs from the state root 0x6740"}},
		{"no root", editWhole(func(s string) string {
			l := lines(s)
			return strings.Join(append(l[:1:1], l[2:]...), "\n")
		}), "", exitFail, "dump.json: no root: is it the output of geth dump?", nil},
		{"partial", editWhole(replaceOnce(`"accounts": {`, `"next": "0x1234", "accounts": {`)),
			"", exitFail, at(3) + "a partial dump, cut short before the account of key 0x1234 (geth dump --limit)", nil},
		{"unknown field", editWhole(replaceOnce(`"accounts": {`, `"extra": 1, "accounts": {`)),
			"", exitFail, at(3) + `unknown field "extra"`, nil},
		{"root twice", editWhole(replaceOnce(`"accounts": {`, `"root": "`+root+`", "accounts": {`)),
			"", exitFail, at(3) + `"root" appears twice, first on line 2`, nil},
		{"more after the end", editWhole(func(s string) string { return s + "{}\n" }),
			"", exitFail, "dump.json:", []string{"more after the dump's closing brace"}},
		{"accounts not an object", fixed("state", "-"), `{"root": "` + root + `", "accounts": []}`,
			exitFail, "stdin:1: accounts is not an object of address to account", nil},
		{"an account without balance", fixed("state", "-"), `{"root": "` + root + `", "accounts": {"0x` + strings.Repeat("12", 20) + `": {"nonce": 1}}}`,
			exitFail, "stdin:1: account 0x1212", []string{"has no balance"}},
		{"storage not an object", fixed("state", "-"), `{"root": "` + root + `", "accounts": {"0x` + strings.Repeat("12", 20) + `": {"balance": "1", "storage": [1]}}}`,
			exitFail, "stdin:1: account 0x1212", []string{"storage is not an object of slot to value"}},
	})
}

func TestSortedLinesErrors(t *testing.T) {
	checkErrorCases(t, []errorCase{
		{"an account twice", func(t *testing.T) []string {
			return []string{"state", "--sort", mutated(t, "state/unsorted.jsonl", func(s string) string {
				l := lines(s)
				account := slicesIndex(l, func(line string) bool { return strings.Contains(line, `"balance"`) })
				return s + l[account] + "\n"
			})}
		}, "", exitFail, "unsorted.jsonl:42: the account of key 0x", []string{"appears twice, first on line"}},
		{"shuffled without --sort", func(*testing.T) []string { return []string{"state", sample("state/unsorted.jsonl")} },
			"", exitFail, "unsorted.jsonl:", []string{"must come in hashed-key order", "or pass --sort"}},
		{"a bad account, --sort", func(t *testing.T) []string {
			return []string{"state", "--sort", mutated(t, "state/unsorted.jsonl", replaceOnce(`"balance":"`, `"balance":"x`))}
		}, "", exitFail, "unsorted.jsonl:", []string{`balance "x`, "not a number below 2^256"}},
	})
}

// slicesIndex is the index of the first line that f holds for.
func slicesIndex(l []string, f func(string) bool) int {
	for i, s := range l {
		if f(s) {
			return i
		}
	}
	return -1
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// errorCase runs trieroot on args (built when the test runs, so that they
// may name files made for it) and expects the exit status and a single
// line on stderr that starts with prefix and contains each of contains.
type errorCase struct {
	name     string
	args     func(t *testing.T) []string
	stdin    string
	code     int
	prefix   string
	contains []string
}

func fixed(args ...string) func(*testing.T) []string {
	return func(*testing.T) []string { return args }
}

func checkErrorCases(t *testing.T, cases []errorCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := runCLI(t, tc.stdin, tc.args(t)...)
			assert.Equal(t, tc.code, res.code, "exit status")
			require.True(t, strings.HasSuffix(res.stderr, "\n"), "stderr %q", res.stderr)
			msg := strings.TrimSuffix(res.stderr, "\n")
			assert.NotContains(t, msg, "\n", "more than one line on stderr")
			// Files made for a case are in a temporary folder.
			if place, rest, ok := strings.Cut(msg, ":"); ok {
				msg = filepath.Base(place) + ":" + rest
			}
			assert.True(t, strings.HasPrefix(msg, tc.prefix), "stderr %q does not start with %q", msg, tc.prefix)
			for _, s := range tc.contains {
				assert.Contains(t, msg, s)
			}
			assert.NotContains(t, msg, "goroutine", "a stack trace")
		})
	}
}

func TestUsageErrors(t *testing.T) {
	checkErrorCases(t, []errorCase{
		{"unknown command", fixed("roots"), "", exitUsage, `trieroot: unknown command "roots"`, nil},
		{"unknown flag", fixed("kv", "--bogus"), "", exitUsage, "trieroot kv: flag provided but not defined: -bogus", []string{"trieroot kv -h"}},
		{"two files", fixed("list", "a", "b"), "", exitUsage, "trieroot list: one file at most, got 2", nil},
		{"payload needs a file", fixed("payload"), "", exitUsage, "trieroot payload: no file given", nil},
		{"state needs a file", fixed("state", "--json"), "", exitUsage, "trieroot state: no file given", nil},
		{"missing file", fixed("kv", "no-such-file.txt"), "", exitFail, "trieroot: open no-such-file.txt: no such file or directory", nil},
		{"bad proof key", fixed("kv", "--proof", "0xzz"), "", exitFail, "trieroot: --proof 0xzz: 0xzz: 'z' is not a hex digit", nil},
		{"bad proof index", fixed("list", "--proof", "-1"), "", exitFail, "trieroot: --proof -1: not an index", nil},
		{"bad proof address", fixed("state", "--proof", "0x1234", "-"), "", exitFail, "trieroot: --proof 0x1234: 2 bytes: want an address (20) or a hashed key (32)", nil},
		{"unwritable node file", fixed("kv", "--nodes", filepath.Join("no-such-dir", "nodes")), "", exitFail, "trieroot: open no-such-dir", nil},
	})
	res := runCLI(t, "")
	assert.Equal(t, exitUsage, res.code)
	assert.Contains(t, res.stderr, "Usage:")
}

func TestKVErrors(t *testing.T) {
	checkErrorCases(t, []errorCase{
		{"out of order", fixed("kv"), "02 aa\n01 bb\n", exitFail, "stdin:2: key 0x01 is below 0x02 on line 1: sort the input, or pass --sort", nil},
		{"out of order, lines counted", fixed("kv", "-"), "# pairs\n\n0x0203 aa\n0x02 bb\n", exitFail, "stdin:4: key 0x02 is below 0x0203 on line 3", nil},
		{"duplicate", fixed("kv"), "01 aa\n01 bb\n", exitFail, "stdin:2: duplicate key 0x01, first on line 1", nil},
		{"duplicate, sorting", fixed("kv", "--sort"), "02 aa\n01 bb\n02 cc\n", exitFail, "stdin:3: duplicate key 0x02, first on line 1", nil},
		{"duplicate, hashing", fixed("kv", "--secure"), "0x02 aa\n01 bb\n02 cc\n", exitFail, "stdin:3: duplicate key 0x02, first on line 1", nil},
		{"empty value", fixed("kv"), "01 0x\n", exitFail, "stdin:1: key 0x01 has an empty value, which a trie cannot hold", nil},
		{"bad key digit", fixed("kv"), "0g 01\n", exitFail, "stdin:1: key 0g: 'g' is not a hex digit", nil},
		{"odd value", fixed("kv"), "01 0x123\n", exitFail, "stdin:1: value 0x123: odd number of hex digits", nil},
		{"no value", fixed("kv"), "01\n", exitFail, "stdin:1: key 01 has no value: want KEY VALUE", nil},
		{"three fields", fixed("kv"), "01 02 03\n", exitFail, "stdin:1: 3 fields, want KEY VALUE", nil},
		{"in a file", func(t *testing.T) []string {
			return []string{"kv", mutated(t, "kv/sorted.txt", func(s string) string {
				l := lines(s)
				l[2], l[3] = l[3], l[2]
				return strings.Join(l, "\n")
			})}
		}, "", exitFail, "sorted.txt:4: key ", []string{"is below", "on line 3"}},
	})
}

func TestListErrors(t *testing.T) {
	checkErrorCases(t, []errorCase{
		{"bad digit", fixed("list"), "0x01\n0xzz\n", exitFail, "stdin:2: item 0xzz: 'z' is not a hex digit", nil},
		{"two items", fixed("list"), "0x01 0x02\n", exitFail, "stdin:1: more than one item on the line", nil},
	})
}

// A payload's JSON with one member changed.
func TestPayloadErrors(t *testing.T) {
	zeros := "0x" + strings.Repeat("00", 32)
	checkErrorCases(t, []errorCase{
		{"not JSON", fixed("payload", "-"), "{", exitFail, "stdin: not JSON", nil},
		{"no payload", fixed("payload", "-"), `{"foo": 1}`, exitFail, "stdin: no execution payload found", nil},
		{"not newPayload", fixed("payload", "-"), `{"method": "eth_getBlockByNumber", "params": []}`, exitFail,
			`stdin: method "eth_getBlockByNumber": want engine_newPayloadV1 to V4`, nil},
		{"short field", fixed("payload", "-"), `{"parentHash": "0x00"}`, exitFail,
			"stdin: execution payload parentHash: 0x00: 1 bytes, want 32", nil},
		{"missing field", fixed("payload", "-"), `{"parentHash": "` + zeros + `"}`, exitFail,
			"stdin: execution payload has no feeRecipient", nil},
		{"requests out of order", fixed("payload", "-"), `[{}, [], "` + zeros + `", ["0x01aa", "0x00bb"]]`, exitFail,
			"stdin: executionRequests[1]: type 0 after type 1: types must ascend", nil},
		{"empty request list", fixed("payload", "-"), `[{}, [], "` + zeros + `", ["0x01"]]`, exitFail,
			"stdin: executionRequests[0]: no requests after the type byte", nil},
		{"later fork's field", func(t *testing.T) []string {
			return []string{"payload", mutated(t, "payload/prague-engine.json", replaceOnce(`"parentHash":`, `"slotNumber": "0x1", "parentHash":`))}
		}, "", exitFail, `prague-engine.json: execution payload field "slotNumber" is unknown: trieroot reads Paris to Prague payloads`, nil},
		{"later newPayload", func(t *testing.T) []string {
			return []string{"payload", mutated(t, "payload/prague-engine.json", replaceOnce("engine_newPayloadV4", "engine_newPayloadV5"))}
		}, "", exitFail, "prague-engine.json: method engine_newPayloadV5 is for a fork after Prague", nil},
		{"later beacon version", func(t *testing.T) []string {
			return []string{"payload", mutated(t, "payload/cancun-beacon.json", replaceOnce(`"deneb"`, `"gloas"`))}
		}, "", exitFail, `cancun-beacon.json: beacon block version "gloas": trieroot knows bellatrix to fulu`, nil},
		{"beacon version of another fork", func(t *testing.T) []string {
			return []string{"payload", mutated(t, "payload/cancun-beacon.json", replaceOnce(`"deneb"`, `"capella"`))}
		}, "", exitFail, "cancun-beacon.json: beacon block version capella, but its payload has the fields of cancun", nil},
		{"no parent beacon root", fixed("payload", sample("payload/cancun-getpayload.json")), "", exitFail,
			"cancun-getpayload.json: a cancun header holds the parent beacon block root, which the file lacks: pass --parent-beacon-root", nil},
		{"two parent beacon roots", fixed("payload", "--parent-beacon-root", zeros, sample("payload/cancun-engine.json")), "", exitFail,
			"cancun-engine.json: --parent-beacon-root " + zeros + " differs from the file's", nil},
		{"parent beacon root before Cancun", fixed("payload", "--parent-beacon-root", zeros, sample("payload/shanghai-engine.json")), "", exitFail,
			"shanghai-engine.json: --parent-beacon-root given, but a shanghai header has no parent beacon block root", nil},
		{"fork of other fields", fixed("payload", "--fork", "paris", sample("payload/shanghai-engine.json")), "", exitFail,
			"shanghai-engine.json: --fork paris, but the payload has the fields of shanghai", nil},
		{"unknown fork", fixed("payload", "--fork", "osaka", sample("payload/shanghai-engine.json")), "", exitFail,
			`shanghai-engine.json: --fork "osaka": want one of [paris shanghai cancun prague]`, nil},
	})
}

// TestPayloadMismatch changes a payload so that its header no longer hashes
// to its blockHash: the report shows both hashes, the error says so.
func TestPayloadMismatch(t *testing.T) {
	// The Shanghai sample's gas used, 12345678, is 0xbc614e.
	path := mutated(t, "payload/shanghai-engine.json", replaceOnce(`"gasUsed": "0xbc614e"`, `"gasUsed": "0xbc614f"`))
	res := runCLI(t, "", "payload", path)
	assert.Equal(t, exitFail, res.code)
	assert.Contains(t, res.stdout, "match             false\n")
	assert.Regexp(t, `^\S+shanghai-engine.json: the header rebuilt from the payload hashes to 0x[0-9a-f]{64}, not to its blockHash 0xdf46a104d0d0[0-9a-f]{52}\n$`, res.stderr)

	// A Cancun payload taken for a Prague one without requests: the header
	// gains the requests hash of no requests, SHA-256 of nothing.
	res = runCLI(t, "", "payload", "--json", "--fork", "prague", "--parent-beacon-root",
		"0xd9ac1a638e57921f7440a78d700296e162bdec404c52988e97eda38aa09f78b3", sample("payload/cancun-getpayload.json"))
	assert.Equal(t, exitFail, res.code)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &got))
	assert.Equal(t, "prague", got["fork"])
	assert.Equal(t, "0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", got["requestsHash"])
	assert.Equal(t, false, got["match"])
}

// editDump returns a copy of the state dump sample with edit applied to
// line n (from 1), decoded as a JSON object; edit returning nil drops the
// line.
func editDump(t *testing.T, n int, edit func(map[string]any) map[string]any) string {
	t.Helper()
	return mutated(t, "state/dump.jsonl", func(s string) string {
		l := lines(s)
		var obj map[string]any
		require.NoError(t, json.Unmarshal([]byte(l[n-1]), &obj))
		if obj = edit(obj); obj == nil {
			l = append(l[:n-1], l[n:]...)
		} else {
			data, err := json.Marshal(obj)
			require.NoError(t, err)
			l[n-1] = string(data)
		}
		return strings.Join(l, "\n") + "\n"
	})
}

// firstLineWith is the number of the dump sample's first line that holds s.
func firstLineWith(t *testing.T, s string) int {
	t.Helper()
	data, err := os.ReadFile(sample("state/dump.jsonl"))
	require.NoError(t, err)
	for i, l := range lines(string(data)) {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	t.Fatalf("no line of the dump holds %q", s)
	return 0
}

func TestStateErrors(t *testing.T) {
	withStorage := firstLineWith(t, `"storage"`)
	withCode := firstLineWith(t, `"code"`)
	checkErrorCases(t, []errorCase{
		{"accounts out of order", func(t *testing.T) []string {
			return []string{"state", mutated(t, "state/dump.jsonl", func(s string) string {
				l := lines(s)
				l[1], l[2] = l[2], l[1]
				return strings.Join(l, "\n")
			})}
		}, "", exitFail, "dump.jsonl:3: account key 0x", []string{"is not above", "on line 2: the accounts must come in hashed-key order"}},
		{"storage value changed", func(t *testing.T) []string {
			return []string{"state", editDump(t, withStorage, func(a map[string]any) map[string]any {
				storage := a["storage"].(map[string]any)
				for slot, v := range storage {
					storage[slot] = lastDigit(v.(string))
					break
				}
				return a
			})}
		}, "", exitFail, "dump.jsonl:" + strconv.Itoa(withStorage) + ": storage root 0x", []string{"differs from the account's root"}},
		{"zero storage value", func(t *testing.T) []string {
			return []string{"state", editDump(t, withStorage, func(a map[string]any) map[string]any {
				a["storage"].(map[string]any)[zeroSlot] = "00"
				return a
			})}
		}, "", exitFail, "dump.jsonl:" + strconv.Itoa(withStorage) + ": storage slot " + zeroSlot + " holds zero", nil},
		{"code changed", func(t *testing.T) []string {
			return []string{"state", editDump(t, withCode, func(a map[string]any) map[string]any {
				a["code"] = lastDigit(a["code"].(string))
				return a
			})}
		}, "", exitFail, "dump.jsonl:" + strconv.Itoa(withCode) + ": the code hashes to 0x", []string{"not to its codeHash"}},
		{"key of another address", func(t *testing.T) []string {
			return []string{"state", editDump(t, 2, func(a map[string]any) map[string]any {
				a["key"] = lastDigit(a["key"].(string))
				return a
			})}
		}, "", exitFail, "dump.jsonl:2: address 0x", []string{"not to its key"}},
		{"neither key nor address", func(t *testing.T) []string {
			return []string{"state", editDump(t, 2, func(a map[string]any) map[string]any {
				delete(a, "key")
				delete(a, "address")
				return a
			})}
		}, "", exitFail, "dump.jsonl:2: an account needs an address or a key", nil},
		{"bad balance", func(t *testing.T) []string {
			return []string{"state", editDump(t, 2, func(a map[string]any) map[string]any {
				a["balance"] = "12x"
				return a
			})}
		}, "", exitFail, `dump.jsonl:2: balance "12x": not a number below 2^256`, nil},
		{"root changed", func(t *testing.T) []string {
			return []string{"state", editDump(t, 1, func(a map[string]any) map[string]any {
				a["root"] = lastDigit(a["root"].(string))
				return a
			})}
		}, "", exitFail, "dump.jsonl:1: the dump's root 0x", []string{"differs from the state root 0x"}},
		{"no root line", func(t *testing.T) []string {
			return []string{"state", editDump(t, 1, func(map[string]any) map[string]any { return nil })}
		}, "", exitFail, "dump.jsonl: no root line: is it the output of geth dump --iterative?", nil},
		{"two root lines", fixed("state", "-"), `{"root":"` + zeroSlot + `"}` + "\n" + `{"root":"` + zeroSlot + `"}` + "\n", exitFail,
			"stdin:2: a second root line; the first is on line 1", nil},
		{"object split over lines", fixed("state", "-"), "{\n  \"balance\": \"1\"\n}\n", exitFail,
			"stdin:1: not one JSON object a line, nor a whole-state geth dump", nil},
		{"not JSON", fixed("state", "-"), "[1]\n", exitFail, "stdin:1: not a JSON account or root line", nil},
	})
}

// zeroSlot is storage slot 0, as a dump writes it.
var zeroSlot = "0x" + strings.Repeat("00", 32)

// lastDigit changes the last hex digit of s.
func lastDigit(s string) string {
	if strings.HasSuffix(s, "0") {
		return s[:len(s)-1] + "1"
	}
	return s[:len(s)-1] + "0"
}

// TestStateWithoutRootLine prints the state root of a dump that has no
// root line, with none to compare it with, and fails.
func TestStateWithoutRootLine(t *testing.T) {
	path := editDump(t, 1, func(map[string]any) map[string]any { return nil })
	res := runCLI(t, "", "state", "--json", path)
	assert.Equal(t, exitFail, res.code)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &got))
	assert.Contains(t, got, "dumpRoot")
	assert.Nil(t, got["dumpRoot"])
	assert.Equal(t, false, got["match"])
	assert.Regexp(t, `^0x[0-9a-f]{64}$`, got["stateRoot"])
}

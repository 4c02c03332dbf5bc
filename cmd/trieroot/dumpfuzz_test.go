package main

import (
	"os"
	"strings"
	"testing"
)

// FuzzStateDump feeds trieroot state any input, in both forms and with
// --sort: it must answer with a report or one line on stderr, never panic.
// The seeds are the samples and pieces of them.
func FuzzStateDump(f *testing.F) {
	for _, name := range []string{"state/dump.jsonl", "state/dump.json", "state/nopreimages.json"} {
		data, err := os.ReadFile(sample(name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data), false)
		f.Add(string(data[:len(data)/3]), true)
	}
	f.Add(`{"root": "00", "accounts": {"pre(0x12)": {"balance": "1", "storage": {"0x01": 2}}}}`, false)
	f.Fuzz(func(t *testing.T, input string, sort bool) {
		args := []string{"state", "--json", "-"}
		if sort {
			args = append(args, "--sort")
		}
		res := runCLI(t, input, args...)
		if res.code != exitOK && res.code != exitFail {
			t.Fatalf("exit status %d: %s", res.code, res.stderr)
		}
		if msg := strings.TrimSuffix(res.stderr, "\n"); strings.Contains(msg, "\n") {
			t.Fatalf("more than one line on stderr: %q", res.stderr)
		}
	})
}

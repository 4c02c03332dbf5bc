// Command gencli writes the samples that cmd/trieroot's end-to-end tests run
// the command on, with go-ethereum's answer for each. Run it through go
// generate in the compat folder, which writes to ../cmd/trieroot/testdata:
//
//	go generate ./...
//
// It is a module of its own because go-ethereum's state and engine-API
// packages bring dependencies that the compat module does not otherwise need.
//
// It writes, under its output folder:
//
//	kv/*.txt          KEY VALUE lines for trieroot kv (sorted, unsorted, to be hashed)
//	kv/sorted.nodes   the nodes go-ethereum's trie commits for kv/sorted.txt,
//	                  as trieroot --nodes writes them, sorted by path
//	list/*.txt        encoded items for trieroot list (a block's transactions)
//	payload/*.json    execution payloads of Paris, Shanghai, Cancun and Prague
//	                  blocks, in the engine-API and the beacon-API shapes
//	state/dump.jsonl  a state built with go-ethereum's state package, dumped
//	                  by its iterative dumper, as `geth dump --iterative` does
//	state/unsorted.jsonl  the same lines shuffled, for trieroot state --sort
//	state/dump.json   the same state dumped whole, as `geth dump` does
//	state/nopreimages.json  the same dumped whole by a node that keeps no
//	                  preimages: accounts filed by hashed address, no storage
//	geth.json         the cases: for each sample, the trieroot arguments and
//	                  the values go-ethereum computed for it
//
// Every input comes from fixed seeds and fixed keys, and signing is
// deterministic, so a run rewrites the same files unless go-ethereum changes.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
)

func main() {
	out := flag.String("out", "../../../cmd/trieroot/testdata", "folder to write the samples to")
	flag.Parse()
	if err := run(*out); err != nil {
		log.Fatal(err)
	}
}

// testCase is one entry of geth.json: run trieroot Command on File with Args
// and --json, and expect the output object to hold Want's fields; with
// Nodes, --nodes must write the lines of that file, in any order.
type testCase struct {
	Command string         `json:"command"`
	File    string         `json:"file"`
	Args    []string       `json:"args,omitempty"`
	Want    map[string]any `json:"want"`
	Nodes   string         `json:"nodes,omitempty"`
}

// output collects the files of a run and the cases that go with them.
type output struct {
	dir   string
	cases []testCase
}

// write stores data at the slash-separated path name under the output folder.
func (o *output) write(name string, data []byte) error {
	path := filepath.Join(o.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// writeJSON stores v as indented JSON.
func (o *output) writeJSON(name string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return o.write(name, append(data, '\n'))
}

// addCase records what trieroot should answer for a sample.
func (o *output) addCase(command, file string, args []string, want map[string]any) *testCase {
	o.cases = append(o.cases, testCase{Command: command, File: file, Args: args, Want: want})
	return &o.cases[len(o.cases)-1]
}

func run(dir string) error {
	o := &output{dir: dir}
	for _, gen := range []func(*output) error{writeKV, writeLists, writePayloads, writeState} {
		if err := gen(o); err != nil {
			return err
		}
	}
	return o.writeJSON("geth.json", o.cases)
}

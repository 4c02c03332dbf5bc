package main

import (
	"flag"
	"strings"

	"github.com/stacktrie/stacktrie"
)

// outputFlags are the flags of every command.
type outputFlags struct {
	json, quiet bool
}

func (o *outputFlags) define(fs *flag.FlagSet) {
	fs.BoolVar(&o.json, "json", false, "print the result as one JSON object")
	fs.BoolVar(&o.quiet, "quiet", false, "print only the root (kv, list) or nothing (payload, state, geth), and no progress bar")
}

// format is the output format the flags ask for; --json wins over --quiet.
func (o *outputFlags) format() outputFormat {
	switch {
	case o.json:
		return jsonOutput
	case o.quiet:
		return quietOutput
	}
	return textOutput
}

// trieFlags are the flags of the commands that build one trie: kv, list
// and state.
type trieFlags struct {
	outputFlags
	nodes   string
	proofs  stringList
	workers int
}

func (t *trieFlags) define(fs *flag.FlagSet, proofKey string) {
	t.outputFlags.define(fs)
	fs.StringVar(&t.nodes, "nodes", "", "write every stored node to `FILE` as \"path hash blob\" lines")
	fs.Var(&t.proofs, "proof", "print the Merkle proof of `KEY` ("+proofKey+"); repeatable")
	t.workers = 1
}

// defineWorkers adds --workers, for the commands that can hash in parallel.
func (t *trieFlags) defineWorkers(fs *flag.FlagSet) {
	fs.IntVar(&t.workers, "workers", 1, "hash on `N` cores (0: all of them); keys spread over the key space, such as hashed keys, scale best")
}

// trie is what the commands insert into: a stacktrie.Trie, or a
// stacktrie.Parallel with --workers. Close ends a Parallel's workers.
type trie interface {
	Update(key, value []byte) error
	Hash() stacktrie.Hash
	Close() error
}

// singleTrie is a stacktrie.Trie as a trie: it has no workers to end.
type singleTrie struct{ *stacktrie.Trie }

func (singleTrie) Close() error { return nil }

// newTrie returns the trie the flags ask for, reporting nodes to onNode.
func (t *trieFlags) newTrie(onNode stacktrie.NodeFunc) trie {
	if t.workers == 1 {
		return singleTrie{stacktrie.New(onNode)}
	}
	return stacktrie.NewParallel(t.workers, onNode)
}

// stringList is a flag that may be given more than once.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }

func (s *stringList) Set(v string) error {
	*s = append(*s, v)
	return nil
}

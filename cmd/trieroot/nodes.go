package main

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"os"

	"github.com/stacktrie/stacktrie"
)

// trieOutputs are what --nodes and --proof ask of a trie: its nodes written
// to a file and the proofs of some keys.
type trieOutputs struct {
	nodeFile *os.File
	nodes    *bufio.Writer
	count    int
	line     []byte
	proofs   *stacktrie.ProofSet
	keys     [][]byte
}

// open opens a command's outputs, then its input; on an error, nothing is
// left open.
func (t *trieFlags) open(e *env, path string, trieKey func(string) ([]byte, error)) (*trieOutputs, *input, error) {
	out, err := t.openOutputs(trieKey)
	if err != nil {
		return nil, nil, err
	}
	in, err := e.openInput(path, t.quiet)
	if err != nil {
		out.discard()
		return nil, nil, err
	}
	return out, in, nil
}

// openOutputs creates the node file and the proof set the flags ask for.
// trieKey turns a --proof argument into the trie key it names.
func (t *trieFlags) openOutputs(trieKey func(string) ([]byte, error)) (*trieOutputs, error) {
	out := &trieOutputs{}
	for _, arg := range t.proofs {
		key, err := trieKey(arg)
		if err != nil {
			return nil, fmt.Errorf("--proof %s: %w", abbreviate(arg), err)
		}
		out.keys = append(out.keys, key)
	}
	if len(out.keys) > 0 {
		out.proofs = stacktrie.NewProofSet(out.keys...)
	}
	if t.nodes != "" {
		f, err := os.Create(t.nodes)
		if err != nil {
			return nil, err
		}
		out.nodeFile, out.nodes = f, bufio.NewWriterSize(f, 256<<10)
	}
	return out, nil
}

// onNode is the NodeFunc that feeds the outputs, or nil when there are none.
func (t *trieOutputs) onNode() stacktrie.NodeFunc {
	switch {
	case t.nodes != nil && t.proofs != nil:
		return func(path []byte, hash stacktrie.Hash, blob []byte) {
			t.writeNode(path, hash, blob)
			t.proofs.OnNode(path, hash, blob)
		}
	case t.nodes != nil:
		return t.writeNode
	case t.proofs != nil:
		return t.proofs.OnNode
	}
	return nil
}

// writeNode writes one "path hash blob" line: the path in nibbles, one hex
// digit each, or "-" for the root; the hash and the blob in 0x-hex.
func (t *trieOutputs) writeNode(path []byte, hash stacktrie.Hash, blob []byte) {
	line := t.line[:0]
	if len(path) == 0 {
		line = append(line, '-')
	}
	for _, nibble := range path {
		line = append(line, "0123456789abcdef"[nibble&0x0f])
	}
	line = append(line, " 0x"...)
	line = hex.AppendEncode(line, hash[:])
	line = append(line, " 0x"...)
	line = hex.AppendEncode(line, blob)
	line = append(line, '\n')
	t.nodes.Write(line) // a write error is kept by the bufio.Writer and reported by close
	t.line = line
	t.count++
}

// close finishes the node file and adds the node count and the proofs to r,
// each with the value it proves, checked against root, the trie's Hash.
func (t *trieOutputs) close(r *report, root stacktrie.Hash) error {
	if t.nodeFile != nil {
		err := t.nodes.Flush()
		if cerr := t.nodeFile.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("--nodes: %w", err)
		}
		r.add("nodes", t.count)
	}
	for _, key := range t.keys {
		proof := t.proofs.Proof(key)
		value, err := stacktrie.VerifyProof(root, key, proof)
		if err != nil {
			return fmt.Errorf("the proof of %s does not verify: %w", hex0x(key), err)
		}
		p := proofEntry{Key: hex0x(key), Nodes: []string{}}
		if value != nil {
			v := hex0x(value)
			p.Value = &v
		}
		for _, node := range proof {
			p.Nodes = append(p.Nodes, hex0x(node))
		}
		r.proofs = append(r.proofs, p)
	}
	return nil
}

// discard closes the node file after a failure; what it holds is incomplete.
func (t *trieOutputs) discard() {
	if t.nodeFile != nil {
		t.nodeFile.Close()
	}
}

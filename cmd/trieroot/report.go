package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// report is what a command found: named values in a fixed order, printed as
// "name value" lines or as one JSON object with the same names.
type report struct {
	fields []field
	proofs []proofEntry
	format outputFormat
	// quiet is what --quiet prints: the root alone, or nothing.
	quiet string
	// mismatch, when set, is a check that failed; it is printed on stderr
	// after the report, and the exit status is 1.
	mismatch error
}

type field struct {
	name  string
	value any // string, int, bool, or nil for none
}

type outputFormat int

const (
	textOutput outputFormat = iota
	jsonOutput
	quietOutput
)

// proofEntry is the proof of one key: the nodes on its path, root first,
// and the value they prove, or nil when they prove the key absent.
type proofEntry struct {
	Key   string   `json:"key"`
	Value *string  `json:"value"`
	Nodes []string `json:"nodes"`
}

// add appends a named value.
func (r *report) add(name string, value any) {
	r.fields = append(r.fields, field{name, value})
}

// print writes the report to w in its format.
func (r *report) print(w io.Writer) error {
	bw := bufio.NewWriter(w)
	switch r.format {
	case quietOutput:
		if r.quiet != "" {
			fmt.Fprintln(bw, r.quiet)
		}
	case jsonOutput:
		if err := r.writeJSON(bw); err != nil {
			return err
		}
	default:
		r.writeText(bw)
	}
	return bw.Flush()
}

func (r *report) writeText(w io.Writer) {
	width := len("proof")
	for _, f := range r.fields {
		width = max(width, len(f.name))
	}
	for _, f := range r.fields {
		value := f.value
		if value == nil {
			value = "none"
		}
		fmt.Fprintf(w, "%-*s  %v\n", width, f.name, value)
	}
	for _, p := range r.proofs {
		value := "absent"
		if p.Value != nil {
			value = "value " + *p.Value
		}
		fmt.Fprintf(w, "%-*s  %s: %s, %d nodes\n", width, "proof", p.Key, value, len(p.Nodes))
		for _, n := range p.Nodes {
			fmt.Fprintf(w, "%-*s  %s\n", width, "", n)
		}
	}
}

// writeJSON writes the fields as one JSON object on one line, in order.
func (r *report) writeJSON(w io.Writer) error {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range r.fields {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := writeMember(&b, f.name, f.value); err != nil {
			return err
		}
	}
	if r.proofs != nil {
		if len(r.fields) > 0 {
			b.WriteByte(',')
		}
		if err := writeMember(&b, "proofs", r.proofs); err != nil {
			return err
		}
	}
	b.WriteString("}\n")
	_, err := w.Write(b.Bytes())
	return err
}

func writeMember(b *bytes.Buffer, name string, value any) error {
	key, err := json.Marshal(name)
	if err != nil {
		return err
	}
	val, err := json.Marshal(value)
	if err != nil {
		return err
	}
	b.Write(key)
	b.WriteByte(':')
	b.Write(val)
	return nil
}

package main

import (
	"bytes"
	"encoding/json"
)

// isPlainDump reports whether the input begins as `geth dump` without
// --iterative writes it: one object for the whole state, whose first key is
// accounts, or root followed by more, where the root line of --iterative
// closes after its root. It only peeks at the input's buffer, so that lines
// are then read from the first.
func isPlainDump(in *input) bool {
	head, _ := in.r.Peek(in.r.Size()) // what there is, when the input is shorter
	dec := json.NewDecoder(bytes.NewReader(head))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	first, err := dec.Token()
	switch {
	case err != nil:
		return false
	case first == "accounts":
		return true
	case first != "root":
		return false
	}
	var root json.RawMessage
	if err := dec.Decode(&root); err != nil {
		return false
	}
	next, err := dec.Token()
	return err != nil || next != json.Delim('}')
}

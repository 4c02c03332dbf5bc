package main

import "fmt"

// generatorProgress is go-ethereum's record of its flat state's generation
// (journalGenerator in its snapshot and pathdb packages).
type generatorProgress struct {
	done            bool
	marker          []byte // the last key generated
	accounts, slots uint64
}

// decodeGenerator reads the record: the RLP list of wiping (no longer used),
// done, marker, accounts, slots and storage size.
func decodeGenerator(blob []byte) (generatorProgress, error) {
	var p generatorProgress
	isList, payload, rest, err := rlpItem(blob)
	if err != nil || !isList || len(rest) > 0 {
		return p, fmt.Errorf("not an RLP list")
	}
	items, err := rlpItems(payload)
	if err != nil || len(items) < 5 {
		return p, fmt.Errorf("not the five or six fields of a generator record")
	}
	done, err := rlpUintOf(items[1])
	if err != nil || done > 1 {
		return p, fmt.Errorf("done is not a boolean")
	}
	p.done = done == 1
	if p.marker, err = rlpStringOf(items[2]); err != nil {
		return p, fmt.Errorf("marker is not a string")
	}
	if p.accounts, err = rlpUintOf(items[3]); err != nil {
		return p, fmt.Errorf("accounts is not a number")
	}
	if p.slots, err = rlpUintOf(items[4]); err != nil {
		return p, fmt.Errorf("slots is not a number")
	}
	return p, nil
}

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// dumpStorage is an account's storage as a dump writes it, a JSON object
// from slot key to value, both hex, kept as a list in the order written:
// a map would merge a slot written twice into one, silently.
type dumpStorage []dumpSlot

// dumpSlot is one entry of an account's storage: the slot key as geth
// writes it (the key itself, not its hash: geth leaves out a slot whose key
// it has no preimage for) and the value without leading zero bytes.
type dumpSlot struct {
	slot, value string
}

// UnmarshalJSON reads the storage object; encoding/json has checked that
// data is one well-formed JSON value.
func (s *dumpStorage) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		*s = nil
		return nil
	}
	if tok != json.Delim('{') {
		return errors.New("storage is not an object of slot to value")
	}
	list := (*s)[:0]
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		slot, ok := tok.(string)
		if !ok {
			return fmt.Errorf("storage: %v where a slot should be", tok)
		}
		var value string
		if err := dec.Decode(&value); err != nil {
			return fmt.Errorf("storage slot %s: the value is not a hex string", abbreviate(slot))
		}
		list = append(list, dumpSlot{slot, value})
	}
	*s = list
	return nil
}

package main

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
)

// Execution requests (EIP-7685), which Prague's header commits to. The
// engine API carries them as byte strings, each a request type and the SSZ
// encoding of that type's requests one after another, in ascending type
// order and without empty lists. The beacon API lists them field by field.

// requestsHash is EIP-7685's commitment: the SHA-256 of the SHA-256 hashes
// of the request lists, each its type byte and data; lists without data
// are left out.
func requestsHash(lists [][]byte) []byte {
	outer := sha256.New()
	for _, list := range lists {
		if len(list) > 1 {
			inner := sha256.Sum256(list)
			outer.Write(inner[:])
		}
	}
	return outer.Sum(nil)
}

// engineRequests reads the engine API's executionRequests.
func (src *payloadSource) engineRequests(raw json.RawMessage) error {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return fmt.Errorf("executionRequests: want an array, got %s", jsonKind(raw))
	}
	src.requestsKnown = true
	for i, item := range items {
		list, err := someBytes(item)
		switch {
		case err != nil:
			return fmt.Errorf("executionRequests[%d]: %w", i, err)
		case len(list) < 2:
			return fmt.Errorf("executionRequests[%d]: no requests after the type byte: empty lists are left out", i)
		case i > 0 && list[0] <= src.requests[i-1][0]:
			return fmt.Errorf("executionRequests[%d]: type %d after type %d: types must ascend", i, list[0], src.requests[i-1][0])
		}
		src.requests = append(src.requests, list)
	}
	return nil
}

// sszField is a field of a request: size bytes, or a uint64 written as a
// number and encoded in 8 bytes, little-endian.
type sszField struct {
	name   string
	size   int
	number bool
}

// requestKind is a request type as the beacon API names it, with its
// fields in SSZ order.
type requestKind struct {
	name   string
	typ    byte
	fields []sszField
}

// requestKinds are Prague's request types.
var requestKinds = []requestKind{
	{"deposits", 0x00, []sszField{{"pubkey", 48, false}, {"withdrawal_credentials", 32, false},
		{"amount", 8, true}, {"signature", 96, false}, {"index", 8, true}}},
	{"withdrawals", 0x01, []sszField{{"source_address", 20, false}, {"validator_pubkey", 48, false}, {"amount", 8, true}}},
	{"consolidations", 0x02, []sszField{{"source_address", 20, false}, {"source_pubkey", 48, false}, {"target_pubkey", 48, false}}},
}

// beaconRequests reads a beacon block body's execution_requests.
func (src *payloadSource) beaconRequests(raw json.RawMessage) error {
	obj, err := parseObject(raw)
	if err != nil {
		return err
	}
	known := func(name string) bool {
		return slices.ContainsFunc(requestKinds, func(k requestKind) bool { return k.name == name })
	}
	if name := unknownMember(obj, known); name != "" {
		return fmt.Errorf("unknown request type %q: a fork after Prague?", name)
	}
	src.requestsKnown = true
	for _, kind := range requestKinds {
		if obj[kind.name] == nil {
			return fmt.Errorf("no %s", kind.name)
		}
		items, err := objectList(obj[kind.name])
		if err != nil {
			return fmt.Errorf("%s: %w", kind.name, err)
		}
		if len(items) == 0 {
			continue
		}
		list := []byte{kind.typ}
		for i, item := range items {
			if list, err = appendSSZ(list, item, kind.fields); err != nil {
				return fmt.Errorf("%s[%d].%w", kind.name, i, err)
			}
		}
		src.requests = append(src.requests, list)
	}
	return nil
}

// appendSSZ appends the SSZ encoding of a request given as a JSON object:
// its fields in order, each of fixed size.
func appendSSZ(dst []byte, obj jsonObject, fields []sszField) ([]byte, error) {
	known := func(name string) bool {
		return slices.ContainsFunc(fields, func(f sszField) bool { return f.name == name })
	}
	if name := unknownMember(obj, known); name != "" {
		return nil, fmt.Errorf("%s: unknown field", name)
	}
	for _, f := range fields {
		raw := obj[f.name]
		if raw == nil {
			return nil, fmt.Errorf("%s: missing", f.name)
		}
		if f.number {
			n, err := number(raw)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.name, err)
			}
			dst = binary.LittleEndian.AppendUint64(dst, n)
			continue
		}
		b, err := fixedBytes(raw, f.size)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
		dst = append(dst, b...)
	}
	return dst, nil
}

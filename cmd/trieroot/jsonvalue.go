package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/holiman/uint256"
)

// Decoders of the JSON values in payloads. Both APIs write bytes as
// 0x-hex strings; numbers are hex quantities in the engine API and decimal
// strings in the beacon API, and either is taken in both.

// jsonText is the string raw holds.
func jsonText(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("want a string, got %s", jsonKind(raw))
	}
	return s, nil
}

// fixedBytes decodes a hex string of exactly size bytes.
func fixedBytes(raw json.RawMessage, size int) ([]byte, error) {
	s, err := jsonText(raw)
	if err != nil {
		return nil, err
	}
	return decodeFixedHex(s, size)
}

// someBytes decodes a hex string of any length.
func someBytes(raw json.RawMessage) ([]byte, error) {
	s, err := jsonText(raw)
	if err != nil {
		return nil, err
	}
	return decodeHex(nil, s)
}

// bigNumber decodes a number below 2^256: a 0x-hex or decimal string, or a
// JSON number.
func bigNumber(raw json.RawMessage) (*uint256.Int, error) {
	text := string(raw)
	if strings.HasPrefix(text, `"`) {
		var err error
		if text, err = jsonText(raw); err != nil {
			return nil, err
		}
	}
	var n uint256.Int
	if err := n.UnmarshalText([]byte(text)); err != nil {
		return nil, fmt.Errorf("%s is not a number: want decimal, or hex with 0x and no leading zeros", abbreviate(text))
	}
	return &n, nil
}

// number decodes a number below 2^64, like bigNumber.
func number(raw json.RawMessage) (uint64, error) {
	n, err := bigNumber(raw)
	if err != nil {
		return 0, err
	}
	if !n.IsUint64() {
		return 0, fmt.Errorf("%s is more than 64 bits", n.Dec())
	}
	return n.Uint64(), nil
}

// objectList decodes a JSON array of objects.
func objectList(raw json.RawMessage) ([]jsonObject, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("want an array, got %s", jsonKind(raw))
	}
	objs := make([]jsonObject, len(items))
	for i, item := range items {
		obj, err := parseObject(item)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		objs[i] = obj
	}
	return objs, nil
}

// unknownMember returns the first member of obj, in name order, that is
// not among known, or "".
func unknownMember(obj jsonObject, known func(string) bool) string {
	first := ""
	for name := range obj {
		if !known(name) && (first == "" || name < first) {
			first = name
		}
	}
	return first
}

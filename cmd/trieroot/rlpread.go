package main

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/stacktrie/stacktrie/internal/rlp"
)

// errRLP refuses bytes that are not the RLP trieroot geth expects.
var errRLP = errors.New("malformed RLP")

// rlpItem splits the first RLP item off data: whether it is a list, its
// payload, and the bytes after it. It reads with the stacktrie module's
// strict reader, which go-ethereum's canonical encodings always pass.
func rlpItem(data []byte) (isList bool, payload, rest []byte, err error) {
	isList, payload, rest, err = rlp.Split(data)
	if err != nil {
		return false, nil, nil, fmt.Errorf("%w: %w", errRLP, err)
	}
	return isList, payload, rest, nil
}

// rlpItems splits a list's payload into the encodings of its items.
func rlpItems(payload []byte) ([][]byte, error) {
	var items [][]byte
	for len(payload) > 0 {
		_, _, rest, err := rlpItem(payload)
		if err != nil {
			return nil, err
		}
		items = append(items, payload[:len(payload)-len(rest)])
		payload = rest
	}
	return items, nil
}

// rlpStringOf returns the payload of an encoded string, refusing a list.
func rlpStringOf(item []byte) ([]byte, error) {
	isList, payload, rest, err := rlpItem(item)
	if err != nil || isList || len(rest) > 0 {
		return nil, errRLP
	}
	return payload, nil
}

// rlpUintOf decodes an encoded unsigned integer of up to 8 bytes.
func rlpUintOf(item []byte) (uint64, error) {
	b, err := rlpStringOf(item)
	if err != nil || len(b) > 8 {
		return 0, errRLP
	}
	var buf [8]byte
	copy(buf[8-len(b):], b)
	return binary.BigEndian.Uint64(buf[:]), nil
}

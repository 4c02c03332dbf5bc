package main

import (
	"encoding/binary"
	"errors"
)

// errRLP refuses bytes that are not the RLP trieroot geth expects.
var errRLP = errors.New("malformed RLP")

// rlpItem splits the first RLP item off data: whether it is a list, its
// payload, and the bytes after it. It checks only that the sizes fit.
func rlpItem(data []byte) (isList bool, payload, rest []byte, err error) {
	if len(data) == 0 {
		return false, nil, nil, errRLP
	}
	b := data[0]
	var start, size uint64
	switch {
	case b < 0x80:
		return false, data[:1], data[1:], nil
	case b < 0xb8:
		start, size = 1, uint64(b-0x80)
	case b < 0xc0:
		start, size, err = longSize(data, b-0xb7)
	case b < 0xf8:
		isList, start, size = true, 1, uint64(b-0xc0)
	default:
		isList = true
		start, size, err = longSize(data, b-0xf7)
	}
	if err != nil || size > uint64(len(data))-start {
		return false, nil, nil, errRLP
	}
	return isList, data[start : start+size], data[start+size:], nil
}

// longSize reads the size of an item whose header holds n bytes of it.
func longSize(data []byte, n byte) (start, size uint64, err error) {
	if uint64(len(data)) < 1+uint64(n) || n > 8 {
		return 0, 0, errRLP
	}
	var buf [8]byte
	copy(buf[8-n:], data[1:1+n])
	return 1 + uint64(n), binary.BigEndian.Uint64(buf[:]), nil
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

package reftrie

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/assert"
)

func unhex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func TestRLPString(t *testing.T) {
	lorem := "Lorem ipsum dolor sit amet, consectetur adipisicing elit" // 56 bytes
	tests := []struct {
		name string
		in   []byte
		want []byte
	}{
		{"empty", nil, unhex("80")},
		{"zero byte", []byte{0x00}, unhex("00")},
		{"byte 0x7f", []byte{0x7f}, unhex("7f")},
		{"byte 0x80", []byte{0x80}, unhex("8180")},
		{"dog", []byte("dog"), unhex("83646f67")},
		{"55 bytes", bytes.Repeat([]byte{1}, 55), append(unhex("b7"), bytes.Repeat([]byte{1}, 55)...)},
		{"56 bytes", []byte(lorem), append(unhex("b838"), lorem...)},
		{"256 bytes", make([]byte, 256), append(unhex("b90100"), make([]byte, 256)...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, rlpString(tt.in))
		})
	}
}

func TestRLPList(t *testing.T) {
	assert.Equal(t, unhex("c0"), rlpList())
	assert.Equal(t, unhex("c88363617483646f67"), rlpList(rlpString([]byte("cat")), rlpString([]byte("dog"))))
	// [[], [[]], [[], [[]]]], the "set theoretical representation of three".
	assert.Equal(t, unhex("c7c0c1c0c3c0c1c0"), rlpList(rlpList(), rlpList(rlpList()), rlpList(rlpList(), rlpList(rlpList()))))
	long := bytes.Repeat([]byte{0x01}, 56)
	assert.Equal(t, append(unhex("f838"), long...), rlpList(long))
}

func TestHexPrefix(t *testing.T) {
	tests := []struct {
		nibbles []byte
		leaf    bool
		want    string
	}{
		{nil, false, "00"},
		{nil, true, "20"},
		{[]byte{1, 2, 3, 4, 5}, false, "112345"},
		{[]byte{0, 1, 2, 3, 4, 5}, false, "00012345"},
		{[]byte{0, 15, 1, 12, 11, 8}, true, "200f1cb8"},
		{[]byte{15, 1, 12, 11, 8}, true, "3f1cb8"},
		{[]byte{7}, true, "37"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, hex.EncodeToString(hexPrefix(tt.nibbles, tt.leaf)), "nibbles %x leaf %v", tt.nibbles, tt.leaf)
	}
}

func TestKeyNibbles(t *testing.T) {
	assert.Equal(t, []byte{}, KeyNibbles(nil))
	assert.Equal(t, []byte{0, 0, 1, 2, 15, 15}, KeyNibbles([]byte{0x00, 0x12, 0xff}))
}

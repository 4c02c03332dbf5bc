package main

import (
	"encoding/hex"
	"flag"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeHex(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{"0x", "", ""},
		{"", "", ""},
		{"0xAbCd", "abcd", ""},
		{"abcd", "abcd", ""},
		{"0X01", "01", ""},
		{"0x1", "", "0x1: odd number of hex digits"},
		{"0x0g", "", `0x0g: 'g' is not a hex digit`},
		{"0x" + strings.Repeat("0", 100) + "q", "", "0x0000000000000000000000...00000000000000000000000q: odd number of hex digits"},
	}
	for _, tt := range tests {
		got, err := decodeHex(nil, tt.in)
		if tt.err != "" {
			assert.EqualError(t, err, tt.err, tt.in)
			continue
		}
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, hex.EncodeToString(got), tt.in)
	}
}

// TestRequestsHash checks EIP-7685's commitment on lists small enough to
// work out by hand: no lists at all hash as SHA-256 of nothing, and lists
// without data are left out.
func TestRequestsHash(t *testing.T) {
	empty := "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	assert.Equal(t, empty, hex.EncodeToString(requestsHash(nil)))
	assert.Equal(t, empty, hex.EncodeToString(requestsHash([][]byte{{0x00}, {0x01}})))
	one := requestsHash([][]byte{{0x02, 0xaa}})
	assert.Equal(t, one, requestsHash([][]byte{{0x00}, {0x02, 0xaa}}))
	assert.NotEqual(t, one, requestsHash([][]byte{{0x01, 0xaa}}), "the type byte is hashed")
}

func TestParseInterleaved(t *testing.T) {
	tests := []struct {
		args  []string
		files []string
		json  bool
	}{
		{[]string{"--json", "a"}, []string{"a"}, true},
		{[]string{"a", "--json"}, []string{"a"}, true},
		{[]string{"-", "-json"}, []string{"-"}, true},
		{[]string{"a", "--", "--json"}, []string{"a", "--json"}, false},
		{[]string{"--", "-x"}, []string{"-x"}, false},
		{nil, nil, false},
	}
	for _, tt := range tests {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		jsonFlag := fs.Bool("json", false, "")
		files, err := parseInterleaved(fs, tt.args)
		require.NoError(t, err, tt.args)
		assert.Equal(t, tt.files, files, tt.args)
		assert.Equal(t, tt.json, *jsonFlag, tt.args)
	}
}

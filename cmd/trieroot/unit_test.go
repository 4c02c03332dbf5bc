package main

import (
	"encoding/hex"
	"flag"
	"strings"
	"testing"

	"github.com/holiman/uint256"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRLP(t *testing.T) {
	long := strings.Repeat("ab", 56)
	tests := []struct {
		name string
		enc  []byte
		want string
	}{
		{"zero", rlpUint(nil, 0), "80"},
		{"single byte", rlpUint(nil, 0x7f), "7f"},
		{"byte 0x80", rlpUint(nil, 0x80), "8180"},
		{"uint64", rlpUint(nil, 1<<63), "888000000000000000"},
		{"uint256 above 2^64", rlpUint256(nil, new(uint256.Int).Lsh(uint256.NewInt(1), 64)), "89010000000000000000"},
		{"empty string", rlpString(nil, nil), "80"},
		{"55 bytes", rlpString(nil, make([]byte, 55)), "b7" + strings.Repeat("00", 55)},
		{"56 bytes", rlpString(nil, unhex(t, long)), "b838" + long},
		{"empty list", rlpList(nil, nil), "c0"},
		{"list of 56 bytes", rlpList(nil, unhex(t, long)), "f838" + long},
		{"list of 1024 bytes", rlpList(nil, make([]byte, 1024))[:3], "f90400"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, hex.EncodeToString(tt.enc), tt.name)
	}
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

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

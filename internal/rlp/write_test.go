package rlp

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWriteVectors checks the writers against encodings worked out by hand
// from the RLP rules of the Yellow Paper, appendix B.
func TestWriteVectors(t *testing.T) {
	long := bytes.Repeat([]byte{0xab}, 56)
	tests := []struct {
		name string
		enc  []byte
		want string
	}{
		{"uint zero", AppendUint(nil, 0), "80"},
		{"uint one", AppendUint(nil, 1), "01"},
		{"uint 0x7f", AppendUint(nil, 0x7f), "7f"},
		{"uint 0x80", AppendUint(nil, 0x80), "8180"},
		{"uint 1024", AppendUint(nil, 1024), "820400"},
		{"uint 2^63", AppendUint(nil, 1<<63), "888000000000000000"},
		{"uint max", AppendUint(nil, ^uint64(0)), "88ffffffffffffffff"},
		{"empty string", AppendString(nil, nil), "80"},
		{"byte 0x00", AppendString(nil, []byte{0}), "00"},
		{"byte 0x7f", AppendString(nil, []byte{0x7f}), "7f"},
		{"byte 0x80", AppendString(nil, []byte{0x80}), "8180"},
		{"dog", AppendString(nil, []byte("dog")), "83646f67"},
		{"55 bytes", AppendString(nil, make([]byte, 55)), "b7" + strings.Repeat("00", 55)},
		{"56 bytes", AppendString(nil, long), "b838" + hex.EncodeToString(long)},
		{"string of 1024 bytes", AppendString(nil, make([]byte, 1024))[:3], "b90400"},
		{"empty list", AppendList(nil, nil), "c0"},
		{"list of 56 bytes", AppendList(nil, long), "f838" + hex.EncodeToString(long)},
		{"list of 1024 bytes", AppendList(nil, make([]byte, 1024))[:3], "f90400"},
		{"list header of 2^24 bytes", AppendHeader(nil, List, 1<<24), "fb01000000"},
		{"appends", AppendString([]byte{0xee}, []byte("a")), "ee61"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, hex.EncodeToString(tt.enc), tt.name)
	}
}

// TestWriteReadsBack writes strings and lists of every size around the
// header boundaries and checks that Split reads each back whole, and that
// the sizes agree with what was written.
func TestWriteReadsBack(t *testing.T) {
	for _, n := range []int{0, 1, 2, 54, 55, 56, 57, 255, 256, 257, 65535, 65536, 1 << 20} {
		payload := bytes.Repeat([]byte{0x99}, n)
		str := AppendString(nil, payload)
		require.Len(t, str, StringSize(payload), "string of %d bytes", n)
		require.Len(t, str, HeaderSize(n)+n, "string of %d bytes", n)
		list, got, rest, err := Split(str)
		require.NoError(t, err, "string of %d bytes", n)
		assert.False(t, list)
		assert.Equal(t, payload, got)
		assert.Empty(t, rest)

		lst := AppendList(nil, payload)
		require.Len(t, lst, HeaderSize(n)+n, "list of %d bytes", n)
		var put [9]byte
		require.Equal(t, lst[:HeaderSize(n)], put[:PutHeader(put[:], List, n)], "list of %d bytes", n)
		list, got, rest, err = Split(lst)
		require.NoError(t, err, "list of %d bytes", n)
		assert.True(t, list)
		assert.Equal(t, payload, got)
		assert.Empty(t, rest)
	}
	for _, v := range []uint64{0, 1, 0x7f, 0x80, 0xff, 0x100, 1<<56 - 1, 1 << 56, ^uint64(0)} {
		list, got, rest, err := Split(AppendUint(nil, v))
		require.NoError(t, err, "%d", v)
		assert.False(t, list)
		assert.Empty(t, rest)
		var back uint64
		for _, c := range got {
			back = back<<8 | uint64(c)
		}
		assert.Equal(t, v, back)
		if len(got) > 0 {
			assert.NotZero(t, got[0], "%d: a leading zero byte", v)
		}
	}
}

package rlp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSplit(t *testing.T) {
	long := strings.Repeat("x", 56)
	tests := []struct {
		name          string
		in            string
		list          bool
		payload, rest string
		err           error
	}{
		{"single byte", "\x7f!", false, "\x7f", "!", nil},
		{"zero byte", "\x00", false, "\x00", "", nil},
		{"empty string", "\x80rest", false, "", "rest", nil},
		{"short string", "\x83abc", false, "abc", "", nil},
		{"byte above 0x7f", "\x81\x80", false, "\x80", "", nil},
		{"55-byte string", "\xb7" + long[:55] + "!", false, long[:55], "!", nil},
		{"56-byte string", "\xb8\x38" + long, false, long, "", nil},
		{"empty list", "\xc0\x80", true, "", "\x80", nil},
		{"short list", "\xc3\x01\x02\x03", true, "\x01\x02\x03", "", nil},
		{"long list", "\xf8\x38" + long, true, long, "", nil},
		{"nothing", "", false, "", "", ErrEmpty},
		{"string cut short", "\x83ab", false, "", "", ErrTruncated},
		{"list cut short", "\xc2\x01", false, "", "", ErrTruncated},
		{"size cut short", "\xb9\x01", false, "", "", ErrTruncated},
		{"size of eight bytes past any input", "\xbf\xff\xff\xff\xff\xff\xff\xff\xff", false, "", "", ErrTruncated},
		{"size with a leading zero", "\xb9\x00\x38" + long, false, "", "", ErrLeadingZero},
		{"long header, short string", "\xb8\x37" + long[:55], false, "", "", ErrLongHeader},
		{"long header, short list", "\xf8\x01\x01", false, "", "", ErrLongHeader},
		{"single byte with a header", "\x81\x7f", false, "", "", ErrSingleByte},
		{"single byte in a list is fine", "\xc1\x7f", true, "\x7f", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, payload, rest, err := Split([]byte(tt.in))
			assert.Equal(t, tt.err, err)
			assert.Equal(t, tt.list, list)
			assert.Equal(t, tt.payload, string(payload))
			assert.Equal(t, tt.rest, string(rest))
		})
	}
}

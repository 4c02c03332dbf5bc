package main

import (
	"encoding/hex"
	"fmt"
	"strings"
)

// decodeHex decodes hex digits with or without a 0x prefix, appending the
// bytes to dst, with errors that say what is wrong with the text.
func decodeHex(dst []byte, s string) ([]byte, error) {
	digits := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(digits)%2 == 1 {
		return nil, fmt.Errorf("%s: odd number of hex digits", abbreviate(s))
	}
	for i := 0; i < len(digits); i++ {
		if !isHexDigit(digits[i]) {
			return nil, fmt.Errorf("%s: %q is not a hex digit", abbreviate(s), digits[i])
		}
	}
	n := len(dst)
	dst = append(dst, make([]byte, len(digits)/2)...)
	hex.Decode(dst[n:], []byte(digits))
	return dst, nil
}

// decodeFixedHex decodes hex that must be exactly size bytes long.
func decodeFixedHex(s string, size int) ([]byte, error) {
	b, err := decodeHex(nil, s)
	if err != nil {
		return nil, err
	}
	if len(b) != size {
		return nil, fmt.Errorf("%s: %d bytes, want %d", abbreviate(s), len(b), size)
	}
	return b, nil
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// hex0x formats bytes as 0x-prefixed lowercase hex.
func hex0x(b []byte) string {
	return "0x" + hex.EncodeToString(b)
}

// abbreviate shortens long text quoted in an error message.
func abbreviate(s string) string {
	const keep = 24
	if len(s) <= 2*keep+3 {
		return s
	}
	return s[:keep] + "..." + s[len(s)-keep:]
}

package compat_test

import (
	"errors"
	"io"
	"testing"

	gethrlp "github.com/ethereum/go-ethereum/rlp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie/internal/rlp"
)

// FuzzRLPSplit checks the module's one RLP reader, behind proofs, nodes,
// accounts and trieroot's database values, against go-ethereum's rlp.Split:
// the same items accepted, split the same way, and refusals of the same
// kind, input that ends too soon or an encoding that is not canonical.
func FuzzRLPSplit(f *testing.F) {
	for _, seed := range []string{
		"", "\x00", "\x7f", "\x80", "\x81\x7f", "\x81\x80", "\x83abc!", "\xb8\x37", "\xb8\x38",
		"\xb9\x00\x38", "\xbf\xff\xff\xff\xff\xff\xff\xff\xff", "\xc0", "\xc3\x01\x02", "\xf8\x01\x01", "\xf8\x38",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		list, payload, rest, err := rlp.Split(data)
		kind, gethPayload, gethRest, gethErr := gethrlp.Split(data)
		if gethErr != nil {
			require.Error(t, err, "go-ethereum refuses %x: %v", data, gethErr)
			short := errors.Is(gethErr, io.ErrUnexpectedEOF) || errors.Is(gethErr, gethrlp.ErrValueTooLarge)
			assert.Equal(t, short, errors.Is(err, rlp.ErrEmpty) || errors.Is(err, rlp.ErrTruncated),
				"%x: go-ethereum %v, ours %v", data, gethErr, err)
			return
		}
		require.NoError(t, err, "go-ethereum accepts %x", data)
		assert.Equal(t, kind == gethrlp.List, list)
		assert.Equal(t, gethPayload, payload)
		assert.Equal(t, gethRest, rest)
	})
}

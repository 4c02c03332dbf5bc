//go:build !race

// The race detector allocates on its own, so allocation counts are only
// meaningful without it. Every count here is exact, one use at a time
// (testgen.AllocsPerUse).

package state_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie/internal/testgen"
	"github.com/stacktrie/stacktrie/state"
)

// noAllocs is what testgen.AllocsPerUse returns for a use that allocates
// nothing.
var noAllocs = make([]uint64, testgen.UsesAfterFirst)

// TestAccountAllocs counts, one use at a time, what encoding and decoding
// allocate: nothing, even when the input is refused.
func TestAccountAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 0, 256)
	malformed := rlpOf(rlpItem(nil), rlpItem(nil), rlpItem([]byte{1, 2}), rlpItem(nil))
	for range 20 {
		a := randomAccount(r)
		full, slim := a.AppendRLP(nil), a.AppendSlimRLP(nil)
		var got state.Account
		uses := map[string]func(){
			"AppendRLP":                 func() { buf = a.AppendRLP(buf[:0]) },
			"AppendSlimRLP":             func() { buf = a.AppendSlimRLP(buf[:0]) },
			"DecodeRLP full":            func() { require.NoError(t, got.DecodeRLP(full)) },
			"DecodeRLP slim":            func() { require.NoError(t, got.DecodeRLP(slim)) },
			"DecodeRLP refusing":        func() { require.Error(t, got.DecodeRLP(malformed)) },
			"DecodeRLP refusing a list": func() { require.Error(t, got.DecodeRLP(full[:len(full)-1])) },
		}
		for name, use := range uses {
			counts := testgen.AllocsPerUse(func() func() { return use })
			assert.Equal(t, noAllocs, counts, "%s of %x", name, full)
		}
	}
}

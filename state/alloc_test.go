//go:build !race

// The race detector allocates on its own, so allocation counts are only
// meaningful without it. Every count here is exact, one use at a time
// (testgen.AllocsPerUse).

package state_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
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

// TestBuilderAllocs counts what a reused Builder allocates for a whole
// stream, from Reset to Finish, one stream at a time: nothing, with one
// worker or several, with or without callbacks, for large contracts cut
// into chunks as for many small ones.
func TestBuilderAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	var nodes, accounts int
	callbacks := state.Options{
		OnNode:    func(stacktrie.Hash, []byte, stacktrie.Hash, []byte) { nodes++ },
		OnAccount: func(state.AccountResult) { accounts++ },
	}
	for _, shape := range []stateShape{stateShapes[3], stateShapes[4], stateShapes[5], stateShapes[8], stateShapes[9]} {
		s := shape.generate(r)
		for _, workers := range []int{1, 2} {
			for _, opts := range []state.Options{{}, callbacks} {
				opts.Workers = workers
				name := fmt.Sprintf("%s/%d workers/callbacks %v", shape.name, workers, opts.OnNode != nil)
				t.Run(name, func(t *testing.T) {
					var want stacktrie.Hash
					start := func() func() {
						b := state.NewBuilder(opts)
						t.Cleanup(func() { b.Close() })
						return func() {
							b.Reset()
							if err := s.feed(b); err != nil {
								t.Fatal(err)
							}
							want = b.Finish().Root
						}
					}
					nodes, accounts = 0, 0
					assert.Equal(t, noAllocs, testgen.AllocsPerUse(start))
					assert.Equal(t, oracleState(s).root, want)
					if opts.OnNode != nil {
						assert.Positive(t, nodes)
						assert.Positive(t, accounts)
					}
				})
			}
		}
	}
}

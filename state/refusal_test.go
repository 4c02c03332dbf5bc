package state_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
	"github.com/stacktrie/stacktrie/state"
)

// TestBuilderRefusals feeds states with bad calls among the good ones, at
// random places, chunk boundaries among them: each bad call must be refused
// with its error, and the Builder must then give exactly what the good calls
// alone give.
func TestBuilderRefusals(t *testing.T) {
	requireNoLeak(t)
	seed := testgen.Seed(t)
	r := rand.New(rand.NewPCG(seed, 7))
	for _, shape := range []stateShape{stateShapes[2], stateShapes[4], stateShapes[6]} {
		t.Run(shape.name, func(t *testing.T) {
			s := shape.generate(r)
			want := oracleState(s)
			rec := newNodeRecorder()
			b := state.NewBuilder(rec.options(2))
			defer b.Close()

			// About a hundred refusals a state, and at least one.
			bad := refusals{t: t, r: r, b: b, every: max(2, (len(s)+s.slotCount())/100)}
			bad.slotBeforeAccount()
			for i := range s {
				a := &s[i]
				if i > 0 {
					bad.maybe(bad.accountOutOfOrder)
				}
				bad.maybe(func() { bad.malformedAccount(a.hash) })
				require.NoError(t, b.AddAccount(a.hash, a.encoded))
				bad.current, bad.hasSlot = a.hash, false
				for _, sl := range a.slots {
					bad.maybe(bad.emptySlot)
					bad.maybe(bad.slotOutOfOrder)
					require.NoError(t, b.AddSlot(sl.hash, sl.value))
					bad.last, bad.hasSlot = sl.hash, true
				}
			}
			require.Greater(t, bad.count, 1)
			checkAgainstOracle(t, s, want, b.Finish(), rec, fmt.Sprintf("after %d refusals", bad.count))
		})
	}
}

// refusals makes bad calls to a Builder and checks that each is refused.
type refusals struct {
	t       *testing.T
	r       *rand.Rand
	b       *state.Builder
	every   int // one good call in every makes a bad call before it, on average
	count   int
	current stacktrie.Hash // the current account
	last    stacktrie.Hash // its last slot, if hasSlot
	hasSlot bool
}

func (f *refusals) maybe(call func()) {
	if f.r.IntN(f.every) == 0 {
		call()
		f.count++
	}
}

func (f *refusals) slotBeforeAccount() {
	require.ErrorIs(f.t, f.b.AddSlot(stacktrie.Hash{1}, []byte{1}), state.ErrSlotOrder)
	f.count++
}

// accountOutOfOrder gives, with a valid encoding, the current account's
// hash again or one below it.
func (f *refusals) accountOutOfOrder() {
	h := f.current
	if f.r.IntN(2) == 0 && h[31] > 0 {
		h[31]--
	}
	empty := rlpItem(nil)
	require.ErrorIs(f.t, f.b.AddAccount(h, rlpOf(empty, empty, empty, empty)), state.ErrAccountOrder)
}

// malformedAccount gives the next account's hash with a bad encoding.
func (f *refusals) malformedAccount(next stacktrie.Hash) {
	bad := [][]byte{
		nil,
		rlpOf(rlpItem(nil), rlpItem(nil), rlpItem(nil)),
		rlpOf(rlpItem([]byte{0, 1}), rlpItem(nil), rlpItem(nil), rlpItem(nil)),
		rlpOf(rlpItem(nil), rlpItem(nil), rlpItem([]byte{1, 2, 3}), rlpItem(nil)),
	}[f.r.IntN(4)]
	require.ErrorIs(f.t, f.b.AddAccount(next, bad), state.ErrAccount)
}

func (f *refusals) emptySlot() {
	key := stacktrie.Hash(testgen.Value(f.r, 32))
	require.ErrorIs(f.t, f.b.AddSlot(key, nil), state.ErrEmptySlot)
}

// slotOutOfOrder gives the last slot's key again, or one below it.
func (f *refusals) slotOutOfOrder() {
	if !f.hasSlot {
		return
	}
	key := f.last
	if f.r.IntN(2) == 0 && key[0] > 0 {
		key[0]--
	}
	require.ErrorIs(f.t, f.b.AddSlot(key, []byte{1}), state.ErrSlotOrder)
}

package state_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
	"github.com/stacktrie/stacktrie/state"
)

// TestHashAllRefuses spoils a state in each way a stream can be refused,
// at the start, in the middle and at the end, in a storage trie HashAll
// splits among its workers and in one it does not: HashAll must give the
// error a stream gives at the first spoiled account or slot, report
// nothing, and leave the Builder's last result as it was.
func TestHashAllRefuses(t *testing.T) {
	requireNoLeak(t)
	seed := testgen.Seed(t)
	r := rand.New(rand.NewPCG(seed, 14))
	s := stateShapes[6].generate(r) // twelve contracts, of 0 to 5,000 slots
	good := s.inMemory()
	wantRoot := oracleState(s).root
	type spoil struct {
		name  string
		apply func(accounts []state.FlatAccount, i int)
	}
	spoils := []spoil{
		{"account repeated", func(a []state.FlatAccount, i int) { a[i].Hash = a[max(i-1, 0)].Hash }},
		{"account below the one before", func(a []state.FlatAccount, i int) { a[i].Hash = stacktrie.Hash{} }},
		{"account above the one after", func(a []state.FlatAccount, i int) { a[i].Hash = stacktrie.Hash{0xff, 0xff} }},
		{"malformed account", func(a []state.FlatAccount, i int) { a[i].RLP = a[i].RLP[:len(a[i].RLP)-1] }},
		{"empty account", func(a []state.FlatAccount, i int) { a[i].RLP = nil }},
		{"empty slot value", func(a []state.FlatAccount, i int) {
			spoilSlot(a[i].Slots, func(sl []state.FlatSlot, k int) { sl[k].Value = nil })
		}},
		{"slot repeated", func(a []state.FlatAccount, i int) {
			spoilSlot(a[i].Slots, func(sl []state.FlatSlot, k int) { sl[k].Hash = sl[max(k-1, 0)].Hash })
		}},
		{"slot below the one before", func(a []state.FlatAccount, i int) {
			spoilSlot(a[i].Slots, func(sl []state.FlatSlot, k int) { sl[k].Hash = stacktrie.Hash{} })
		}},
		{"slot above the one after", func(a []state.FlatAccount, i int) {
			spoilSlot(a[i].Slots, func(sl []state.FlatSlot, k int) { sl[k].Hash = stacktrie.Hash{0xff, 0xff} })
		}},
	}
	for _, workers := range []int{1, 2, 3} {
		for _, callbacks := range []bool{false, true} {
			rec := newNodeRecorder()
			opts := state.Options{Workers: workers}
			if callbacks {
				opts = rec.options(workers)
			}
			b := state.NewBuilder(opts)
			before, err := b.HashAll(good)
			require.NoError(t, err)
			require.Equal(t, wantRoot, before.Root)
			for _, sp := range spoils {
				for _, i := range []int{0, 1, 3, 8, len(good) - 1} { // 3 and 8 hold 3,000 and 5,000 slots
					msg := fmt.Sprintf("%d workers, callbacks %v, %s at account %d", workers, callbacks, sp.name, i)
					bad := spoiled(good, func(a []state.FlatAccount) { sp.apply(a, i) })
					want := streamError(bad)
					if want == nil {
						continue // the spoil left this account as it was: no slot to spoil
					}
					rec.nodes, rec.accounts = map[stacktrie.Hash][]node{}, nil
					got, err := b.HashAll(bad)
					require.Error(t, err, msg)
					assert.Equal(t, want.Error(), err.Error(), msg)
					assert.Equal(t, state.Result{}, got, msg)
					assert.Equal(t, before, b.Finish(), "%s: the last result", msg)
					assert.Empty(t, rec.nodes, msg)
					assert.Empty(t, rec.accounts, msg)
				}
			}
			after, err := b.HashAll(good)
			require.NoError(t, err)
			assert.Equal(t, before, after, "after the refusals")
			require.NoError(t, b.Close())
		}
	}
}

// spoilSlot spoils a slot in the middle of slots, if there is one.
func spoilSlot(slots []state.FlatSlot, spoil func([]state.FlatSlot, int)) {
	if len(slots) > 0 {
		spoil(slots, len(slots)/2)
	}
}

// spoiled is a copy of accounts, slots included, that spoil changed.
func spoiled(accounts []state.FlatAccount, spoil func([]state.FlatAccount)) []state.FlatAccount {
	c := slices.Clone(accounts)
	for i := range c {
		c[i].Slots = slices.Clone(c[i].Slots)
	}
	spoil(c)
	return c
}

// streamError is the error a Builder's stream gives for the first account
// or slot of accounts it refuses, or nil.
func streamError(accounts []state.FlatAccount) error {
	b := state.NewBuilder(state.Options{Workers: 1})
	defer b.Close()
	for _, a := range accounts {
		if err := b.AddAccount(a.Hash, a.RLP); err != nil {
			return err
		}
		for _, sl := range a.Slots {
			if err := b.AddSlot(sl.Hash, sl.Value); err != nil {
				return err
			}
		}
	}
	return nil
}

// TestHashAllAndStreams mixes HashAll with streams on one Builder: HashAll
// refuses an open stream and leaves it as it was, and a stream after
// HashAll needs Reset.
func TestHashAllAndStreams(t *testing.T) {
	requireNoLeak(t)
	r := rand.New(rand.NewPCG(15, 16))
	s := stateShapes[5].generate(r)
	want := oracleState(s).root
	b := state.NewBuilder(state.Options{Workers: 2})
	defer b.Close()

	require.NoError(t, s[:1].feed(b))
	_, err := b.HashAll(s.inMemory())
	require.ErrorIs(t, err, state.ErrStreamOpen)
	require.NoError(t, s[1:].feed(b))
	assert.Equal(t, want, b.Finish().Root, "the stream HashAll refused")

	got, err := b.HashAll(s.inMemory())
	require.NoError(t, err, "HashAll after Finish")
	assert.Equal(t, want, got.Root)
	assert.ErrorIs(t, b.AddAccount(s[0].hash, s[0].encoded), state.ErrFinished)
	b.Reset()
	require.NoError(t, s.feed(b))
	assert.Equal(t, want, b.Finish().Root, "a stream after HashAll and Reset")
}

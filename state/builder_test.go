package state_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
	"github.com/stacktrie/stacktrie/state"
)

// requireNoLeak fails if goroutines started during the test are still there
// a moment after it.
func requireNoLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(2 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		assert.LessOrEqual(t, runtime.NumGoroutine(), before, "goroutines left behind")
	})
}

// checkAgainstOracle checks what a Builder gave for s against the reference
// trie: the state root and counts, every account's report in stream order
// with its computed storage root, and every node of every trie, by owner,
// each after the nodes below it.
func checkAgainstOracle(t *testing.T, s flatState, want stateAnswer, got state.Result, rec *nodeRecorder, msg string) {
	t.Helper()
	require.Equal(t, want.root, got.Root, "%s: state root", msg)
	assert.Equal(t, uint64(len(s)), got.Accounts, msg)
	assert.Equal(t, uint64(s.slotCount()), got.Slots, msg)
	assert.Equal(t, want.mismatches, got.Mismatches, msg)
	require.Len(t, rec.accounts, len(s), msg)
	for i, a := range s {
		report := rec.accounts[i]
		assert.Equal(t, state.AccountResult{
			Hash: a.hash, Slots: uint64(len(a.slots)), StoredRoot: a.account.Root, ComputedRoot: want.storage[i].root,
		}, report, "%s: account %d", msg, i)
		assert.Equal(t, a.account.Root != want.storage[i].root, report.Mismatch(), msg)
	}
	if rec.withoutNodes {
		return
	}
	assert.Len(t, rec.nodes, len(want.nodes), "%s: tries with nodes", msg)
	for owner, wantNodes := range want.nodes {
		nodes := rec.nodes[owner]
		first, ok := childrenFirst(nodes)
		assert.True(t, ok, "%s: owner %s: node %v reported before a node below it", msg, owner, first)
		sortNodes(nodes)
		if !assert.Equal(t, wantNodes, nodes, "%s: nodes of owner %s", msg, owner) {
			return
		}
	}
}

// TestBuilderAgainstOracle builds every shape, streamed and given to
// HashAll, on one worker and several, with and without a node callback: the
// root, counts, reports and nodes must be the reference trie's. Each
// Builder builds the state twice, the second time with the buffers of the
// first.
func TestBuilderAgainstOracle(t *testing.T) {
	requireNoLeak(t)
	seed := testgen.Seed(t)
	r := rand.New(rand.NewPCG(seed, 3))
	workerCounts := []int{1, 2, 3, 5}
	if testing.Short() {
		workerCounts = []int{1, 3}
	}
	for _, shape := range stateShapes {
		t.Run(shape.name, func(t *testing.T) {
			s := shape.generate(r)
			require.True(t, s.sorted())
			accounts := s.inMemory()
			want := oracleState(s)
			for _, workers := range workerCounts {
				for _, withoutNodes := range []bool{false, true} {
					for _, hashAll := range []bool{false, true} {
						rec := newNodeRecorder()
						rec.withoutNodes = withoutNodes
						b := state.NewBuilder(rec.options(workers))
						for round := range 2 {
							msg := fmt.Sprintf("%d workers, without nodes %v, HashAll %v, round %d", workers, withoutNodes, hashAll, round)
							var got state.Result
							if hashAll {
								var err error
								got, err = b.HashAll(accounts)
								require.NoError(t, err, msg)
								assert.Equal(t, got, b.Finish(), "%s: Finish after HashAll", msg)
								checkReportOrder(t, rec.accounts, msg)
								slices.SortFunc(rec.accounts, func(a, b state.AccountResult) int { return bytes.Compare(a.Hash[:], b.Hash[:]) })
							} else {
								require.NoError(t, s.feed(b), msg)
								got = b.Finish()
							}
							checkAgainstOracle(t, s, want, got, rec, msg)
							b.Reset()
							*rec = nodeRecorder{nodes: map[stacktrie.Hash][]node{}, withoutNodes: withoutNodes}
						}
						require.NoError(t, b.Close())
					}
				}
			}
		})
	}
}

// checkReportOrder checks what HashAll promises of the order of its
// account reports: ascending among those whose hashes share a first byte.
func checkReportOrder(t *testing.T, reports []state.AccountResult, msg string) {
	t.Helper()
	var last [256]*stacktrie.Hash
	for i := range reports {
		h := &reports[i].Hash
		if prev := last[h[0]]; prev != nil && bytes.Compare(prev[:], h[:]) >= 0 {
			t.Fatalf("%s: account %s reported after %s", msg, h, prev)
		}
		last[h[0]] = h
	}
}

// TestBuilderEmpty checks the root of no account, streamed and given to
// HashAll, on one worker and two.
func TestBuilderEmpty(t *testing.T) {
	requireNoLeak(t)
	rec := newNodeRecorder()
	for _, workers := range []int{1, 2} {
		b := state.NewBuilder(rec.options(workers))
		assert.Equal(t, state.Result{Root: stacktrie.EmptyRoot}, b.Finish())
		b.Reset()
		got, err := b.HashAll(nil)
		require.NoError(t, err)
		assert.Equal(t, state.Result{Root: stacktrie.EmptyRoot}, got)
		require.NoError(t, b.Close())
	}
	assert.Empty(t, rec.nodes)
	assert.Empty(t, rec.accounts)
}

// TestBuilderReuse feeds streams one after another to one Builder, with
// Reset, Close and streams given up between them: each finished stream
// must give its own root.
func TestBuilderReuse(t *testing.T) {
	requireNoLeak(t)
	seed := testgen.Seed(t)
	r := rand.New(rand.NewPCG(seed, 4))
	states := []flatState{stateShapes[5].generate(r), stateShapes[2].generate(r), stateShapes[6].generate(r)}
	b := state.NewBuilder(state.Options{Workers: 2})
	defer b.Close()
	for round := range 3 {
		for i, s := range states {
			want := oracleState(s).root
			require.NoError(t, s.feed(b))
			assert.Equal(t, want, b.Finish().Root, "round %d, state %d", round, i)
			assert.Equal(t, want, b.Finish().Root, "Finish again")
			assert.ErrorIs(t, b.AddAccount(stacktrie.Hash{0xff}, rlpOf(nil, nil, nil, nil)), state.ErrFinished)
			assert.ErrorIs(t, b.AddSlot(stacktrie.Hash{0xff}, []byte{1}), state.ErrFinished)
			switch round {
			case 1:
				require.NoError(t, b.Close())
			case 2:
				// Give up a stream in the middle of a large contract.
				b.Reset()
				half := s[:len(s)/2+1]
				require.NoError(t, half.feed(b))
			}
			b.Reset()
		}
	}
}

// TestBuilderDroppedWithoutClose checks that the goroutines of Builders
// nobody closed end once they are garbage: one in the middle of a stream,
// one after HashAll, whose helpers are goroutines of their own.
func TestBuilderDroppedWithoutClose(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	s := stateShapes[5].generate(r)
	before := runtime.NumGoroutine()
	func() {
		b := state.NewBuilder(state.Options{Workers: 3})
		require.NoError(t, s[:len(s)/2+1].feed(b))
		all := state.NewBuilder(state.Options{Workers: 3})
		running := runtime.NumGoroutine()
		_, err := all.HashAll(s.inMemory())
		require.NoError(t, err)
		require.Greater(t, runtime.NumGoroutine(), running, "HashAll's helpers run")
		runtime.KeepAlive(b) // until then: its goroutines ending would hide the helpers
	}()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), before, "goroutines of a dropped Builder left behind")
}

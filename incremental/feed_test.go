package incremental

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDroppedBuilderEndsItsGoroutine checks that the goroutine Root starts
// ends once its Builder is unreachable.
func TestDroppedBuilderEndsItsGoroutine(t *testing.T) {
	before := settledGoroutines()
	b := NewBuilder(HashedKeyLen)
	_, err := b.Root(&Table{}, &Table{}, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, before+1, runtime.NumGoroutine(), "Root feeds the trie from a goroutine")
	b = nil
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), before)
}

// settledGoroutines collects the garbage until no goroutine ends for a
// while, so that the Builders earlier tests dropped, or left in the pool
// Build and Root draw from, have ended theirs, and returns how many are
// left.
func settledGoroutines() int {
	n := runtime.NumGoroutine()
	for still, deadline := 0, time.Now().Add(5*time.Second); still < 5 && time.Now().Before(deadline); {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		if m := runtime.NumGoroutine(); m == n {
			still++
		} else {
			n, still = m, 0
		}
	}
	return n
}

// panickyCursor panics on its calls after the first few.
type panickyCursor struct {
	Cursor
	calls, limit int
}

func (c *panickyCursor) Seek(key []byte) ([]byte, []byte, bool) { c.tick(); return c.Cursor.Seek(key) }
func (c *panickyCursor) Next() ([]byte, []byte, bool)           { c.tick(); return c.Cursor.Next() }

func (c *panickyCursor) tick() {
	if c.calls++; c.calls > c.limit {
		panic("cursor failed")
	}
}

// TestBuilderAfterPanic checks that a Builder whose Root panicked in a
// caller's cursor, halfway through feeding the trie, works on.
func TestBuilderAfterPanic(t *testing.T) {
	c, changed := allocBlockForPanic(t)
	counted := &panickyCursor{Cursor: c.leaves, limit: 1 << 30}
	_, err := c.b.Root(c.branches, counted, changed, nil)
	require.NoError(t, err)
	require.Greater(t, counted.calls, 100, "enough cursor calls to fail halfway")
	for _, limit := range []int{1, counted.calls / 2, counted.calls - 1} {
		func() {
			defer func() { assert.NotNil(t, recover(), "the cursor's panic goes through") }()
			_, _ = c.b.Root(c.branches, &panickyCursor{Cursor: c.leaves, limit: limit}, changed, nil)
		}()
		root, err := c.b.Root(c.branches, c.leaves, changed, nil)
		require.NoError(t, err)
		assert.Equal(t, reference(sortedLeaves(c.state)).Root(), [32]byte(root), "limit %d", limit)
		root, err = c.b.Build(c.leaves, nil)
		require.NoError(t, err)
		assert.Equal(t, reference(sortedLeaves(c.state)).Root(), [32]byte(root))
	}
}

// allocBlockForPanic is a store over 3,000 hashed keys, and a block of
// updates applied to its flat state and model.
func allocBlockForPanic(t *testing.T) (*chain, [][]byte) {
	r := newRand(t)
	c := chainAt(t, HashedKeyLen, randomState(r, HashedKeyLen, 3000, 32))
	var changed [][]byte
	for _, l := range sortedLeaves(c.state)[:200] {
		changed = append(changed, l.key)
		c.state[string(l.key)] = []byte("updated")
		c.leaves.Put(l.key, []byte("updated"))
	}
	return c, changed
}

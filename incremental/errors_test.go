package incremental

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sliceCursor is a Cursor over entries given in order, sorted or not, for
// feeding the walker what a Table would refuse to hold.
type sliceCursor struct {
	entries []kv
	at      int
}

func (c *sliceCursor) Seek(key []byte) ([]byte, []byte, bool) {
	c.at = 0
	for c.at < len(c.entries) && bytes.Compare(c.entries[c.at].key, key) < 0 {
		c.at++
	}
	return c.current()
}

func (c *sliceCursor) Next() ([]byte, []byte, bool) {
	c.at++
	return c.current()
}

func (c *sliceCursor) current() ([]byte, []byte, bool) {
	if c.at >= len(c.entries) {
		return nil, nil, false
	}
	return c.entries[c.at].key, c.entries[c.at].value, true
}

func TestErrors(t *testing.T) {
	value := bytes.Repeat([]byte{7}, 32) // leaves of 32 bytes and more: hashed
	state := map[string][]byte{}
	for _, k := range []string{"\x10\x00", "\x10\x01", "\x20\x00", "\x20\x10", "\x21\x00"} {
		state[k] = value
	}
	c := chainAt(t, 2, state)
	record, ok := c.branches.Get([]byte{2})
	require.True(t, ok, "the branch at 2 is stored")
	leaves := func(kvs ...kv) Cursor { return &sliceCursor{entries: kvs} }
	branches := func(kvs ...kv) Cursor { return &sliceCursor{entries: kvs} }
	good := [][]byte{{0x20, 0x00}}
	tests := []struct {
		name     string
		branches Cursor
		leaves   Cursor
		changed  [][]byte
		want     error
	}{
		{"changed key too short", c.branches, c.leaves, [][]byte{{0x20}}, ErrKeyLength},
		{"changed key too long", c.branches, c.leaves, [][]byte{{0x20, 0, 0}}, ErrKeyLength},
		{"changed keys out of order", c.branches, c.leaves, [][]byte{{0x21, 0}, {0x20, 0}}, ErrKeyOrder},
		{"changed key twice", c.branches, c.leaves, [][]byte{{0x20, 0}, {0x20, 0}}, ErrKeyOrder},
		{"leaf key of the wrong length", c.branches, leaves(kv{[]byte{0x20, 0, 0}, []byte{1}}), good, ErrKeyLength},
		{"leaf with an empty value", c.branches, leaves(kv{[]byte{0x20, 0}, nil}), good, ErrEmptyValue},
		{"leaves out of order", c.branches, leaves(kv{[]byte{0x20, 1}, []byte{1}}, kv{[]byte{0x20, 0}, []byte{1}}), good, ErrKeyOrder},
		{"branch path with a nibble over 15", branches(kv{[]byte{0x12}, record}), c.leaves, good, ErrBranchPath},
		{"branch path as long as a key", branches(kv{[]byte{2, 0, 0, 0}, record}), c.leaves, good, ErrBranchPath},
		{"branch paths out of order", branches(kv{[]byte{2}, record}, kv{[]byte{1}, record}), c.leaves, good, ErrBranchPath},
		{"branch encoding damaged", branches(kv{[]byte{2}, record[:7]}), c.leaves, good, ErrBranchEncoding},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stored := 0
			_, err := c.b.Root(tt.branches, tt.leaves, tt.changed, func(_, _ []byte) { stored++ })
			assert.ErrorIs(t, err, tt.want)
			assert.Zero(t, stored, "a failed Root stores nothing")
		})
	}
	// The Builder works on after a refusal.
	c.block(t, map[string][]byte{"\x20\x00": {9}})
}

func TestBuildErrors(t *testing.T) {
	tests := []struct {
		name   string
		leaves []kv
		want   error
	}{
		{"key of the wrong length", []kv{{[]byte{1}, []byte{1}}}, ErrKeyLength},
		{"empty value", []kv{{[]byte{1, 2}, nil}}, ErrEmptyValue},
		{"out of order", []kv{{[]byte{1, 2}, []byte{1}}, {[]byte{1, 1}, []byte{1}}}, ErrKeyOrder},
		{"twice", []kv{{[]byte{1, 2}, []byte{1}}, {[]byte{1, 2}, []byte{1}}}, ErrKeyOrder},
	}
	b := NewBuilder(2)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := b.Build(&sliceCursor{entries: tt.leaves}, nil)
			assert.ErrorIs(t, err, tt.want)
		})
	}
	assert.Panics(t, func() { NewBuilder(0) })
}

func TestPackageFunctionsTakeHashedKeys(t *testing.T) {
	_, err := Build(tableOf([]kv{{[]byte{1, 2}, []byte{1}}}), nil)
	assert.ErrorIs(t, err, ErrKeyLength)
	_, err = Root(&Table{}, &Table{}, [][]byte{make([]byte, 20)}, nil)
	assert.ErrorIs(t, err, ErrKeyLength)
	leaves := sortedLeaves(randomState(newRand(t), HashedKeyLen, 100, 32))
	root, err := Build(tableOf(leaves), nil)
	require.NoError(t, err)
	assert.Equal(t, reference(leaves).Root(), [32]byte(root))
}

// TestCheckChanged: each key of the given length, strictly ascending, or
// the sentinel that says which rule the first bad key breaks.
func TestCheckChanged(t *testing.T) {
	tests := []struct {
		name    string
		changed [][]byte
		want    error
	}{
		{"none", nil, nil},
		{"ascending", [][]byte{{0, 1}, {0, 2}, {1, 0}}, nil},
		{"a key too short", [][]byte{{0, 1}, {2}}, ErrKeyLength},
		{"a key too long", [][]byte{{0, 1, 2}}, ErrKeyLength},
		{"twice", [][]byte{{0, 1}, {0, 1}}, ErrKeyOrder},
		{"descending", [][]byte{{0, 2}, {0, 1}}, ErrKeyOrder},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckChanged(tt.changed, 2)
			if tt.want == nil {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, tt.want)
		})
	}
}

package incremental

import (
	"bytes"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTableAgainstMap runs random writes, seeks and steps on a Table and on
// a map, keys sorted afresh for each check, across enough entries to split
// chunks and empty them.
func TestTableAgainstMap(t *testing.T) {
	r := newRand(t)
	var table Table
	model := map[string][]byte{}
	// Short keys collide often, zeros make some a zero-padded prefix of
	// others, and the prefixes give keys of seven and eight bytes, whose
	// heads hold them whole or not, and longer ones that share a head.
	key := func() []byte {
		k := []byte{byte(r.IntN(40)), byte(r.IntN(64))}[:1+r.IntN(2)]
		switch r.IntN(4) {
		case 0:
			k = append([]byte("eight by"), k...)
		case 1:
			k = append([]byte("seven\x00"), k...)
		}
		return k
	}
	for round := range 20_000 {
		switch op := r.IntN(10); {
		case op < 5:
			k, v := key(), []byte{byte(round), byte(round >> 8)}
			if r.IntN(8) == 0 {
				v = nil // a Write of nil deletes
			}
			table.Write(k, v)
			if v == nil {
				delete(model, string(k))
			} else {
				model[string(k)] = v
			}
		case op < 7:
			k := key()
			table.Delete(k)
			delete(model, string(k))
		default:
			keys := slices.Sorted(maps.Keys(model))
			from := key()
			i, _ := slices.BinarySearch(keys, string(from))
			k, v, ok := table.Seek(from)
			for steps := 0; steps < 3 && i < len(keys); steps++ {
				require.True(t, ok, "round %d: seek %x step %d", round, from, steps)
				require.Equal(t, keys[i], string(k))
				require.Equal(t, model[keys[i]], v)
				i++
				k, v, ok = table.Next()
				if steps == 1 && i < len(keys) && r.IntN(2) == 0 {
					// A seek forward from the cursor, which gallops.
					ahead := keys[min(i+r.IntN(600), len(keys)-1)]
					i, _ = slices.BinarySearch(keys, ahead)
					k, v, ok = table.Seek([]byte(ahead))
				}
			}
			if i == len(keys) {
				require.False(t, ok, "round %d: past the end", round)
			}
		}
		require.Equal(t, len(model), table.Len())
	}
	got := map[string][]byte{}
	for k, v := range table.All() {
		got[string(k)] = bytes.Clone(v)
	}
	assert.Equal(t, model, got)
	for k, v := range model {
		g, ok := table.Get([]byte(k))
		assert.True(t, ok)
		assert.Equal(t, v, g)
	}
	_, ok := table.Get([]byte{0xff})
	assert.False(t, ok)
}

func TestTableWriteEndsTheWalk(t *testing.T) {
	var table Table
	table.Put([]byte{1}, []byte{1})
	table.Put([]byte{2}, []byte{2})
	_, _, ok := table.Seek(nil)
	require.True(t, ok)
	table.Put([]byte{3}, []byte{3})
	_, _, ok = table.Next()
	assert.False(t, ok, "Next after a write")
	k, _, ok := table.Seek([]byte{2})
	assert.True(t, ok)
	assert.Equal(t, []byte{2}, k)
	var empty Table
	_, _, ok = empty.Seek(nil)
	assert.False(t, ok)
	_, _, ok = empty.Next()
	assert.False(t, ok)
	empty.Delete([]byte{1})
	assert.Zero(t, empty.Len())
}

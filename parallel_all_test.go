package stacktrie_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

// split returns the keys and values of pairs as HashAll takes them.
func split(pairs []testgen.Pair) (keys, values [][]byte) {
	for _, p := range pairs {
		keys, values = append(keys, p.Key), append(values, p.Value)
	}
	return keys, values
}

// TestHashAllAgainstOracle hashes sets of every key shape with HashAll on
// one to three workers, with and without a node callback: root and nodes
// must be the reference trie's, and the Parallel must then be as after Hash.
func TestHashAllAgainstOracle(t *testing.T) {
	requireNoLeak(t)
	seed := testgen.Seed(t)
	r := rand.New(rand.NewPCG(seed, 9))
	for _, shape := range testgen.Shapes {
		for _, n := range []int{0, 1, 2, 3, 50, 2000} {
			pairs := testgen.Pairs(r, shape, n)
			keys, values := split(pairs)
			wantRoot, wantNodes := oracle(pairs)
			for _, workers := range []int{1, 2, 3} {
				msg := []any{"seed %d, %s, %d pairs, %d workers", seed, shape.Name, len(pairs), workers}
				var rec recorder
				for _, onNode := range []stacktrie.NodeFunc{nil, rec.onNode} {
					p := stacktrie.NewParallel(workers, onNode)
					defer p.Close()
					root, err := p.HashAll(keys, values)
					require.NoError(t, err, msg...)
					require.Equal(t, wantRoot, root, msg...)
					assert.Equal(t, wantRoot, p.Hash(), msg...)
					assert.ErrorIs(t, p.Update([]byte{0xff}, []byte{1}), stacktrie.ErrFinalized, msg...)
				}
				assertNodes(t, wantNodes, rec.nodes, msg...)
			}
		}
	}
}

// firstUpdateError is the error Update gives for the first pair it refuses
// in turn, or nil: what HashAll must give for the same pairs.
func firstUpdateError(t *testing.T, keys, values [][]byte) error {
	tr := stacktrie.New(nil)
	for i := range keys {
		if err := tr.Update(keys[i], values[i]); err != nil {
			return err
		}
	}
	return nil
}

// TestHashAllRefuses gives HashAll pairs out of order in every way the
// partitions could hide, and empty values: it must give the error Update
// gives for the first pair refused, and change nothing, so that the
// Parallel still gives the root it had, with or without a node callback
// (which must then have seen no node).
func TestHashAllRefuses(t *testing.T) {
	requireNoLeak(t)
	r := rand.New(rand.NewPCG(testgen.Seed(t), 10))
	good := testgen.Pairs(r, testgen.Shapes[0], 3000) // hashed keys, every partition
	keys, values := split(good)
	mutate := map[string]func(k, v [][]byte){
		"two neighbours swapped":     func(k, v [][]byte) { k[1500], k[1501] = k[1501], k[1500] },
		"a key repeated":             func(k, v [][]byte) { k[2000] = k[1999] },
		"the first key last":         func(k, v [][]byte) { k[0], k[len(k)-1] = k[len(k)-1], k[0] },
		"one key from far behind":    func(k, v [][]byte) { k[2500] = k[10] },
		"an empty key after others":  func(k, v [][]byte) { k[700] = []byte{} },
		"a short key out of place":   func(k, v [][]byte) { k[1200] = k[1199][:1] }, // a prefix of the key before it
		"the partitions reversed":    func(k, v [][]byte) { reverseBlocks(k, 300) },
		"an empty value":             func(k, v [][]byte) { v[900] = nil },
		"an empty value, then order": func(k, v [][]byte) { v[100] = []byte{}; k[200] = k[199] },
		"order, then an empty value": func(k, v [][]byte) { k[200] = k[199]; v[300] = nil },
		"an empty first value":       func(k, v [][]byte) { v[0] = nil },
		"empty first key and value":  func(k, v [][]byte) { k[0], v[0] = []byte{}, nil },
	}
	for name, change := range mutate {
		t.Run(name, func(t *testing.T) {
			k, v := cloneAll(keys), cloneAll(values)
			change(k, v)
			want := firstUpdateError(t, k, v)
			require.Error(t, want, "the change must make Update refuse a pair")
			var reported int
			for _, onNode := range []stacktrie.NodeFunc{nil, func([]byte, stacktrie.Hash, []byte) { reported++ }} {
				p := stacktrie.NewParallel(2, onNode)
				defer p.Close()
				before, err := p.HashAll(keys[:100], values[:100])
				require.NoError(t, err)
				reported = 0
				_, err = p.HashAll(k, v)
				require.Error(t, err)
				assert.Equal(t, want.Error(), err.Error())
				assert.Equal(t, before, p.Hash(), "the root from before")
				if onNode != nil {
					assert.Zero(t, reported, "nodes reported by a refused call")
				}
			}
		})
	}
	t.Run("keys and values of different lengths", func(t *testing.T) {
		p := stacktrie.NewParallel(2, nil)
		defer p.Close()
		_, err := p.HashAll(keys, values[:10])
		assert.Error(t, err)
	})
	t.Run("a stream open", func(t *testing.T) {
		p := stacktrie.NewParallel(2, nil)
		defer p.Close()
		require.NoError(t, p.Update(keys[0], values[0]))
		_, err := p.HashAll(keys, values)
		assert.ErrorIs(t, err, stacktrie.ErrStreamOpen)
		require.NoError(t, p.Update(keys[1], values[1]), "the stream goes on")
		want, _ := oracle(good[:2])
		assert.Equal(t, want, p.Hash())
	})
}

// reverseBlocks reverses the order of the blocks of n keys, each block
// keeping its own order.
func reverseBlocks(keys [][]byte, n int) {
	var blocks [][][]byte
	for i := 0; i < len(keys); i += n {
		blocks = append(blocks, append([][]byte{}, keys[i:min(i+n, len(keys))]...))
	}
	at := 0
	for i := len(blocks) - 1; i >= 0; i-- {
		at += copy(keys[at:], blocks[i])
	}
}

func cloneAll(items [][]byte) [][]byte {
	out := make([][]byte, len(items))
	for i, item := range items {
		out[i] = bytes.Clone(item)
	}
	return out
}

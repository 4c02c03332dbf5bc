package fuzz

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/reftrie"
)

// FuzzHashAll gives Parallel.HashAll the fuzzed pairs as they come, in
// order or not, on one to three workers: if some pair is out of order by
// bytes.Compare or has an empty value, HashAll must refuse the first such
// pair with the same sentinel and keep the root it had; if none, its root
// must be the reference trie's.
func FuzzHashAll(f *testing.F) {
	f.Add(byte(1), []byte{0, 2, 'd', 'o', 4, 'v', 'e', 'r', 'b', 2, 1, 'g', 5, 'p', 'u', 'p', 'p', 'y'})
	f.Add(byte(2), []byte{0, 1, 'b', 1, 'x', 0, 1, 'a', 1, 'y'})
	f.Fuzz(func(t *testing.T, workers byte, data []byte) {
		var keys, values [][]byte
		for _, p := range decodePairs(data) {
			keys, values = append(keys, p.Key), append(values, p.Value)
		}
		var want error
		ref := reftrie.New()
		for i := range keys {
			if len(values[i]) == 0 {
				want = stacktrie.ErrEmptyValue
				break
			}
			if i > 0 && bytes.Compare(keys[i], keys[i-1]) <= 0 {
				want = stacktrie.ErrKeyOrder
				break
			}
			ref.Put(keys[i], values[i])
		}
		p := stacktrie.NewParallel(1+int(workers%3), nil)
		defer p.Close()
		before, err := p.HashAll([][]byte{{1}, {2}}, [][]byte{{1}, {2}})
		if err != nil {
			t.Fatal(err)
		}
		root, err := p.HashAll(keys, values)
		switch {
		case want != nil && !errors.Is(err, want):
			t.Fatalf("HashAll: got %v, want %v", err, want)
		case want != nil && p.Hash() != before:
			t.Fatalf("a refused HashAll changed the root from %v to %v", before, p.Hash())
		case want == nil && err != nil:
			t.Fatalf("HashAll: %v", err)
		case want == nil && root != stacktrie.Hash(ref.Root()):
			t.Fatalf("root %v, want %v", root, stacktrie.Hash(ref.Root()))
		}
	})
}

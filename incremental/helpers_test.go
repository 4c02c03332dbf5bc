package incremental

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stacktrie/stacktrie/internal/testgen"
)

// tableOf returns a Table of the leaves.
func tableOf(leaves []kv) *Table {
	t := &Table{}
	for _, l := range leaves {
		t.Put(l.key, l.value)
	}
	return t
}

// contents returns a table's entries by key.
func contents(t *Table) map[string][]byte {
	m := make(map[string][]byte, t.Len())
	for k, v := range t.All() {
		m[string(k)] = bytes.Clone(v)
	}
	return m
}

// sortedLeaves returns the leaves of a flat state held as a map.
func sortedLeaves(state map[string][]byte) []kv {
	keys := slices.Sorted(maps.Keys(state))
	out := make([]kv, len(keys))
	for i, k := range keys {
		out[i] = kv{[]byte(k), state[k]}
	}
	return out
}

// built returns the root and records Build gives for the leaves.
func built(b *Builder, leaves []kv) ([32]byte, map[string][]byte, error) {
	recs := make(map[string][]byte)
	var order error
	root, err := b.Build(tableOf(leaves), func(path, branch []byte) {
		// Each record comes after every stored branch below it, and once.
		for p := range recs {
			if order == nil && strings.HasPrefix(string(path), p) {
				order = fmt.Errorf("record %x stored after %x, above it or the same", path, p)
			}
		}
		recs[string(path)] = bytes.Clone(branch)
	})
	return root, recs, errors.Join(err, order)
}

// recordDiff describes how two record sets differ, path by path, or
// returns "" if they are equal.
func recordDiff(want, got map[string][]byte) string {
	var b strings.Builder
	paths := slices.Sorted(maps.Keys(want))
	for p := range got {
		if _, ok := want[p]; !ok {
			paths = append(paths, p)
		}
	}
	for _, p := range paths {
		w, inWant := want[p]
		g, inGot := got[p]
		switch {
		case !inGot:
			fmt.Fprintf(&b, "missing %x\n", p)
		case !inWant:
			fmt.Fprintf(&b, "extra %x: %x\n", p, g[:6])
		case !bytes.Equal(w, g):
			fmt.Fprintf(&b, "differs %x: masks %x, want %x\n", p, g[:min(6, len(g))], w[:min(6, len(w))])
		}
	}
	return b.String()
}

// newRand returns a test's random source, seeded by testgen.Seed.
func newRand(t *testing.T) *rand.Rand {
	return rand.New(rand.NewPCG(testgen.Seed(t), 0))
}

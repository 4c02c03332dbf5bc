package fuzz

import (
	"bytes"
	"slices"
	"testing"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/reftrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

// sortedPairs decodes input into pairs in key order, without duplicates or
// empty values: a stream every trie accepts.
func sortedPairs(data []byte) []testgen.Pair {
	pairs := slices.DeleteFunc(decodePairs(data), func(p testgen.Pair) bool { return len(p.Value) == 0 })
	slices.SortStableFunc(pairs, func(a, b testgen.Pair) int { return bytes.Compare(a.Key, b.Key) })
	return slices.CompactFunc(pairs, func(a, b testgen.Pair) bool { return bytes.Equal(a.Key, b.Key) })
}

// reference returns the reference trie over pairs.
func reference(pairs []testgen.Pair) *reftrie.Trie {
	ref := reftrie.New()
	for _, p := range pairs {
		ref.Put(p.Key, p.Value)
	}
	return ref
}

// FuzzSubtries splits a stream into partitions by the first depth nibbles of
// the keys (depth from the input, 0 to 5), builds each in a Trie of its own,
// passes its Subtrie through its binary form and mounts it into one trie,
// inserting keys shorter than depth directly. The root and nodes must be the
// reference trie's.
func FuzzSubtries(f *testing.F) {
	f.Add(byte(1), []byte{0, 2, 'd', 'o', 4, 'v', 'e', 'r', 'b', 2, 1, 'g', 5, 'p', 'u', 'p', 'p', 'y'})
	f.Add(byte(3), []byte{0, 1, 'a', 1, 'x', 1, 1, 'b', 1, 'y', 0, 2, 'a', 'c', 1, 'z'})
	f.Fuzz(func(t *testing.T, depthByte byte, data []byte) {
		depth := int(depthByte % 6)
		pairs := sortedPairs(data)
		var got []reported
		onNode := func(path []byte, hash stacktrie.Hash, blob []byte) {
			got = append(got, reported{string(path), hash, string(blob)})
		}
		top := stacktrie.New(onNode)
		var part *stacktrie.Trie
		var partPrefix []byte
		mountPart := func() {
			if part == nil {
				return
			}
			sub, err := part.Subtrie()
			if err != nil {
				t.Fatal(err)
			}
			wire, err := sub.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var back stacktrie.Subtrie
			if err := back.UnmarshalBinary(wire); err != nil {
				t.Fatalf("%x: %v", wire, err)
			}
			if err := back.Mount(top); err != nil {
				t.Fatalf("mount %+v: %v", back, err)
			}
			part = nil
		}
		for _, p := range pairs {
			nibbles := reftrie.KeyNibbles(p.Key)
			if len(nibbles) < depth {
				mountPart()
				if err := top.Update(p.Key, p.Value); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if part == nil || !bytes.Equal(nibbles[:depth], partPrefix) {
				mountPart()
				part = stacktrie.New(onNode)
				partPrefix = nibbles[:depth]
			}
			if err := part.Update(p.Key, p.Value); err != nil {
				t.Fatal(err)
			}
		}
		mountPart()
		ref := reference(pairs)
		if root, want := top.Hash(), stacktrie.Hash(ref.Root()); root != want {
			t.Fatalf("depth %d: root %v, want %v", depth, root, want)
		}
		checkNodes(t, ref.Nodes(), got)
	})
}

// FuzzUpdateBranch gives a trie branches to mount that the input makes up:
// each must be accepted exactly when its path is valid and comes after the
// previous item, and a refused one must change nothing.
func FuzzUpdateBranch(f *testing.F) {
	f.Add([]byte{2, 1, 2, 32, 5, 7, 0, 3, 9, 0x10, 1, 4, 0xc3, 0x80, 0x80, 0x80})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &reader{data}
		tr, twin := stacktrie.New(nil), stacktrie.New(nil)
		for len(r.data) > 0 {
			path := bytes.Clone(r.bytes(int(r.byte() % 8)))
			ref := bytes.Clone(r.bytes(int(r.byte() % 34)))
			if err := tr.UpdateBranch(path, ref); err != nil {
				continue // twin never sees it: the two must stay equal
			}
			if err := twin.UpdateBranch(path, ref); err != nil {
				t.Fatalf("accepted by one trie, refused by its twin: %v", err)
			}
		}
		if a, b := tr.Hash(), twin.Hash(); a != b {
			t.Fatalf("refused branches changed the trie: %v, want %v", a, b)
		}
	})
}

// FuzzParallel compares Parallel on two workers with the reference trie.
func FuzzParallel(f *testing.F) {
	f.Add([]byte{0, 2, 'd', 'o', 4, 'v', 'e', 'r', 'b', 2, 1, 'g', 5, 'p', 'u', 'p', 'p', 'y'})
	f.Fuzz(func(t *testing.T, data []byte) {
		pairs := sortedPairs(data)
		var got []reported
		p := stacktrie.NewParallel(2, func(path []byte, hash stacktrie.Hash, blob []byte) {
			got = append(got, reported{string(path), hash, string(blob)})
		})
		for _, pair := range pairs {
			if err := p.Update(pair.Key, pair.Value); err != nil {
				t.Fatal(err)
			}
		}
		ref := reference(pairs)
		if root, want := p.Hash(), stacktrie.Hash(ref.Root()); root != want {
			t.Fatalf("root %v, want %v", root, want)
		}
		checkNodes(t, ref.Nodes(), got)
	})
}

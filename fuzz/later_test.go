package fuzz

import (
	"bytes"
	"testing"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/reftrie"
)

// FuzzHashLater cuts the fuzzed pairs into tries, a new one wherever a key
// is not above the one before, and ends each with HashLater in one Trie, or
// now and then with Hash first or a Flush: after the last Flush, every
// root written must be the reference trie's over that trie's pairs.
func FuzzHashLater(f *testing.F) {
	f.Add([]byte{0, 2, 'd', 'o', 4, 'v', 'e', 'r', 'b', 0, 1, 'a', 5, 'p', 'u', 'p', 'p', 'y', 1, 0, 1, 'x'})
	f.Fuzz(func(t *testing.T, data []byte) {
		tr := stacktrie.New(nil)
		var refs []*reftrie.Trie
		var roots []*stacktrie.Hash // each where HashLater writes: not moved as the slice grows
		var last []byte
		end := func(i int) {
			switch refs[i].Root()[0] % 8 { // a choice the fuzzer can steer, and the same for the same trie
			case 0:
				tr.Hash()
			case 1:
				tr.Flush()
			}
			tr.HashLater(roots[i])
		}
		for _, p := range decodePairs(data) {
			if len(p.Value) == 0 {
				continue
			}
			if len(refs) == 0 || bytes.Compare(p.Key, last) <= 0 {
				if len(refs) > 0 {
					end(len(refs) - 1)
				}
				refs = append(refs, reftrie.New())
				roots = append(roots, new(stacktrie.Hash))
			}
			if err := tr.Update(p.Key, p.Value); err != nil {
				t.Fatalf("key %x after %x: %v", p.Key, last, err)
			}
			refs[len(refs)-1].Put(p.Key, p.Value)
			last = p.Key
		}
		if len(refs) > 0 {
			end(len(refs) - 1)
		}
		tr.Flush()
		for i, ref := range refs {
			if want := stacktrie.Hash(ref.Root()); *roots[i] != want {
				t.Fatalf("trie %d of %d: root %v, want %v", i, len(refs), *roots[i], want)
			}
		}
	})
}

package incremental

// The tests' oracle of the records: the masks of every branch worked out
// from the reference trie's branches (internal/reftrie) and the keys, by
// the rules of the package doc, without the assembler.

import (
	"bytes"
	"math/bits"
	"slices"

	"github.com/stacktrie/stacktrie/internal/reftrie"
)

// kv is a leaf of a test's flat state.
type kv struct{ key, value []byte }

// reference returns the reference trie of leaves.
func reference(leaves []kv) *reftrie.Trie {
	ref := reftrie.New()
	for _, l := range leaves {
		ref.Put(l.key, l.value)
	}
	return ref
}

// expectedRecords returns the encoded record of every branch the package
// stores for leaves, by path.
func expectedRecords(leaves []kv) map[string][]byte {
	branches := reference(leaves).Branches() // pre-order: parents first
	refOf := make(map[string][]byte, len(branches))
	for _, b := range branches {
		refOf[string(b.Path)] = b.Ref
	}
	prefixes := make(map[string]bool) // every nibble prefix of every key
	for _, l := range leaves {
		k := reftrie.KeyNibbles(l.key)
		for i := range len(k) + 1 {
			prefixes[string(k[:i])] = true
		}
	}
	hasKeyUnder := func(prefix []byte) bool { return prefixes[string(prefix)] }
	stored := make(map[string]bool)
	out := make(map[string][]byte)
	for _, b := range slices.Backward(branches) { // children first
		var rec Branch
		for i := range 16 {
			child := append(bytes.Clone(b.Path), byte(i))
			if !hasKeyUnder(child) {
				continue
			}
			rec.StateMask |= 1 << i
			if ref, ok := refOf[string(child)]; ok && len(ref) == 32 {
				rec.HashMask |= 1 << i
				copy(rec.Hashes[i][:], ref)
			}
			for path := range stored {
				if bytes.HasPrefix([]byte(path), child) {
					rec.TreeMask |= 1 << i
					break
				}
			}
		}
		if len(b.Path) == 0 || rec.TreeMask|rec.HashMask == 0 {
			continue
		}
		if bits.OnesCount16(rec.StateMask) < 2 {
			panic("a branch with one child")
		}
		stored[string(b.Path)] = true
		enc, err := rec.MarshalBinary()
		if err != nil {
			panic(err)
		}
		out[string(b.Path)] = enc
	}
	return out
}

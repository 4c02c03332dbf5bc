package fuzz

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

// Range damages, beside the proof damages of FuzzVerifyProof.
const (
	rangeOpDropPair    = iota // drop a pair: index
	rangeOpFlipKey            // flip bits of a key: index, position, mask
	rangeOpFlipValue          // flip bits of a value: index, position, mask
	rangeOpAddPair            // insert a pair of the trie: which, where
	rangeOpMoveFirst          // a new start: see nearKey
	rangeOpDamageProof        // one damage of FuzzVerifyProof to the proof
	rangeOpNoProof            // a nil proof
	rangeOps
)

// FuzzVerifyRange proves a range of a trie with a ProofSet, damages the
// range or its proof as the input says, and verifies it. VerifyRange must
// not panic, must refuse with its errors only, and must tell the truth: an
// undamaged range under go-ethereum's rules is accepted with the right
// hasMore, and any accepted range is exactly the trie's pairs from its start
// to its last key, hasMore saying whether pairs follow.
func FuzzVerifyRange(f *testing.F) {
	f.Add([]byte{0, 2, 'd', 'o', 4, 'v', 'e', 'r', 'b', 2, 1, 'g', 5, 'p', 'u', 'p', 'p', 'y'}, []byte{0, 1, 2, 0, 2}, []byte{})
	f.Add([]byte{0, 2, 'd', 'o', 4, 'v', 'e', 'r', 'b', 2, 1, 'g', 5, 'p', 'u', 'p', 'p', 'y'}, []byte{1, 0, 0, 0, 1}, []byte{rangeOpDamageProof, opDrop, 0})
	// A start past the last key, with leaves after it: refused by the rules.
	f.Add([]byte{0, 2, 'd', 'o', 4, 'v', 'e', 'r', 'b', 2, 1, 'g', 5, 'p', 'u', 'p', 'p', 'y'}, []byte{0, 0, 1, 1, 3, 0}, []byte{})
	// The trie {"", 0x00, 0x303030}, the range of 0x303030 from first
	// 0x000000, which the key 0x00 is a prefix of: a good range, which
	// go-ethereum refuses (see compat's compareRangeFuzz).
	f.Add([]byte{0, 0, 9, '0', '0', '0', '0', '0', '0', '0', '0', '0', 0, 1, 0, 1, 0, 0, 3, '0', '0', '0', 9, '0', '0', '0', '0', '0', '0', '0', '0', '0'},
		[]byte{2, 0, 1, 1, 1, 2, 0, 0}, []byte{})
	f.Fuzz(func(t *testing.T, pairData, rangeData, ops []byte) {
		pairs := proofPairs(pairData)
		if len(pairs) == 0 {
			return
		}
		r := &reader{rangeData}
		i := int(r.byte()) % len(pairs)
		j := i + int(r.byte())%(len(pairs)-i)
		first := pairs[i].Key
		if r.byte()%2 == 1 {
			first = nearKey(r, pairs)
		}
		last := pairs[j].Key
		root, ps := buildProofs(t, pairs, [][]byte{first, last})
		proof := ps.RangeProof(first, last)
		for k := range proof {
			proof[k] = bytes.Clone(proof[k])
		}
		var keys, values [][]byte
		for _, p := range pairs {
			if bytes.Compare(p.Key, first) >= 0 && bytes.Compare(p.Key, last) <= 0 {
				keys, values = append(keys, p.Key), append(values, p.Value)
			}
		}
		damaged := false
		r = &reader{ops}
		for n := 0; n < 16 && len(r.data) > 0; n++ {
			damaged = true
			pick := func(n int) int { return int(r.byte()) % max(n, 1) }
			switch op := r.byte() % rangeOps; op {
			case rangeOpDropPair:
				if k := pick(len(keys)); k < len(keys) {
					keys, values = slices.Delete(keys, k, k+1), slices.Delete(values, k, k+1)
				}
			case rangeOpFlipKey, rangeOpFlipValue:
				list := keys
				if op == rangeOpFlipValue {
					list = values
				}
				if k := pick(len(list)); k < len(list) && len(list[k]) > 0 {
					b := bytes.Clone(list[k])
					b[pick(len(b))] ^= r.byte() | 1
					list[k] = b
				}
			case rangeOpAddPair:
				p := pairs[pick(len(pairs))]
				k := pick(len(keys) + 1)
				keys, values = slices.Insert(keys, k, p.Key), slices.Insert(values, k, p.Value)
			case rangeOpMoveFirst:
				first = nearKey(r, pairs)
			case rangeOpDamageProof:
				proof, _ = damage(r, r.byte()%opOtherKey, proof)
			case rangeOpNoProof:
				proof = nil
			}
		}
		hasMore, err := stacktrie.VerifyRange(root, first, keys, values, proof)
		if err != nil {
			for _, known := range []error{stacktrie.ErrRangeInput, stacktrie.ErrRangeMismatch, stacktrie.ErrRangeMore, stacktrie.ErrProofMissingNode, stacktrie.ErrProofMalformed} {
				if errors.Is(err, known) {
					if !damaged && !refusedByRules(pairs, first, keys) {
						t.Fatalf("an undamaged range from %x refused: %v", first, err)
					}
					return
				}
			}
			t.Fatalf("error wraps no range or proof error: %v", err)
		}
		// Accepted: the range must be the truth.
		end := first
		if proof == nil {
			end = nil
		}
		var want [][]byte
		var after bool
		for _, p := range pairs {
			switch {
			case bytes.Compare(p.Key, end) < 0:
			case len(keys) == 0 || bytes.Compare(p.Key, keys[len(keys)-1]) <= 0:
				want = append(want, p.Key, p.Value)
			default:
				after = true
			}
		}
		var got [][]byte
		for k := range keys {
			got = append(got, keys[k], values[k])
		}
		if proof == nil && (after || hasMore) {
			t.Fatalf("accepted %d pairs as the whole trie, which has more after them", len(keys))
		}
		if !slices.EqualFunc(want, got, bytes.Equal) || hasMore != after {
			t.Fatalf("accepted %d pairs from %x (hasMore %v), but the trie has %d there (more after: %v)", len(keys), first, hasMore, len(want)/2, after)
		}
	})
}

// refusedByRules reports whether go-ethereum's rules refuse a true range:
// a key a prefix of the next, edges of different lengths, or no keys from a
// start that the trie has leaves after (a start past the last key proven).
func refusedByRules(pairs []testgen.Pair, first []byte, keys [][]byte) bool {
	for k := 1; k < len(keys); k++ {
		if bytes.HasPrefix(keys[k], keys[k-1]) {
			return true
		}
	}
	if len(keys) == 0 {
		return slices.ContainsFunc(pairs, func(p testgen.Pair) bool { return bytes.Compare(p.Key, first) >= 0 })
	}
	last := keys[len(keys)-1]
	return len(first) != len(last) && !(len(keys) == 1 && bytes.Equal(first, last))
}

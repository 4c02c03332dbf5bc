package stacktrie_test

// This file gives VerifyProof a benchmark of its own, so that changes to the
// proof walk and its decoder can be compared with benchstat.

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

// BenchmarkVerifyProof verifies proofs of keys present and absent, one
// proof per op, cycling through 64 keys of each kind: in a storage-like trie
// of 10k hashed 32-byte keys with 32-byte values (hashed nodes only), and in
// a trie of 2-byte keys with 1-byte values, whose leaves are embedded in
// their branches.
func BenchmarkVerifyProof(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 11))
	cases := []struct {
		name            string
		keyLen, valLen  int
		keys, perTarget int
	}{
		{"hashed32", 32, 32, 10_000, 64},
		{"embedded", 2, 1, 3_000, 64},
	}
	for _, c := range cases {
		keys := make([][]byte, c.keys)
		for i := range keys {
			keys[i] = testgen.Value(r, c.keyLen)
		}
		keys = testgen.Unique(keys)
		pairs := make([]testgen.Pair, len(keys))
		for i, k := range keys {
			pairs[i] = testgen.Pair{Key: k, Value: testgen.Value(r, c.valLen)}
		}
		var present, absent [][]byte
		for i := range c.perTarget {
			key := keys[i*len(keys)/c.perTarget]
			present = append(present, key)
			// All keys have the same length, so a longer one is absent.
			absent = append(absent, append(bytes.Clone(key), 0xab))
		}
		root, ps := proveAll(b, stacktrie.New, pairs, append(append([][]byte{}, present...), absent...))
		for _, kind := range []struct {
			name    string
			targets [][]byte
		}{{"present", present}, {"absent", absent}} {
			proofs := make([][][]byte, len(kind.targets))
			for i, k := range kind.targets {
				proofs[i] = ps.Proof(k)
				v, err := stacktrie.VerifyProof(root, k, proofs[i])
				require.NoError(b, err)
				require.Equal(b, kind.name == "present", v != nil, "key %x", k)
			}
			b.Run(c.name+"/"+kind.name, func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					j := i % len(proofs)
					if _, err := stacktrie.VerifyProof(root, kind.targets[j], proofs[j]); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

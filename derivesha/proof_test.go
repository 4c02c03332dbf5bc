package derivesha_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/derivesha"
	"github.com/stacktrie/stacktrie/internal/reftrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

func TestIndexKey(t *testing.T) {
	for _, i := range []int{0, 1, 2, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000, 1 << 30, math.MaxInt} {
		assert.Equal(t, testgen.IndexKey(i), derivesha.IndexKey(i), "index %d", i)
	}
	assert.Equal(t, []byte{0x88, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, derivesha.IndexKey(-1),
		"a negative index is its uint64")
}

func TestDeriveShaWithProofs(t *testing.T) {
	seed := testgen.Seed(t)
	r := rand.New(rand.NewPCG(seed, 7))
	for _, n := range []int{0, 1, 2, 3, 127, 128, 129, 300} {
		items := make([][]byte, n)
		for i := range items {
			if r.IntN(10) > 0 { // now and then an empty element, left out of the trie
				items[i] = testgen.Value(r, 1+r.IntN(300))
			}
		}
		ref := reftrie.New()
		for i, item := range items {
			ref.Put(testgen.IndexKey(i), item)
		}
		indices := []int{0, 1, 127, 128, n - 1, n, n + 1, -1, 1 << 20, r.IntN(n + 1), 1}
		root, proofs := derivesha.DeriveShaWithProofs(derivesha.Bytes(items), indices...)
		require.Equal(t, stacktrie.Hash(ref.Root()), root, "seed %d, %d items", seed, n)
		require.Equal(t, derivesha.DeriveSha(derivesha.Bytes(items), nil), root)
		require.Len(t, proofs, len(indices))
		for i, index := range indices {
			key := derivesha.IndexKey(index)
			if want := ref.Prove(key); len(want) > 0 {
				assert.Equal(t, want, proofs[i], "seed %d, %d items, index %d", seed, n, index)
			} else {
				assert.Empty(t, proofs[i])
				assert.NotNil(t, proofs[i])
			}
			value, err := stacktrie.VerifyProof(root, key, proofs[i])
			require.NoError(t, err, "seed %d, %d items, index %d", seed, n, index)
			if index >= 0 && index < n && len(items[index]) > 0 {
				assert.Equal(t, items[index], value, "seed %d, %d items, index %d", seed, n, index)
			} else {
				assert.Nil(t, value, "seed %d, %d items, index %d is absent", seed, n, index)
			}
		}
	}
}

// TestStreamWithProofSet proves elements of a list hashed as it grows.
func TestStreamWithProofSet(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 7))
	items := make([][]byte, 200)
	for i := range items {
		items[i] = testgen.Value(r, 1+r.IntN(200))
	}
	ps := stacktrie.NewProofSet(derivesha.IndexKey(0), derivesha.IndexKey(150))
	s := derivesha.NewStream(stacktrie.New(ps.OnNode))
	for _, item := range items {
		require.NoError(t, s.Append(item))
	}
	root := s.Hash()
	for _, index := range []int{0, 150} {
		value, err := stacktrie.VerifyProof(root, derivesha.IndexKey(index), ps.Proof(derivesha.IndexKey(index)))
		require.NoError(t, err)
		assert.Equal(t, items[index], value)
	}
}

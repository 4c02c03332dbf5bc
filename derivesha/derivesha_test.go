package derivesha_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/derivesha"
	"github.com/stacktrie/stacktrie/internal/reftrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

// oracleRoot builds the trie DeriveSha describes in the reference trie:
// element i under the RLP encoding of i, empty elements left out.
func oracleRoot(items [][]byte) stacktrie.Hash {
	ref := reftrie.New()
	for i, item := range items {
		ref.Put(testgen.IndexKey(i), item)
	}
	return ref.Root()
}

// randomItems returns n encoded elements of 1 to 400 bytes, with an empty one
// now and then when withEmpty is set.
func randomItems(r *rand.Rand, n int, withEmpty bool) [][]byte {
	items := make([][]byte, n)
	for i := range items {
		if withEmpty && r.IntN(10) == 0 {
			continue
		}
		items[i] = testgen.Value(r, 1+r.IntN(400))
	}
	return items
}

// encoder is a List that is not Bytes, to take DeriveSha's general path.
type encoder [][]byte

func (e encoder) Len() int                           { return len(e) }
func (e encoder) EncodeIndex(i int, w *bytes.Buffer) { w.Write(e[i]) }

var listLengths = []int{0, 1, 2, 3, 127, 128, 129, 130, 255, 256, 257, 1000}

func TestDeriveShaAgainstOracle(t *testing.T) {
	seed := testgen.Seed(t)
	r := rand.New(rand.NewPCG(seed, 1))
	reused := stacktrie.New(nil)
	for _, n := range listLengths {
		for _, withEmpty := range []bool{false, true} {
			items := randomItems(r, n, withEmpty)
			want := oracleRoot(items)
			assert.Equal(t, want, derivesha.DeriveSha(derivesha.Bytes(items), nil), "seed %d, %d items, pooled trie", seed, n)
			assert.Equal(t, want, derivesha.DeriveSha(derivesha.Bytes(items), reused), "seed %d, %d items, reused trie", seed, n)
			assert.Equal(t, want, derivesha.DeriveSha(encoder(items), nil), "seed %d, %d items, general List", seed, n)
		}
	}
}

// TestDeriveShaLater derives list after list with DeriveShaLater, in one
// trie that starts with pairs of its own, and in none: after Flush, every
// root must be the reference trie's.
func TestDeriveShaLater(t *testing.T) {
	seed := testgen.Seed(t)
	r := rand.New(rand.NewPCG(seed, 2))
	var lists [][][]byte
	for range 4 {
		for _, n := range listLengths {
			lists = append(lists, randomItems(r, n, r.IntN(2) == 0))
		}
	}
	tr := stacktrie.New(nil)
	require.NoError(t, tr.Update([]byte{0xff}, []byte("left over")))
	roots := make([]stacktrie.Hash, len(lists))
	for i, items := range lists {
		switch i % 4 {
		case 0:
			derivesha.DeriveShaLater(derivesha.Bytes(items), tr, &roots[i])
		case 1:
			derivesha.DeriveShaLater(encoder(items), tr, &roots[i])
		case 2:
			derivesha.DeriveShaLater(derivesha.Bytes(items), nil, &roots[i])
		case 3:
			derivesha.DeriveShaLater(derivesha.Bytes(items), tr, nil) // dropped
			derivesha.DeriveShaLater(derivesha.Bytes(items), tr, &roots[i])
		}
	}
	tr.Flush()
	for i, items := range lists {
		assert.Equal(t, oracleRoot(items), roots[i], "seed %d, list %d of %d items", seed, i, len(items))
	}
}

func TestDeriveShaEmptyList(t *testing.T) {
	assert.Equal(t, stacktrie.EmptyRoot, derivesha.DeriveSha(derivesha.Bytes(nil), nil))
	assert.Equal(t, stacktrie.EmptyRoot, derivesha.DeriveSha(derivesha.Bytes{{}, {}}, nil), "empty elements are left out")
}

func TestDeriveShaResetsGivenTrie(t *testing.T) {
	tr := stacktrie.New(nil)
	require.NoError(t, tr.Update([]byte{0xff}, []byte("left over")))
	items := [][]byte{[]byte("a"), []byte("b")}
	assert.Equal(t, oracleRoot(items), derivesha.DeriveSha(derivesha.Bytes(items), tr))
}

func TestStreamMatchesDeriveSha(t *testing.T) {
	seed := testgen.Seed(t)
	r := rand.New(rand.NewPCG(seed, 2))
	s := derivesha.NewStream(nil)
	for _, n := range listLengths {
		items := randomItems(r, n, true)
		s.Reset()
		for _, item := range items {
			require.NoError(t, s.Append(item))
		}
		assert.Equal(t, n, s.Len())
		want := oracleRoot(items)
		assert.Equal(t, want, s.Hash(), "seed %d, %d items", seed, n)
		assert.Equal(t, want, s.Hash(), "Hash again")
	}
}

func TestStreamCopiesItems(t *testing.T) {
	items := randomItems(rand.New(rand.NewPCG(3, 3)), 200, false)
	s := derivesha.NewStream(stacktrie.New(nil))
	buf := make([]byte, 512)
	for _, item := range items {
		require.NoError(t, s.Append(buf[:copy(buf, item)]))
		for i := range buf {
			buf[i] = 0xaa
		}
	}
	assert.Equal(t, oracleRoot(items), s.Hash())
}

func TestStreamFinalized(t *testing.T) {
	s := derivesha.NewStream(nil)
	require.NoError(t, s.Append([]byte("a")))
	root := s.Hash()
	assert.ErrorIs(t, s.Append([]byte("b")), stacktrie.ErrFinalized)
	assert.Equal(t, 1, s.Len(), "a refused element is not counted")
	assert.Equal(t, root, s.Hash())
	assert.Equal(t, oracleRoot([][]byte{[]byte("a")}), root)
}

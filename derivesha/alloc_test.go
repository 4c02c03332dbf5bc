//go:build !race

// The race detector empties sync.Pools at random and allocates on its own, so
// allocation counts are only meaningful without it. Counts are exact, one use
// at a time: after a first use, each later use must allocate nothing.

package derivesha_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/derivesha"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

var noAllocs = make([]uint64, testgen.UsesAfterFirst)

func TestDeriveShaAllocs(t *testing.T) {
	items := randomItems(rand.New(rand.NewPCG(4, 4)), 300, true)
	tests := []struct {
		name string
		use  func(tr *stacktrie.Trie)
	}{
		{"Bytes, pooled trie", func(*stacktrie.Trie) { derivesha.DeriveSha(derivesha.Bytes(items), nil) }},
		{"Bytes, own trie", func(tr *stacktrie.Trie) { derivesha.DeriveSha(derivesha.Bytes(items), tr) }},
		{"general List, pooled trie", func(*stacktrie.Trie) { derivesha.DeriveSha(encoder(items), nil) }},
		{"general List, own trie", func(tr *stacktrie.Trie) { derivesha.DeriveSha(encoder(items), tr) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := func() func() {
				tr := stacktrie.New(nil)
				return func() { tt.use(tr) }
			}
			assert.Equal(t, noAllocs, testgen.AllocsPerUse(start))
		})
	}
}

// TestDeriveShaLaterAllocs derives 50 lists with DeriveShaLater in one
// reused trie, then flushes: after the first use, none allocates.
func TestDeriveShaLaterAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	lists := make([][][]byte, 50)
	for i := range lists {
		lists[i] = randomItems(r, r.IntN(40), true)
	}
	roots := make([]stacktrie.Hash, len(lists))
	for _, general := range []bool{false, true} {
		start := func() func() {
			tr := stacktrie.New(nil)
			return func() {
				for i, items := range lists {
					if general {
						derivesha.DeriveShaLater(encoder(items), tr, &roots[i])
					} else {
						derivesha.DeriveShaLater(derivesha.Bytes(items), tr, &roots[i])
					}
				}
				tr.Flush()
			}
		}
		assert.Equal(t, noAllocs, testgen.AllocsPerUse(start), "general List %v", general)
	}
}

func TestStreamAllocs(t *testing.T) {
	items := randomItems(rand.New(rand.NewPCG(5, 5)), 300, true)
	start := func() func() {
		s := derivesha.NewStream(nil)
		return func() {
			s.Reset()
			for _, item := range items {
				if err := s.Append(item); err != nil {
					t.Fatal(err)
				}
			}
			s.Hash()
		}
	}
	assert.Equal(t, noAllocs, testgen.AllocsPerUse(start))
}

func TestProverAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	for _, n := range []int{0, 1, 130, 1000} {
		items := randomItems(r, n, true)
		want := oracleRoot(items)
		var root stacktrie.Hash
		var proofs [][][]byte
		start := func() func() {
			p := derivesha.NewProver(0, 1, 127, 128, n-1, n, 5000)
			return func() { root, proofs = derivesha.Prove(p, derivesha.Bytes(items)) }
		}
		assert.Equal(t, noAllocs, testgen.AllocsPerUse(start), "%d items", n)
		assert.Equal(t, want, root, "%d items", n)
		for i, index := range []int{0, 1, 127, 128, n - 1, n, 5000} {
			value, err := stacktrie.VerifyProof(root, derivesha.IndexKey(index), proofs[i])
			assert.NoError(t, err, "%d items, index %d", n, index)
			if index >= 0 && index < n {
				assert.Equal(t, []byte(items[index]), nilIfEmpty(value), "%d items, index %d", n, index)
			}
		}
	}
}

// nilIfEmpty maps an empty value to nil, as randomItems leaves an element out.
func nilIfEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

package derivesha_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/derivesha"
	"github.com/stacktrie/stacktrie/internal/keccakonly"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

// deriveSha200 is a block's worth of encoded transactions: 200 items of 110
// to 365 bytes.
func deriveSha200() derivesha.Bytes {
	r := rand.New(rand.NewPCG(200, 200))
	items := make(derivesha.Bytes, 200)
	for i := range items {
		items[i] = testgen.Value(r, 110+r.IntN(256))
	}
	return items
}

// BenchmarkDeriveSha200 measures DeriveSha with the pooled trie (impl=stacktrie), and
// beside it Keccak alone over the blobs of the nodes it hashes (impl=keccak).
func BenchmarkDeriveSha200(b *testing.B) {
	items := deriveSha200()
	b.Run("impl=stacktrie", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			derivesha.DeriveSha(items, nil)
		}
	})
	b.Run("impl=keccak", func(b *testing.B) {
		var blobs keccakonly.Blobs
		derivesha.DeriveSha(items, stacktrie.New(blobs.OnNode))
		keccakonly.Benchmark(b, blobs)
	})
}

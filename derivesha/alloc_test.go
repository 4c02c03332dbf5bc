//go:build !race

// The race detector empties sync.Pools at random and allocates on its own, so
// allocation counts are only meaningful without it.

package derivesha_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/derivesha"
)

func TestDeriveShaAllocs(t *testing.T) {
	items := randomItems(rand.New(rand.NewPCG(4, 4)), 300, true)
	tr := stacktrie.New(nil)
	tests := []struct {
		name string
		run  func()
	}{
		{"Bytes, pooled trie", func() { derivesha.DeriveSha(derivesha.Bytes(items), nil) }},
		{"Bytes, own trie", func() { derivesha.DeriveSha(derivesha.Bytes(items), tr) }},
		{"general List", func() { derivesha.DeriveSha(encoder(items), nil) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run()
			assert.Zero(t, testing.AllocsPerRun(10, tt.run))
		})
	}
}

func TestStreamAllocs(t *testing.T) {
	items := randomItems(rand.New(rand.NewPCG(5, 5)), 300, true)
	s := derivesha.NewStream(nil)
	run := func() {
		s.Reset()
		for _, item := range items {
			if err := s.Append(item); err != nil {
				t.Fatal(err)
			}
		}
		s.Hash()
	}
	run()
	assert.Zero(t, testing.AllocsPerRun(10, run))
}

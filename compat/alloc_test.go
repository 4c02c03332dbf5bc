//go:build !race

// The race detector allocates on its own, so allocation counts are only
// meaningful without it. Counts are exact, one use at a time.

package compat_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/stacktrie/stacktrie/compat"
	"github.com/stacktrie/stacktrie/compat/internal/trietest"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

// TestListHasherAllocatesNothingWhenWarm checks the promise of the
// ListHasher's doc: once it has hashed a list, hashing another of the same
// shape allocates nothing.
func TestListHasherAllocatesNothingWhenWarm(t *testing.T) {
	pairs := trietest.DeriveShaPairs(trietest.RandomItems(caseRand(t, "listhasher-allocs"), 300, 1, 400))
	start := func() func() {
		hasher := compat.NewListHasher()
		return func() {
			hasher.Reset()
			for _, p := range pairs {
				if err := hasher.Update(p.Key, p.Value); err != nil {
					t.Fatal(err)
				}
			}
			hasher.Hash()
		}
	}
	noAllocs := make([]uint64, testgen.UsesAfterFirst)
	assert.Equal(t, noAllocs, testgen.AllocsPerUse(start))

}

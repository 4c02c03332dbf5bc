package incremental

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMountGroups adds groups at random paths, enough that the table
// grows, and checks every group's masks and flags against a map, over
// several Roots, the last across the generation counter's wrap.
func TestMountGroups(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	type masks struct{ mounted, stored uint16 }
	var g mountGroups
	g.reset()
	var previous map[string]masks
	for round := range 4 {
		if round == 3 {
			g.gen = math.MaxUint32 // the next reset wraps
		}
		g.reset()
		model := map[string]masks{}
		for len(model) < 2000 {
			path := make([]byte, r.IntN(7))
			for i := range path {
				path[i] = byte(r.IntN(16))
			}
			if _, ok := model[string(path)]; ok {
				continue // a record is covered once a Root
			}
			m := masks{mounted: uint16(r.Uint32())}
			m.stored = m.mounted & uint16(r.Uint32())
			g.add(path, m.mounted, m.stored)
			model[string(path)] = m
		}
		require.Greater(t, len(g.slots), mountGroupsInitialSlots, "round %d: the table grew", round)
		for path, want := range model {
			mounted, stored := g.masks([]byte(path))
			require.Equal(t, want, masks{mounted, stored}, "round %d: masks of %x", round, path)
			for nibble := range byte(16) {
				f, ok := g.flags(append([]byte(path), nibble))
				bit := uint16(1) << nibble
				require.Equal(t, want.mounted&bit != 0, ok, "round %d: %x %x mounted", round, path, nibble)
				wantFlags := nodeFlags(0)
				if ok {
					wantFlags = isBranch
					if want.stored&bit != 0 {
						wantFlags |= hasStored
					}
				}
				require.Equal(t, wantFlags, f, "round %d: flags of %x %x", round, path, nibble)
			}
		}
		// A path never added, and the paths of the round before that this
		// one has not, find nothing.
		mounted, stored := g.masks([]byte{0, 1, 2, 3, 4, 5, 6, 7})
		require.Zero(t, mounted|stored, "round %d: a path never added", round)
		for path := range previous {
			if _, ok := model[path]; !ok {
				mounted, stored := g.masks([]byte(path))
				require.Zero(t, mounted|stored, "round %d: %x of the round before", round, path)
			}
		}
		previous = model
	}
}

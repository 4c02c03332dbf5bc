package incremental

import (
	"math/rand/v2"
	"testing"

	"github.com/stacktrie/stacktrie"
)

// TestPendingSet runs random puts and takes against a map of flag lists,
// over hashes drawn from a small pool, so that duplicates are common, and
// made to share their home slots and some their first eight bytes, so that
// probing, the whole-hash check and removal's moving back are all tried.
func TestPendingSet(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pool := make([]stacktrie.Hash, 600)
	for i := range pool {
		for j := range pool[i] {
			pool[i][j] = byte(r.Uint32())
		}
		pool[i][0] &= 0x0f // few home slots, wherever the set's size
		if i%7 == 1 {
			copy(pool[i][:8], pool[i-1][:8]) // the same head, another hash
		}
	}
	var s pendingSet
	s.reset()
	model := map[stacktrie.Hash][]nodeFlags{}
	size := 0
	for step := range 200_000 {
		h := &pool[r.IntN(len(pool))]
		if r.IntN(3) > 0 {
			f := nodeFlags(r.IntN(4)) // 0 is never stored
			s.put(h, f)
			if f != 0 {
				model[*h] = append(model[*h], f)
				size++
			}
		} else {
			got := s.take(h)
			var want nodeFlags
			if fs := model[*h]; len(fs) > 0 {
				// Equal hashes stand for equal subtries, whose flags are
				// equal: any of the entries may come out.
				for k, f := range fs {
					if f == got {
						want = f
						model[*h] = append(fs[:k], fs[k+1:]...)
						size--
						break
					}
				}
				if want == 0 {
					t.Fatalf("step %d: take gave %d, none of the entries %v", step, got, fs)
				}
			}
			if got != want {
				t.Fatalf("step %d: take gave %d, want %d", step, got, want)
			}
		}
		if s.count != size {
			t.Fatalf("step %d: %d entries, want %d", step, s.count, size)
		}
		if step%50_000 == 49_999 {
			for h, fs := range model {
				for range fs {
					if s.take(&h) == 0 {
						t.Fatalf("an entry of %x is lost", h)
					}
				}
				delete(model, h)
			}
			size = 0
			if s.count != 0 {
				t.Fatalf("%d entries left after taking all", s.count)
			}
		}
	}
}

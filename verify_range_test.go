package stacktrie_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/reftrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

// provedRange is a range of pairs[i..j] from first, with its proof.
type provedRange struct {
	first        []byte
	keys, values [][]byte
	proof        [][]byte
	hasMore      bool
}

// proveRange proves pairs[i..j] from first with a ProofSet.
func proveRange(t *testing.T, pairs []testgen.Pair, first []byte, i, j int) provedRange {
	t.Helper()
	last := pairs[j].Key
	ps := stacktrie.NewProofSet(first, last)
	tr := stacktrie.New(ps.OnNode)
	for _, p := range pairs {
		require.NoError(t, tr.Update(p.Key, p.Value))
	}
	tr.Hash()
	r := provedRange{first: first, proof: ps.RangeProof(first, last), hasMore: j < len(pairs)-1}
	for _, p := range pairs[i : j+1] {
		r.keys, r.values = append(r.keys, p.Key), append(r.values, p.Value)
	}
	return r
}

// rangeRefused reports why go-ethereum's rules refuse the range, if they do:
// keys of which one is a prefix of the next, or edges of different lengths.
func rangeRefused(r provedRange) bool {
	for k := 1; k < len(r.keys); k++ {
		if bytes.HasPrefix(r.keys[k], r.keys[k-1]) {
			return true
		}
	}
	last := r.keys[len(r.keys)-1]
	return len(r.first) != len(last) && !(len(r.keys) == 1 && bytes.Equal(r.first, last))
}

// wholeInRange returns the reference trie's stored nodes whose every leaf
// lies between first and last: what a syncer can store from the range.
func wholeInRange(ref *reftrie.Trie, pairs []testgen.Pair, first, last []byte) []reftrie.Node {
	var out []reftrie.Node
	for _, n := range ref.Nodes() {
		inside := true
		for _, p := range pairs {
			if bytes.HasPrefix(reftrie.KeyNibbles(p.Key), n.Path) && (bytes.Compare(p.Key, first) < 0 || bytes.Compare(p.Key, last) > 0) {
				inside = false
				break
			}
		}
		if inside {
			out = append(out, n)
		}
	}
	return out
}

// TestVerifyRange proves random ranges of every key shape with a
// ProofSet and verifies them with a RangeVerifier: each is accepted with the
// right hasMore, unless go-ethereum's rules refuse it (ErrRangeInput), and
// the nodes reported are exactly the reference trie's nodes that lie wholly
// in the range, each after the nodes below it.
func TestVerifyRange(t *testing.T) {
	seed := testgen.Seed(t)
	r := rand.New(rand.NewPCG(seed, 13))
	for _, shape := range testgen.Shapes {
		t.Run(shape.Name, func(t *testing.T) {
			pairs := testgen.Pairs(r, shape, 1+r.IntN(400))
			ref := refTrie(pairs)
			root := stacktrie.Hash(ref.Root())
			var got []reftrie.Node
			v := stacktrie.NewRangeVerifier(func(path []byte, hash stacktrie.Hash, blob []byte) {
				got = append(got, reftrie.Node{Path: bytes.Clone(path), Hash: hash, Blob: bytes.Clone(blob)})
			})
			for round := range 30 {
				i := r.IntN(len(pairs))
				j := i + r.IntN(len(pairs)-i)
				first := pairs[i].Key
				if round%2 == 1 {
					first = before(pairs, i)
				}
				pr := proveRange(t, pairs, first, i, j)
				got = got[:0]
				hasMore, err := v.Verify(root, pr.first, pr.keys, pr.values, pr.proof)
				if rangeRefused(pr) {
					require.ErrorIs(t, err, stacktrie.ErrRangeInput, "seed %d, range %d..%d from %x", seed, i, j, first)
					continue
				}
				require.NoError(t, err, "seed %d, range %d..%d from %x", seed, i, j, first)
				assert.Equal(t, pr.hasMore, hasMore, "seed %d, range %d..%d", seed, i, j)
				want := wholeInRange(ref, pairs, first, pairs[j].Key)
				assert.ElementsMatch(t, want, got, "seed %d, range %d..%d from %x", seed, i, j, first)
				assertChildrenFirst(t, got)
			}
		})
	}
}

// before returns a key just below pairs[i]'s and above pairs[i-1]'s, or
// pairs[i]'s own where there is none.
func before(pairs []testgen.Pair, i int) []byte {
	k := slices.Clone(pairs[i].Key)
	for b := len(k) - 1; b >= 0; b-- {
		if k[b] > 0 {
			k[b]--
			if i == 0 || bytes.Compare(pairs[i-1].Key, k) < 0 {
				return k
			}
			break
		}
	}
	return pairs[i].Key
}

// assertChildrenFirst checks that every node comes after the nodes below it.
func assertChildrenFirst(t *testing.T, nodes []reftrie.Node) {
	t.Helper()
	for i, n := range nodes {
		for _, later := range nodes[i+1:] {
			if len(later.Path) > len(n.Path) && bytes.HasPrefix(later.Path, n.Path) {
				t.Errorf("node at %x reported before the node at %x below it", n.Path, later.Path)
			}
		}
	}
}

// TestVerifyRangeErrors checks that each refusal wraps its sentinel.
func TestVerifyRangeErrors(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 14))
	pairs := testgen.Pairs(r, testgen.Shapes[0], 300)
	root := stacktrie.Hash(refTrie(pairs).Root())
	pr := proveRange(t, pairs, pairs[100].Key, 100, 150)
	cases := []struct {
		name   string
		change func(pr *provedRange)
		want   error
	}{
		{"counts differ", func(pr *provedRange) { pr.values = pr.values[1:] }, stacktrie.ErrRangeInput},
		{"keys out of order", func(pr *provedRange) { pr.keys[3], pr.keys[4] = pr.keys[4], pr.keys[3] }, stacktrie.ErrRangeInput},
		{"an empty value", func(pr *provedRange) { pr.values[7] = nil }, stacktrie.ErrRangeInput},
		{"a key before first", func(pr *provedRange) { pr.first = pairs[101].Key }, stacktrie.ErrRangeInput},
		{"edges of different lengths", func(pr *provedRange) { pr.first = pairs[100].Key[:31] }, stacktrie.ErrRangeInput},
		{"a gap", func(pr *provedRange) {
			pr.keys, pr.values = slices.Delete(pr.keys, 9, 10), slices.Delete(pr.values, 9, 10)
		}, stacktrie.ErrRangeMismatch},
		{"a value changed", func(pr *provedRange) { pr.values[2] = []byte{1} }, stacktrie.ErrRangeMismatch},
		{"a proof node missing", func(pr *provedRange) { pr.proof = pr.proof[1:] }, stacktrie.ErrProofMissingNode},
		{"no pairs, leaves after first", func(pr *provedRange) { pr.keys, pr.values = nil, nil }, stacktrie.ErrRangeMore},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := pr
			d.keys, d.values, d.proof = slices.Clone(pr.keys), slices.Clone(pr.values), slices.Clone(pr.proof)
			c.change(&d)
			_, err := stacktrie.VerifyRange(root, d.first, d.keys, d.values, d.proof)
			require.Error(t, err)
			assert.True(t, errors.Is(err, c.want), "%v is not %v", err, c.want)
		})
	}
}

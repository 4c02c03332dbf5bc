package fuzz

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/derivesha"
	"github.com/stacktrie/stacktrie/internal/reftrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

// reader takes bytes off the fuzzer's input; past the end it gives zeros.
type reader struct{ data []byte }

func (r *reader) byte() byte {
	if len(r.data) == 0 {
		return 0
	}
	b := r.data[0]
	r.data = r.data[1:]
	return b
}

func (r *reader) bytes(n int) []byte {
	n = min(n, len(r.data))
	b := r.data[:n]
	r.data = r.data[n:]
	return b
}

// valueSize reads a value length: up to 127 bytes directly, larger sizes in
// steps of 64 bytes so that multi-block values are within the fuzzer's reach.
func (r *reader) valueSize() int {
	n := int(r.byte())
	if n < 0x80 {
		return n
	}
	return (n - 0x7f) * 64
}

// maxPairs bounds a fuzzed stream, so that a large input stays a quick run
// rather than hundreds of megabytes of repeated values.
const maxPairs = 1024

// decodePairs turns input into pairs in input order, not necessarily sorted,
// which makes the trie refuse some. Each pair is: how many leading bytes the
// key shares with the previous key, the length and bytes of the rest of the
// key, the value size and the value. Short values are filled from input,
// longer ones repeat a byte from input.
func decodePairs(data []byte) []testgen.Pair {
	r := &reader{data}
	var pairs []testgen.Pair
	var prev []byte
	for len(r.data) > 0 && len(pairs) < maxPairs {
		shared := min(int(r.byte()), len(prev))
		key := append(bytes.Clone(prev[:shared]), r.bytes(int(r.byte()%40))...)
		size := r.valueSize()
		var value []byte
		if size < 0x80 {
			value = bytes.Clone(r.bytes(size))
		} else {
			value = bytes.Repeat([]byte{r.byte()}, size)
		}
		pairs = append(pairs, testgen.Pair{Key: key, Value: value})
		prev = key
	}
	return pairs
}

type reported struct {
	path string
	hash stacktrie.Hash
	blob string
}

// FuzzTrie feeds pairs in arbitrary order to the trie: it must accept exactly
// the pairs with a non-empty value whose key is above every accepted key,
// refuse the others with the documented error, and then give the root and
// nodes of the reference trie over the accepted pairs.
func FuzzTrie(f *testing.F) {
	f.Add([]byte{0, 2, 'd', 'o', 4, 'v', 'e', 'r', 'b', 2, 1, 'g', 5, 'p', 'u', 'p', 'p', 'y'})
	f.Fuzz(func(t *testing.T, data []byte) {
		var got []reported
		tr := stacktrie.New(func(path []byte, hash stacktrie.Hash, blob []byte) {
			got = append(got, reported{string(path), hash, string(blob)})
		})
		ref := reftrie.New()
		var last []byte
		accepted := 0
		for _, p := range decodePairs(data) {
			err := tr.Update(p.Key, p.Value)
			switch {
			case len(p.Value) == 0:
				if !errors.Is(err, stacktrie.ErrEmptyValue) {
					t.Fatalf("key %x with empty value: got %v, want ErrEmptyValue", p.Key, err)
				}
			case accepted > 0 && bytes.Compare(p.Key, last) <= 0:
				if !errors.Is(err, stacktrie.ErrKeyOrder) {
					t.Fatalf("key %x after %x: got %v, want ErrKeyOrder", p.Key, last, err)
				}
			default:
				if err != nil {
					t.Fatalf("key %x: %v", p.Key, err)
				}
				ref.Put(p.Key, p.Value)
				last = p.Key
				accepted++
			}
		}
		if root, want := tr.Hash(), stacktrie.Hash(ref.Root()); root != want {
			t.Fatalf("root %v, want %v", root, want)
		}
		checkNodes(t, ref.Nodes(), got)
		if err := tr.Update([]byte{0xff}, []byte{1}); !errors.Is(err, stacktrie.ErrFinalized) {
			t.Fatalf("Update after Hash: got %v, want ErrFinalized", err)
		}
	})
}

// maxItems bounds a fuzzed list: enough to pass index 128 and 256, small
// enough to keep each run fast.
const maxItems = 300

// checkNodes fails unless got holds exactly the nodes of want, each reported
// after all its hashed descendants: after every node whose path it prefixes.
func checkNodes(t *testing.T, want []reftrie.Node, got []reported) {
	if len(got) != len(want) {
		t.Fatalf("%d nodes reported, want %d", len(got), len(want))
	}
	reportedAt := make(map[string]int, len(got))
	for i, n := range got {
		reportedAt[n.path] = i
	}
	for i, n := range got {
		for end := range len(n.path) {
			if j, ok := reportedAt[n.path[:end]]; ok && j < i {
				t.Fatalf("node at %x reported after its ancestor at %x", n.path, n.path[:end])
			}
		}
	}
	for _, n := range want {
		i, ok := reportedAt[string(n.Path)]
		if !ok {
			t.Fatalf("node at %x not reported", n.Path)
		}
		if got[i] != (reported{string(n.Path), n.Hash, string(n.Blob)}) {
			t.Fatalf("node at %x: got blob %x, want %x", n.Path, got[i].blob, n.Blob)
		}
	}
}

// FuzzDeriveSha compares DeriveSha, Stream and DeriveShaLater with the
// reference trie over lists of arbitrary elements, empty ones included.
func FuzzDeriveSha(f *testing.F) {
	f.Add([]byte{3, 'a', 'b', 'c', 0, 1, 0x80})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &reader{data}
		var items [][]byte
		for len(r.data) > 0 && len(items) < maxItems {
			items = append(items, bytes.Clone(r.bytes(r.valueSize())))
			// A count byte repeats the element, so lists reach past 128.
			for range int(r.byte() % 8) {
				items = append(items, items[len(items)-1])
			}
		}
		ref := reftrie.New()
		stream := derivesha.NewStream(nil)
		for i, item := range items {
			ref.Put(testgen.IndexKey(i), item)
			if err := stream.Append(item); err != nil {
				t.Fatal(err)
			}
		}
		want := stacktrie.Hash(ref.Root())
		if got := derivesha.DeriveSha(derivesha.Bytes(items), nil); got != want {
			t.Fatalf("DeriveSha of %d items: %v, want %v", len(items), got, want)
		}
		if got := stream.Hash(); got != want {
			t.Fatalf("Stream of %d items: %v, want %v", len(items), got, want)
		}
		// DeriveShaLater in one trie: the first half of the list, then all of it.
		half := items[:len(items)/2]
		refHalf := reftrie.New()
		for i, item := range half {
			refHalf.Put(testgen.IndexKey(i), item)
		}
		tr := stacktrie.New(nil)
		var gotHalf, gotAll stacktrie.Hash
		derivesha.DeriveShaLater(derivesha.Bytes(half), tr, &gotHalf)
		derivesha.DeriveShaLater(derivesha.Bytes(items), tr, &gotAll)
		tr.Flush()
		if wantHalf := stacktrie.Hash(refHalf.Root()); gotHalf != wantHalf {
			t.Fatalf("DeriveShaLater of %d items: %v, want %v", len(half), gotHalf, wantHalf)
		}
		if gotAll != want {
			t.Fatalf("DeriveShaLater of %d items after %d: %v, want %v", len(items), len(half), gotAll, want)
		}
	})
}

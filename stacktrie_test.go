package stacktrie_test

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/reftrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

// node is a reported node in a form that compares and prints well.
type node struct {
	Path string `json:"path"`
	Hash string `json:"hash"`
	Blob string `json:"blob"`
}

// hashingModes are the ways a Trie hashes nodes: side by side in the widest
// SIMD lanes the machine has (one at a time without any), in four lanes,
// and one at a time. Every oracle test runs in each.
var hashingModes = []struct {
	name string
	new  func(stacktrie.NodeFunc) *stacktrie.Trie
}{
	{"lanes", stacktrie.New},
	{"four lanes", stacktrie.NewFourLanes},
	{"scalar", stacktrie.NewScalar},
}

// recorder collects reported nodes in the order they are reported.
type recorder struct{ nodes []node }

func (r *recorder) onNode(path []byte, hash stacktrie.Hash, blob []byte) {
	r.nodes = append(r.nodes, node{hex.EncodeToString(path), hash.String(), hex.EncodeToString(blob)})
}

// build inserts pairs into a new Trie and returns its root and reported nodes.
func build(t testing.TB, newTrie func(stacktrie.NodeFunc) *stacktrie.Trie, pairs []testgen.Pair) (stacktrie.Hash, []node) {
	t.Helper()
	var rec recorder
	tr := newTrie(rec.onNode)
	for _, p := range pairs {
		require.NoError(t, tr.Update(p.Key, p.Value), "key %x", p.Key)
	}
	return tr.Hash(), rec.nodes
}

// assertNodes checks that got holds the nodes of want, and that each was
// reported after all its hashed descendants.
func assertNodes(t testing.TB, want, got []node, msgAndArgs ...any) bool {
	t.Helper()
	return assert.NoError(t, childrenFirst(got), msgAndArgs...) &&
		assert.Equal(t, byPath(want), byPath(got), msgAndArgs...)
}

// childrenFirst returns an error if a node was reported before one of its
// hashed descendants: before a node whose path it prefixes.
func childrenFirst(nodes []node) error {
	reported := make(map[string]int, len(nodes))
	for i, n := range nodes {
		reported[n.Path] = i
	}
	for i, n := range nodes {
		for end := 0; end < len(n.Path); end += 2 { // two hex digits a nibble
			if j, ok := reported[n.Path[:end]]; ok && j < i {
				return fmt.Errorf("node %q reported after its ancestor %q", n.Path, n.Path[:end])
			}
		}
	}
	return nil
}

// byPath returns nodes sorted by path; nil if there are none.
func byPath(nodes []node) []node {
	if len(nodes) == 0 {
		return nil
	}
	sorted := slices.Clone(nodes)
	slices.SortFunc(sorted, func(a, b node) int { return strings.Compare(a.Path, b.Path) })
	return sorted
}

// oracle returns the root and committed nodes of the reference trie.
func oracle(pairs []testgen.Pair) (stacktrie.Hash, []node) {
	ref := reftrie.New()
	for _, p := range pairs {
		ref.Put(p.Key, p.Value)
	}
	var nodes []node
	for _, n := range ref.Nodes() {
		nodes = append(nodes, node{hex.EncodeToString(n.Path), stacktrie.Hash(n.Hash).String(), hex.EncodeToString(n.Blob)})
	}
	return ref.Root(), nodes
}

func assertMatchesOracle(t *testing.T, pairs []testgen.Pair) {
	t.Helper()
	wantRoot, wantNodes := oracle(pairs)
	for _, mode := range hashingModes {
		root, nodes := build(t, mode.new, pairs)
		assert.Equal(t, wantRoot, root, "root, %s", mode.name)
		assertNodes(t, wantNodes, nodes, "reported nodes, %s", mode.name)
	}
}

func pairsOf(kv ...string) []testgen.Pair {
	var pairs []testgen.Pair
	for i := 0; i < len(kv); i += 2 {
		pairs = append(pairs, testgen.Pair{Key: []byte(kv[i]), Value: []byte(kv[i+1])})
	}
	return pairs
}

func TestPublishedVectors(t *testing.T) {
	// From the Ethereum tests' trietest.json and trieanyorder.json.
	tests := []struct {
		name  string
		pairs []testgen.Pair
		root  string
	}{
		{"puppy", pairsOf("do", "verb", "dog", "puppy", "doge", "coin", "horse", "stallion"),
			"0x5991bb8c6514148a29db676a14ac506cd2cd5775ace63c30a4fe457715e9ac84"},
		{"dogs", pairsOf("doe", "reindeer", "dog", "puppy", "dogglesworth", "cat"),
			"0x8aad789dff2f538bca5d8ea56e8abe10f4c7ba3a5dea95fea4cd6e7c3a1168d3"},
		{"singleItem", pairsOf("A", strings.Repeat("a", 50)),
			"0xd23786fb4a010da3ce639d66d5e904a11dbc02746d1ce25029e53290cabf28ab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, mode := range hashingModes {
				root, _ := build(t, mode.new, tt.pairs)
				assert.Equal(t, tt.root, root.String(), mode.name)
			}
		})
	}
}

func TestEmptyTrie(t *testing.T) {
	called := false
	tr := stacktrie.New(func([]byte, stacktrie.Hash, []byte) { called = true })
	assert.Equal(t, stacktrie.EmptyRoot, tr.Hash())
	assert.Equal(t, "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421", stacktrie.EmptyRoot.String())
	assert.False(t, called, "the empty trie has no node to report")
	root, _ := oracle(nil)
	assert.Equal(t, root, tr.Hash())
}

func TestShapes(t *testing.T) {
	long := func(n int, fill byte) string { return strings.Repeat(string(fill), n) }
	tests := []struct {
		name  string
		pairs []testgen.Pair
	}{
		{"one key", pairsOf("key", "value")},
		{"one key, tiny root", pairsOf("k", "v")},
		{"one long key", pairsOf(long(100, 'k'), "v")},
		{"empty key alone", pairsOf("", "v")},
		{"empty key first", pairsOf("", "v", "a", "w", "b", "x")},
		{"two keys, first nibble", pairsOf("\x10", "a", "\x20", "b")},
		{"two keys, second nibble", pairsOf("\x11", "a", "\x12", "b")},
		{"two keys, deep split", pairsOf(long(30, 'a')+"b", "1", long(30, 'a')+"c", "2")},
		{"odd extension", pairsOf("\x12\x34", long(40, 'v'), "\x12\x35", long(40, 'w'))},
		{"even extension", pairsOf("\x12\x34", long(40, 'v'), "\x12\x44", long(40, 'w'))},
		{"leaf of 31 bytes, embedded", pairsOf("\x10", long(28, 'a'), "\x20", long(28, 'b'))},
		{"leaf of 32 bytes, hashed", pairsOf("\x10", long(29, 'a'), "\x20", long(29, 'b'))},
		{"embedded leaves", pairsOf("\x01", "a", "\x02", "b", "\x03", "c")},
		{"embedded branch under hashed", pairsOf("\x01\x01", "a", "\x01\x02", "b", "\x02", long(40, 'c'))},
		{"prefix chain", pairsOf("d", "1", "do", "2", "dog", "3", "doge", "4")},
		{"prefix chain, long values", pairsOf("d", long(60, '1'), "do", long(60, '2'), "dog", long(60, '3'))},
		{"prefix then sibling", pairsOf("do", "verb", "dog", "puppy", "dot", "period", "e", "f")},
		{"prefix ends at odd nibble split", pairsOf("\x12", "a", "\x12\x34", "b", "\x12\x35", "c")},
		{"value 1 byte below 0x80", pairsOf("a", "\x7f", "b", "\x00")},
		{"value 1 byte from 0x80", pairsOf("a", "\x80", "b", "\xff")},
		{"value 55 bytes", pairsOf("a", long(55, 'x'), "b", long(55, 'y'))},
		{"value 56 bytes", pairsOf("a", long(56, 'x'), "b", long(56, 'y'))},
		{"value over a Keccak block", pairsOf("a", long(200, 'x'), "b", long(137, 'y'))},
		{"value of 64 KiB", pairsOf("a", long(1<<16, 'x'), "b", "y")},
		{"long keys, compact over 55 bytes", pairsOf(long(70, 'k')+"a", "1", long(70, 'k')+"b", "2")},
		{"branch value over 55 bytes", pairsOf("ab", long(56, 'x'), "abc", "1", "abd", "2")},
		{"many siblings", pairsOf("\x00", "0", "\x01", "1", "\x02", "2", "\x03", "3", "\x04", "4", "\x05", "5",
			"\x06", "6", "\x07", "7", "\x08", "8", "\x09", "9", "\x0a", "a", "\x0b", "b", "\x0c", "c",
			"\x0d", "d", "\x0e", "e", "\x0f", "f")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertMatchesOracle(t, tt.pairs)
		})
	}
}

// TestLeavesAroundEmbedding checks leaves of every size on both sides of 32
// bytes, where a leaf stops being embedded in its branch and is hashed: for
// keys of several lengths, every branch depth (so leaf paths of odd and even
// nibble counts), and values of 1 to 31 bytes. Each branch holds three
// leaves, so that the first two are hung as the next key arrives and the
// last as the branch is finalized, and a fourth key leaves the branch's
// parent.
func TestLeavesAroundEmbedding(t *testing.T) {
	for _, keyLen := range []int{1, 2, 3, 4, 5, 8, 9, 15, 16, 17, 30} {
		for split := range 2 * keyLen {
			key := func(first, at byte) []byte {
				k := bytes.Repeat([]byte{0xa5}, keyLen)
				for i := range split {
					setNibble(k, i, 5)
				}
				setNibble(k, 0, first)
				setNibble(k, split, at)
				return k
			}
			values := [][]byte{{0x7f}, {0x80}}
			for n := 1; n <= 31; n++ {
				values = append(values, bytes.Repeat([]byte{'v'}, n))
			}
			for _, value := range values {
				pairs := []testgen.Pair{
					{Key: key(5, 1), Value: value},
					{Key: key(5, 2), Value: value},
					{Key: key(5, 3), Value: value},
					{Key: key(9, 9), Value: value},
				}
				if split == 0 {
					pairs[0].Key, pairs[1].Key, pairs[2].Key = key(1, 1), key(2, 2), key(3, 3)
				}
				wantRoot, wantNodes := oracle(pairs)
				for _, mode := range hashingModes {
					root, nodes := build(t, mode.new, pairs)
					msg := fmt.Sprintf("keys of %d bytes, branch at nibble %d, value %x, %s", keyLen, split, value, mode.name)
					require.Equal(t, wantRoot, root, msg)
					require.True(t, assertNodes(t, wantNodes, nodes, msg))
				}
			}
		}
	}
}

// setNibble sets the i-th nibble of the packed key, high nibble first.
func setNibble(key []byte, i int, n byte) {
	if i%2 == 0 {
		key[i/2] = key[i/2]&0x0f | n<<4
	} else {
		key[i/2] = key[i/2]&0xf0 | n
	}
}

func TestRandomSetsAgainstOracle(t *testing.T) {
	seed := testgen.Seed(t)
	r := rand.New(rand.NewPCG(seed, 0))
	rounds := 40
	if testing.Short() {
		rounds = 8
	}
	for _, shape := range testgen.Shapes {
		t.Run(shape.Name, func(t *testing.T) {
			for range rounds {
				n := []int{1, 2, 3, 17, 100, 1000}[r.IntN(6)]
				pairs := testgen.Pairs(r, shape, n)
				wantRoot, wantNodes := oracle(pairs)
				for _, mode := range hashingModes {
					root, nodes := build(t, mode.new, pairs)
					require.Equal(t, wantRoot, root, "seed %d, %d pairs, %s", seed, len(pairs), mode.name)
					require.True(t, assertNodes(t, wantNodes, nodes, "seed %d, %d pairs, %s", seed, len(pairs), mode.name))
				}
			}
		})
	}
}

func TestErrors(t *testing.T) {
	const lastKey = "abcdefghijklmnopq"
	tests := []struct {
		name       string
		key, value string
		want       error
	}{
		{"empty value", "b", "", stacktrie.ErrEmptyValue},
		{"same key", lastKey, "v", stacktrie.ErrKeyOrder},
		{"smaller in the first eight bytes", "abcdeffz", "v", stacktrie.ErrKeyOrder},
		{"smaller in the next eight bytes", "abcdefghijklmnoa", "v", stacktrie.ErrKeyOrder},
		{"smaller past sixteen bytes", "abcdefghijklmnopp", "v", stacktrie.ErrKeyOrder},
		{"prefix of the last key, eight bytes", "abcdefgh", "v", stacktrie.ErrKeyOrder},
		{"prefix of the last key", "ab", "v", stacktrie.ErrKeyOrder},
		{"empty key after others", "", "v", stacktrie.ErrKeyOrder},
	}
	// The last key is long enough that the order is decided eight bytes at
	// a time, and then byte by byte.
	accepted := pairsOf("a", "1", lastKey, "2")
	later := pairsOf("b", "3", "c", "4")
	for _, tt := range tests {
		for _, mode := range hashingModes {
			t.Run(tt.name+"/"+mode.name, func(t *testing.T) {
				var rec recorder
				tr := mode.new(rec.onNode)
				for _, p := range accepted {
					require.NoError(t, tr.Update(p.Key, p.Value))
				}
				err := tr.Update([]byte(tt.key), []byte(tt.value))
				assert.ErrorIs(t, err, tt.want)
				// The error names the refused key, and the last one for an order.
				assert.Contains(t, err.Error(), fmt.Sprintf("key %#x", []byte(tt.key)))
				if tt.want == stacktrie.ErrKeyOrder {
					assert.Contains(t, err.Error(), fmt.Sprintf("after %#x", []byte(lastKey)))
				}
				// The refused call changed nothing: the stream goes on.
				for _, p := range later {
					require.NoError(t, tr.Update(p.Key, p.Value))
				}
				root, nodes := oracle(append(append([]testgen.Pair{}, accepted...), later...))
				assert.Equal(t, root, tr.Hash())
				assertNodes(t, nodes, rec.nodes)
			})
		}
	}
}

func TestFinalized(t *testing.T) {
	tr := stacktrie.New(nil)
	require.NoError(t, tr.Update([]byte("a"), []byte("1")))
	root := tr.Hash()
	assert.ErrorIs(t, tr.Update([]byte("b"), []byte("2")), stacktrie.ErrFinalized)
	assert.Equal(t, root, tr.Hash(), "Hash again gives the same root")
	want, _ := oracle(pairsOf("a", "1"))
	assert.Equal(t, want, root)

	tr.Reset()
	assert.Equal(t, stacktrie.EmptyRoot, tr.Hash(), "Reset empties the trie")
	tr.Reset()
	require.NoError(t, tr.Update([]byte("b"), []byte("2")), "a key smaller than before Reset is accepted")
	want, _ = oracle(pairsOf("b", "2"))
	assert.Equal(t, want, tr.Hash())
}

func TestUpdateCopiesInput(t *testing.T) {
	pairs := testgen.Pairs(rand.New(rand.NewPCG(1, 2)), testgen.Shapes[0], 200)
	want, wantNodes := oracle(pairs)

	var rec recorder
	tr := stacktrie.New(rec.onNode)
	key, value := make([]byte, 64), make([]byte, 2048)
	for _, p := range pairs {
		k, v := key[:copy(key, p.Key)], value[:copy(value, p.Value)]
		require.NoError(t, tr.Update(k, v))
		// Scribble over the caller's buffers right away.
		for i := range key {
			key[i] = 0xff
		}
		for i := range value {
			value[i] = 0xee
		}
	}
	assert.Equal(t, want, tr.Hash())
	assertNodes(t, wantNodes, rec.nodes)
}

func TestUpdateLeavesInputUntouched(t *testing.T) {
	pairs := testgen.Pairs(rand.New(rand.NewPCG(3, 4)), testgen.Shapes[4], 300)
	tr := stacktrie.New(func([]byte, stacktrie.Hash, []byte) {})
	for _, p := range pairs {
		key, value := bytes.Clone(p.Key), bytes.Clone(p.Value)
		require.NoError(t, tr.Update(p.Key, p.Value))
		require.Equal(t, key, p.Key)
		require.Equal(t, value, p.Value)
	}
	tr.Hash()
	for _, p := range pairs {
		_ = tr.Update(p.Key, p.Value) // ErrFinalized; must not write either
	}
	pairs2 := testgen.Pairs(rand.New(rand.NewPCG(3, 4)), testgen.Shapes[4], 300)
	assert.Equal(t, pairs2, pairs)
}

func TestResetReuse(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	tr := stacktrie.New(nil)
	for i := range 30 {
		shape := testgen.Shapes[i%len(testgen.Shapes)]
		pairs := testgen.Pairs(r, shape, 1+r.IntN(300))
		tr.Reset()
		for _, p := range pairs {
			require.NoError(t, tr.Update(p.Key, p.Value))
		}
		want, _ := oracle(pairs)
		require.Equal(t, want, tr.Hash(), "round %d, shape %s", i, shape.Name)
	}
}

func TestHashFormatting(t *testing.T) {
	h := stacktrie.EmptyRoot
	hexs := "56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421"
	assert.Equal(t, "0x"+hexs, h.String())
	assert.Equal(t, hexs, fmt.Sprintf("%x", h))
	assert.Equal(t, "0x"+hexs, fmt.Sprintf("%#x", h))
	assert.Equal(t, strings.ToUpper(hexs), fmt.Sprintf("%X", h))
	assert.Equal(t, "0x"+hexs, fmt.Sprintf("%v", h))
	assert.Equal(t, "0x"+hexs, fmt.Sprintf("%s", h))
	assert.Equal(t, `"0x`+hexs+`"`, fmt.Sprintf("%q", h))
	assert.Equal(t, "%!d(stacktrie.Hash=0x"+hexs+")", fmt.Sprintf("%d", h))
	assert.Equal(t, "0x56e8…", fmt.Sprintf("%.6s…", h))
	assert.Equal(t, "56e81f", fmt.Sprintf("%.3x", h), "precision counts bytes, as for a byte slice")
}

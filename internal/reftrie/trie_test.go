package reftrie

import (
	"bytes"
	"encoding/hex"
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEmptyTrie(t *testing.T) {
	tr := New()
	assert.Equal(t, "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421", hexRoot(tr))
	assert.Empty(t, tr.Nodes())
	assert.Empty(t, tr.Prove(nil))
	assert.Empty(t, tr.Prove([]byte("x")))
	_, ok := tr.Get(nil)
	assert.False(t, ok)
}

func TestPutGetDelete(t *testing.T) {
	tr := New()
	val := []byte("v1")
	tr.Put([]byte("k"), val)
	val[0] = 'X' // Put must have copied the value
	got, ok := tr.Get([]byte("k"))
	require.True(t, ok)
	assert.Equal(t, []byte("v1"), got)

	tr.Put([]byte("k"), []byte("v2"))
	got, _ = tr.Get([]byte("k"))
	assert.Equal(t, []byte("v2"), got)

	tr.Put([]byte("k"), nil)
	_, ok = tr.Get([]byte("k"))
	assert.False(t, ok)
	assert.Equal(t, EmptyRoot, tr.Root())

	tr.Put(nil, []byte("empty key"))
	got, ok = tr.Get([]byte{})
	require.True(t, ok)
	assert.Equal(t, []byte("empty key"), got)
}

// Hand-built encodings of small tries, all embedded-size except the root.
func TestSmallShapes(t *testing.T) {
	tests := []struct {
		name string
		kv   map[string]string
		root string // RLP of the root node
	}{
		// A lone key becomes a leaf holding all of its nibbles.
		{"single key", map[string]string{"A": "x"}, "c4822041" + "78"},
		{"empty key", map[string]string{"": "v"}, "c2" + "20" + "76"},
		// "" ends at the branch (slot 16); "\x01" is leaf [1] under slot 0.
		{"prefix at branch", map[string]string{"": "a", "\x01": "b"},
			"d3" + "c23162" + "808080808080808080808080808080" + "61"},
		// Shared nibble 1 -> extension to a branch of two empty-path leaves.
		{"extension", map[string]string{"\x12": "a", "\x13": "b"},
			"d7" + "11" + "d5" + "8080" + "c22061" + "c22062" + "808080808080808080808080" + "80"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := New()
			for k, v := range tt.kv {
				tr.Put([]byte(k), []byte(v))
			}
			blob := unhex(tt.root)
			require.Equal(t, []Node{{Path: []byte{}, Hash: keccak(blob), Blob: blob}}, tr.Nodes())
			assert.Equal(t, keccak(blob), tr.Root())
			assert.Equal(t, [][]byte{blob}, tr.Prove([]byte("anything")))
		})
	}
}

func TestInsertionOrderIrrelevant(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for round := 0; round < 50; round++ {
		keys := randomKeys(rng, 1+rng.Intn(60))
		a, b := New(), New()
		for _, k := range keys {
			a.Put(k, value(k))
		}
		// b gets the keys in another order, plus extra keys deleted again.
		extra := randomKeys(rng, 10)
		for _, k := range extra {
			b.Put(k, []byte("temporary"))
		}
		for _, i := range rng.Perm(len(keys)) {
			b.Put(keys[i], value(keys[i]))
		}
		for _, k := range extra {
			if _, ok := a.Get(k); !ok {
				b.Put(k, nil)
			} else {
				b.Put(k, value(k))
			}
		}
		require.Equal(t, a.Root(), b.Root())
		require.Equal(t, a.Nodes(), b.Nodes())
		checkNodes(t, a)
	}
}

func TestProve(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for _, v := range vectors {
		t.Run(v.name, func(t *testing.T) {
			tr := New()
			apply(t, tr, v.ops)
			probes := randomKeys(rng, 20)
			for _, o := range v.ops {
				probes = append(probes, decode(t, o.key))
			}
			for _, k := range probes {
				checkProof(t, tr, k)
			}
		})
	}
	t.Run("random", func(t *testing.T) {
		for round := 0; round < 50; round++ {
			tr := New()
			keys := randomKeys(rng, 1+rng.Intn(60))
			for _, k := range keys {
				tr.Put(k, value(k))
			}
			for _, k := range append(keys, randomKeys(rng, 20)...) {
				checkProof(t, tr, k)
			}
		}
	})
}

// checkProof checks that a proof is a hash-linked chain from the root whose
// nodes, except the root, are all at least 32 bytes.
func checkProof(t *testing.T, tr *Trie, key []byte) {
	t.Helper()
	proof := tr.Prove(key)
	if tr.Root() == EmptyRoot {
		require.Empty(t, proof)
		return
	}
	require.NotEmpty(t, proof)
	require.Equal(t, tr.Root(), keccak(proof[0]))
	for i := 1; i < len(proof); i++ {
		require.GreaterOrEqual(t, len(proof[i]), 32)
		h := keccak(proof[i])
		require.True(t, bytes.Contains(proof[i-1], append([]byte{0xa0}, h[:]...)),
			"proof node %d of key %x not referenced by its parent", i, key)
	}
	if v, ok := tr.Get(key); ok {
		// The value is in the last node.
		require.True(t, bytes.Contains(proof[len(proof)-1], rlpString(v)))
	}
}

// checkNodes checks the invariants of Nodes: root last with an empty path,
// hashes match blobs, only the root may be under 32 bytes, paths are
// distinct, and each non-root node is referenced by a later node on its path
// (which is what post-order means here).
func checkNodes(t *testing.T, tr *Trie) {
	t.Helper()
	nodes := tr.Nodes()
	if tr.Root() == EmptyRoot {
		require.Empty(t, nodes)
		return
	}
	require.NotEmpty(t, nodes)
	root := nodes[len(nodes)-1]
	require.Empty(t, root.Path)
	require.Equal(t, tr.Root(), root.Hash)
	seen := map[string]bool{}
	for i, n := range nodes {
		require.Equal(t, keccak(n.Blob), n.Hash)
		require.False(t, seen[string(n.Path)], "duplicate path %x", n.Path)
		seen[string(n.Path)] = true
		for _, nib := range n.Path {
			require.Less(t, nib, byte(16))
		}
		if i == len(nodes)-1 {
			continue
		}
		require.GreaterOrEqual(t, len(n.Blob), 32)
		ref := append([]byte{0xa0}, n.Hash[:]...)
		parent := false
		for _, p := range nodes[i+1:] {
			if bytes.HasPrefix(n.Path, p.Path) && len(p.Path) < len(n.Path) && bytes.Contains(p.Blob, ref) {
				parent = true
				break
			}
		}
		require.True(t, parent, "node at %s has no later parent", hex.EncodeToString(n.Path))
	}
}

// randomKeys mixes key shapes: 32-byte keys, short keys over a small
// alphabet (so nodes share prefixes and get embedded), and prefixes of each
// other, including the empty key.
func randomKeys(rng *rand.Rand, n int) [][]byte {
	base := make([]byte, 8)
	rng.Read(base)
	keys := make([][]byte, n)
	for i := range keys {
		switch rng.Intn(3) {
		case 0:
			keys[i] = make([]byte, 32)
			rng.Read(keys[i])
		case 1:
			keys[i] = make([]byte, 1+rng.Intn(3))
			for j := range keys[i] {
				keys[i][j] = byte(rng.Intn(4)) * 0x11
			}
		default:
			keys[i] = bytes.Clone(base[:rng.Intn(len(base)+1)])
		}
	}
	return keys
}

// value derives a deterministic value from a key, with lengths around the
// 32-byte embedding threshold.
func value(key []byte) []byte {
	lengths := []int{1, 31, 32, 55, 56, 200}
	h := keccak(key)
	return bytes.Repeat(h[:1], lengths[int(h[1])%len(lengths)])
}

func TestBranchesSmall(t *testing.T) {
	// "\x10" and "\x11" share nibble 1, then branch at [1] into two leaves
	// with no nibbles left (hex-prefix 0x20): an embedded branch of 22 bytes.
	tr := New()
	tr.Put([]byte{0x10}, []byte{1})
	tr.Put([]byte{0x11}, []byte{2})
	embedded := decodeHex(t, "d5"+"c22001"+"c22002"+"808080808080808080808080808080")
	assert.Equal(t, []Branch{{Path: []byte{1}, Ref: embedded}}, tr.Branches())

	// Ethereum's puppy vector: the root is an extension over nibble 6 to a
	// branch; "do" ends at a branch under 6,4,6,f; "dog" at one two nibbles
	// deeper, which holds "doge" below.
	tr = New()
	for _, kv := range [][2]string{{"do", "verb"}, {"dog", "puppy"}, {"doge", "coin"}, {"horse", "stallion"}} {
		tr.Put([]byte(kv[0]), []byte(kv[1]))
	}
	var paths [][]byte
	for _, b := range tr.Branches() {
		paths = append(paths, b.Path)
	}
	assert.Equal(t, [][]byte{{6}, {6, 4, 6, 15}, {6, 4, 6, 15, 6, 7}}, paths)

	assert.Empty(t, New().Branches(), "the empty trie")
	single := New()
	single.Put([]byte("k"), []byte("v"))
	assert.Empty(t, single.Branches(), "a lone leaf")
}

// TestBranchesRandom checks Branches against what defines a branch: the
// branch paths of a trie are the longest common nibble prefixes of
// neighbouring keys; and checks each reference against Nodes and the RLP
// rules.
func TestBranchesRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for round := 0; round < 60; round++ {
		tr := New()
		keys := randomKeys(rng, 1+rng.Intn(80))
		for _, k := range keys {
			tr.Put(k, value(k))
		}
		sorted := make([][]byte, 0, len(keys))
		for _, k := range keys {
			sorted = append(sorted, KeyNibbles(k))
		}
		slices.SortFunc(sorted, bytes.Compare)
		sorted = slices.CompactFunc(sorted, bytes.Equal)
		var want [][]byte
		for i := 1; i < len(sorted); i++ {
			want = append(want, sorted[i][:commonPrefix(sorted[i-1], sorted[i])])
		}
		slices.SortFunc(want, bytes.Compare)
		want = slices.CompactFunc(want, bytes.Equal)

		nodes := map[string]Node{}
		for _, n := range tr.Nodes() {
			nodes[string(n.Path)] = n
		}
		var got [][]byte
		for _, b := range tr.Branches() {
			got = append(got, b.Path)
			n, stored := nodes[string(b.Path)]
			switch {
			case len(b.Ref) == 32:
				require.True(t, stored, "hashed branch at %x is not among the nodes", b.Path)
				assert.Equal(t, n.Hash[:], b.Ref, "branch at %x", b.Path)
				assert.GreaterOrEqual(t, len(n.Blob), 32)
			default:
				require.Less(t, len(b.Ref), 32, "branch at %x", b.Path)
				assert.Equal(t, int(b.Ref[0]), 0xc0+len(b.Ref)-1, "branch at %x: an RLP list with a one-byte header", b.Path)
				if stored {
					require.Empty(t, b.Path, "only the root is stored under 32 bytes")
					assert.Equal(t, n.Blob, b.Ref)
				}
			}
		}
		assert.Equal(t, want, got, "round %d: branch paths, in key order", round)
	}
}

func decodeHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

package stacktrie_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/sha3"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/reftrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

// proveAll inserts pairs into a new trie of the given mode with a ProofSet
// for targets and returns the root and the ProofSet.
func proveAll(t testing.TB, newTrie func(stacktrie.NodeFunc) *stacktrie.Trie, pairs []testgen.Pair, targets [][]byte) (stacktrie.Hash, *stacktrie.ProofSet) {
	t.Helper()
	ps := stacktrie.NewProofSet(targets...)
	tr := newTrie(ps.OnNode)
	for _, p := range pairs {
		require.NoError(t, tr.Update(p.Key, p.Value), "key %x", p.Key)
	}
	return tr.Hash(), ps
}

// refTrie returns the reference trie over pairs.
func refTrie(pairs []testgen.Pair) *reftrie.Trie {
	ref := reftrie.New()
	for _, p := range pairs {
		ref.Put(p.Key, p.Value)
	}
	return ref
}

// checkProofs checks the proof of every target against the reference trie's
// Prove, and with VerifyProof against the reference trie's value.
func checkProofs(t *testing.T, pairs []testgen.Pair, targets [][]byte, msg string) {
	t.Helper()
	ref := refTrie(pairs)
	wantRoot := stacktrie.Hash(ref.Root())
	wantProofs := make([][][]byte, len(targets))
	for i, k := range targets {
		wantProofs[i] = ref.Prove(k)
	}
	for _, mode := range hashingModes {
		root, ps := proveAll(t, mode.new, pairs, targets)
		require.Equal(t, wantRoot, root, "%s, %s: root", msg, mode.name)
		for i, k := range targets {
			proof := ps.Proof(k)
			want := wantProofs[i]
			require.NotNil(t, proof, "%s, %s: key %x is a target", msg, mode.name, k)
			if len(want) == 0 {
				require.Empty(t, proof, "%s, %s: key %x", msg, mode.name, k)
			} else {
				require.Equal(t, want, proof, "%s, %s: proof of key %x", msg, mode.name, k)
			}
			value, err := stacktrie.VerifyProof(root, k, proof)
			require.NoError(t, err, "%s, %s: key %x", msg, mode.name, k)
			if v, ok := ref.Get(k); ok {
				require.Equal(t, v, value, "%s, %s: value of key %x", msg, mode.name, k)
			} else {
				require.Nil(t, value, "%s, %s: absent key %x", msg, mode.name, k)
			}
		}
	}
}

// targetsFor draws keys to prove for a set: present keys, and absent keys
// next to them (a prefix, an extension, a changed last nibble, a key of the
// same shape).
func targetsFor(r *rand.Rand, shape testgen.Shape, pairs []testgen.Pair, n int) [][]byte {
	var targets [][]byte
	for range n {
		k := pairs[r.IntN(len(pairs))].Key
		switch r.IntN(6) {
		case 0, 1:
			targets = append(targets, k)
		case 2:
			targets = append(targets, k[:r.IntN(len(k)+1)])
		case 3:
			targets = append(targets, append(slices.Clone(k), byte(r.Uint32())))
		case 4:
			if len(k) > 0 {
				k = slices.Clone(k)
				k[len(k)-1] ^= byte(1 + r.IntN(15))
			}
			targets = append(targets, k)
		default:
			targets = append(targets, shape.Keys(r, 1)[0])
		}
	}
	return targets
}

func TestProofsAgainstOracle(t *testing.T) {
	seed := testgen.Seed(t)
	r := rand.New(rand.NewPCG(seed, 6))
	sizes := []int{1, 2, 3, 17, 300}
	rounds := 3
	if testing.Short() {
		rounds = 1
	}
	for _, shape := range testgen.Shapes {
		t.Run(shape.Name, func(t *testing.T) {
			for range rounds {
				for _, n := range sizes {
					pairs := testgen.Pairs(r, shape, n)
					targets := targetsFor(r, shape, pairs, 20)
					checkProofs(t, pairs, targets, fmt.Sprintf("seed %d, %d pairs", seed, len(pairs)))
				}
			}
		})
	}
}

func TestProofShapes(t *testing.T) {
	long := func(n int, fill byte) string { return strings.Repeat(string(fill), n) }
	tests := []struct {
		name    string
		pairs   []testgen.Pair
		targets []string
	}{
		{"one key, root under 32 bytes", pairsOf("k", "v"), []string{"k", "", "j", "kk", "l"}},
		{"one key, hashed root", pairsOf("key", long(40, 'v')), []string{"key", "ke", "keys", ""}},
		{"empty key alone", pairsOf("", "v"), []string{"", "\x00", "a"}},
		{"empty key and others", pairsOf("", "v", "a", long(40, 'w'), "b", "x"), []string{"", "a", "b", "c", "\x60"}},
		{"prefix chain", pairsOf("d", "1", "do", "2", "dog", "3", "doge", "4"),
			[]string{"", "d", "do", "dog", "doge", "doges", "dot", "\x64\x6f\x60", "e"}},
		{"prefix chain, long values", pairsOf("d", long(60, '1'), "do", long(60, '2'), "dog", long(60, '3')),
			[]string{"d", "do", "dog", "dogs", "c", "", "\x64\x60"}},
		{"key ends inside an extension", pairsOf("\x12\x34\x56", long(40, 'a'), "\x12\x34\x57", long(40, 'b')),
			[]string{"\x12", "\x12\x34", "\x12\x34\x56", "\x12\x34\x55", "\x12\x44\x56", "\x13"}},
		{"odd extension", pairsOf("\x12\x34", long(40, 'v'), "\x12\x35", long(40, 'w')),
			[]string{"\x12\x34", "\x12\x35", "\x12\x36", "\x12", "\x22\x34"}},
		{"embedded leaves", pairsOf("\x01", "a", "\x02", "b", "\x03", "c"), []string{"\x01", "\x04", "\x00", "\x01\x01"}},
		{"embedded branch under hashed", pairsOf("\x01\x01", "a", "\x01\x02", "b", "\x02", long(40, 'c')),
			[]string{"\x01\x01", "\x01\x02", "\x01\x03", "\x01", "\x02", "\x02\x02"}},
		{"branch value over 55 bytes", pairsOf("ab", long(56, 'x'), "abc", "1", "abd", "2"),
			[]string{"ab", "abc", "abe", "a"}},
		{"long keys", pairsOf(long(70, 'k')+"a", "1", long(70, 'k')+"b", "2"),
			[]string{long(70, 'k') + "a", long(70, 'k'), long(71, 'k')}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var targets [][]byte
			for _, k := range tt.targets {
				targets = append(targets, []byte(k))
			}
			checkProofs(t, tt.pairs, targets, tt.name)
		})
	}
}

func TestProofOneKeyRootUnder32Bytes(t *testing.T) {
	for _, mode := range hashingModes {
		root, ps := proveAll(t, mode.new, pairsOf("k", "v"), [][]byte{[]byte("k")})
		proof := ps.Proof([]byte("k"))
		require.Len(t, proof, 1, mode.name)
		assert.Less(t, len(proof[0]), 32, "the root is in the proof whatever its size")
		value, err := stacktrie.VerifyProof(root, []byte("k"), proof)
		require.NoError(t, err)
		assert.Equal(t, []byte("v"), value)
	}
}

func TestProofEmptyTrie(t *testing.T) {
	for _, mode := range hashingModes {
		root, ps := proveAll(t, mode.new, nil, [][]byte{[]byte("a"), nil})
		require.Equal(t, stacktrie.EmptyRoot, root)
		for _, k := range [][]byte{[]byte("a"), nil} {
			proof := ps.Proof(k)
			assert.NotNil(t, proof, "%s: a target gets a non-nil proof", mode.name)
			assert.Empty(t, proof, "%s: the empty trie has no nodes", mode.name)
			value, err := stacktrie.VerifyProof(root, k, proof)
			assert.NoError(t, err)
			assert.Nil(t, value)
		}
		assert.Nil(t, ps.Proof([]byte("b")), "not a target")
	}
	// The empty string hashes to EmptyRoot but is not a node.
	_, err := stacktrie.VerifyProof(stacktrie.EmptyRoot, []byte("a"), [][]byte{{0x80}})
	assert.ErrorIs(t, err, stacktrie.ErrProofMalformed)
	// An empty proof proves nothing under another root.
	_, err = stacktrie.VerifyProof(stacktrie.Hash{1}, []byte("a"), nil)
	assert.ErrorIs(t, err, stacktrie.ErrProofMissingNode)
}

func TestProofSetTargets(t *testing.T) {
	pairs := pairsOf("a", strings.Repeat("1", 40), "b", strings.Repeat("2", 40), "c", strings.Repeat("3", 40))
	ref := refTrie(pairs)
	// Repeats and any order; the caller's slices may change afterwards.
	keys := [][]byte{[]byte("c"), []byte("a"), []byte("c"), []byte("zz"), []byte("a")}
	ps := stacktrie.NewProofSet(keys...)
	keys[0][0] = 'x'
	tr := stacktrie.New(ps.OnNode)
	for _, p := range pairs {
		require.NoError(t, tr.Update(p.Key, p.Value))
	}
	tr.Hash()
	for _, k := range []string{"a", "c", "zz"} {
		assert.Equal(t, ref.Prove([]byte(k)), ps.Proof([]byte(k)), "key %q", k)
	}
	for _, k := range []string{"b", "x", "", "aa"} {
		assert.Nil(t, ps.Proof([]byte(k)), "key %q is not a target", k)
	}
	assert.Nil(t, stacktrie.NewProofSet().Proof(nil), "no targets")
}

func TestProofSetReset(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 6))
	shape := testgen.Shapes[0]
	first, second := testgen.Pairs(r, shape, 50), testgen.Pairs(r, shape, 50)
	targets := [][]byte{first[3].Key, second[7].Key, first[10].Key}
	ps := stacktrie.NewProofSet(targets...)
	tr := stacktrie.New(ps.OnNode)
	for _, pairs := range [][]testgen.Pair{first, second} {
		tr.Reset()
		ps.Reset()
		for _, p := range pairs {
			require.NoError(t, tr.Update(p.Key, p.Value))
		}
		tr.Hash()
		ref := refTrie(pairs)
		for _, k := range targets {
			assert.Equal(t, ref.Prove(k), ps.Proof(k))
		}
	}
}

// TestProofSetManyTargets proves every key of a large set, and as many
// absent keys, in one pass. The reference trie rebuilds itself for each
// proof, so it checks a sample; VerifyProof checks them all.
func TestProofSetManyTargets(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 6))
	n := 2000
	if testing.Short() {
		n = 500
	}
	pairs := testgen.Pairs(r, testgen.Shapes[0], n)
	targets := make([][]byte, 0, 2*len(pairs))
	for _, p := range pairs {
		targets = append(targets, p.Key)
	}
	targets = append(targets, testgen.Shapes[0].Keys(r, len(pairs))...)
	ref := refTrie(pairs)
	sample := map[int][][]byte{}
	for range 20 {
		i := r.IntN(len(targets))
		sample[i] = ref.Prove(targets[i])
	}
	for _, mode := range hashingModes {
		root, ps := proveAll(t, mode.new, pairs, targets)
		require.Equal(t, stacktrie.Hash(ref.Root()), root)
		for i, k := range targets {
			proof := ps.Proof(k)
			if want, ok := sample[i]; ok {
				require.Equal(t, want, proof, "%s: key %x", mode.name, k)
			}
			value, err := stacktrie.VerifyProof(root, k, proof)
			require.NoError(t, err)
			if i < len(pairs) {
				require.Equal(t, pairs[i].Value, value)
			} else {
				require.Nil(t, value)
			}
		}
	}
}

// TestProofSetCustomNodeFunc calls OnNode from a NodeFunc that does more.
func TestProofSetCustomNodeFunc(t *testing.T) {
	pairs := pairsOf("do", "verb", "dog", "puppy", "doge", "coin", "horse", "stallion")
	ps := stacktrie.NewProofSet([]byte("doge"))
	stored := 0
	tr := stacktrie.New(func(path []byte, hash stacktrie.Hash, blob []byte) {
		stored++
		ps.OnNode(path, hash, blob)
	})
	for _, p := range pairs {
		require.NoError(t, tr.Update(p.Key, p.Value))
	}
	root := tr.Hash()
	assert.Positive(t, stored)
	value, err := stacktrie.VerifyProof(root, []byte("doge"), ps.Proof([]byte("doge")))
	require.NoError(t, err)
	assert.Equal(t, []byte("coin"), value)
}

func keccak(b []byte) stacktrie.Hash {
	d := sha3.NewLegacyKeccak256()
	d.Write(b)
	return stacktrie.Hash(d.Sum(nil))
}

// TestVerifyProofCorrupted damages valid proofs in every way a proof can be
// damaged; each must be refused with the right error.
func TestVerifyProofCorrupted(t *testing.T) {
	long := strings.Repeat("x", 40)
	pairs := pairsOf("\x01\x23", long, "\x01\x24", long, "\x01\x35", long, "\x02", long, "\x12\x34\x56", long)
	ref := refTrie(pairs)
	root := stacktrie.Hash(ref.Root())
	key := []byte("\x01\x23")
	valid := ref.Prove(key)
	require.Len(t, valid, 5, "branches at nibble paths (), 0, 01, 012, and the leaf")
	value, err := stacktrie.VerifyProof(root, key, valid)
	require.NoError(t, err)
	require.Equal(t, []byte(long), value)

	clone := func() [][]byte {
		p := make([][]byte, len(valid))
		for i := range valid {
			p[i] = bytes.Clone(valid[i])
		}
		return p
	}
	tests := []struct {
		name   string
		root   stacktrie.Hash
		key    []byte
		damage func([][]byte) [][]byte
		want   error
	}{
		{"flip a byte of the root node", root, key, func(p [][]byte) [][]byte { p[0][5] ^= 1; return p }, stacktrie.ErrProofHash},
		{"flip a byte of the middle node", root, key, func(p [][]byte) [][]byte { p[1][40] ^= 0x80; return p }, stacktrie.ErrProofHash},
		{"flip the last byte of the leaf", root, key, func(p [][]byte) [][]byte { p[4][len(p[4])-1]++; return p }, stacktrie.ErrProofHash},
		{"drop the root", root, key, func(p [][]byte) [][]byte { return p[1:] }, stacktrie.ErrProofHash},
		{"drop the middle node", root, key, func(p [][]byte) [][]byte { return append(p[:2], p[3:]...) }, stacktrie.ErrProofHash},
		{"truncate", root, key, func(p [][]byte) [][]byte { return p[:4] }, stacktrie.ErrProofMissingNode},
		{"no nodes", root, key, func(p [][]byte) [][]byte { return nil }, stacktrie.ErrProofMissingNode},
		{"swap two nodes", root, key, func(p [][]byte) [][]byte { p[3], p[4] = p[4], p[3]; return p }, stacktrie.ErrProofHash},
		{"truncate a node", root, key, func(p [][]byte) [][]byte { p[1] = p[1][:len(p[1])-1]; return p }, stacktrie.ErrProofHash},
		{"extend a node", root, key, func(p [][]byte) [][]byte { p[4] = append(p[4], 0); return p }, stacktrie.ErrProofHash},
		{"node past the path", root, key, func(p [][]byte) [][]byte { return append(p, p[4]) }, stacktrie.ErrProofMalformed},
		{"other root", stacktrie.Hash{1}, key, func(p [][]byte) [][]byte { return p }, stacktrie.ErrProofHash},
		{"empty root", stacktrie.EmptyRoot, key, func(p [][]byte) [][]byte { return p }, stacktrie.ErrProofHash},
		{"a key that needs more nodes", root, []byte("\x01\x24"), func(p [][]byte) [][]byte { return p[:4] }, stacktrie.ErrProofMissingNode},
		{"a proof of another key", root, []byte("\x12\x34\x56"), func(p [][]byte) [][]byte { return p }, stacktrie.ErrProofHash},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			value, err := stacktrie.VerifyProof(tt.root, tt.key, tt.damage(clone()))
			assert.ErrorIs(t, err, tt.want)
			assert.Nil(t, value)
		})
	}
}

// TestVerifyProofMalformed gives VerifyProof root nodes that hash to the
// root but are not canonical trie nodes.
func TestVerifyProofMalformed(t *testing.T) {
	hash32 := strings.Repeat("\xab", 32)
	branch := rlpShortList // 16 children then the value
	empty16 := strings.Repeat("\x80", 16)
	tests := []struct {
		name   string
		node   string
		key    string
		reason string
	}{
		{"not RLP at all", "", "a", "empty input"},
		{"a string, not a list", "\x83abc", "a", "not a list"},
		{"trailing bytes", "\xc2\x20\x01\x00", "", "after the node"},
		{"list cut short", "\xc5\x20\x01", "", "longer than its input"},
		{"string cut short inside", "\xc4\x20\x85ab", "", "longer than its input"},
		{"one item", "\xc1\x20", "", "list of 1 items"},
		{"three items", "\xc3\x20\x01\x02", "", "list of 3 items"},
		{"eighteen items", "\xd2" + empty16 + "\x80\x80", "", "more than 17"},
		{"hex-prefix flag 4", "\xc2\x40\x01", "", "flag 4"},
		{"even path, nonzero padding", "\xc2\x21\x01", "", "padding"},
		{"path is a list", "\xc3\xc1\x20\x01", "", "not a hex-prefix string"},
		{"leaf value is a list", "\xc3\x20\xc1\x01", "", "leaf value"},
		{"leaf value empty", "\xc2\x20\x80", "", "leaf value"},
		{"single byte with a string header", "\xc3\x20\x81\x01", "", "single byte"},
		{"long header for a short string", "\xc4\x20\xb8\x01\x61", "", "long header"},
		{"long header for a short list", "\xf8\x02\x20\x01", "", "long header"},
		{"length with a leading zero", "\xc5\x20\xb9\x00\x38\x61", "", "leading zero"},
		{"huge length", "\xca\x20\xbf\xff\xff\xff\xff\xff\xff\xff\xff", "", "longer than"},
		{"extension without nibbles", "\xe2\x00\xa0" + hash32, "a", "without nibbles"},
		{"extension without child", "\xc2\x16\x80", "a", "without child"},
		{"extension to a leaf", "\xc4\x16\xc2\x20\x61", "a", "not a branch"},
		{"reference of 31 bytes", "\xe1\x16\x9f" + hash32[:31], "a", "reference of 31 bytes"},
		{"reference of 33 bytes", "\xe3\x16\xa1" + hash32 + "\x01", "a", "reference of 33 bytes"},
		{"branch value is a list", branch(empty16, "\xc1\x01"), "", "branch value is a list"},
		{"branch child of 20 bytes", branch("\x94"+strings.Repeat("\x01", 20), strings.Repeat("\x80", 15), "\x80"), "\x00", "reference of 20 bytes"},
		{"embedded node of 32 bytes", branch("\xdf\x20"+"\x9d"+strings.Repeat("v", 29), strings.Repeat("\x80", 15), "\x80"), "\x00", "embedded node of 32 bytes"},
		{"bad embedded node", branch("\xc2\x40\x01", strings.Repeat("\x80", 15), "\x80"), "\x00", "flag 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			node := []byte(tt.node)
			value, err := stacktrie.VerifyProof(keccak(node), []byte(tt.key), [][]byte{node})
			assert.ErrorIs(t, err, stacktrie.ErrProofMalformed)
			assert.ErrorContains(t, err, tt.reason)
			assert.Nil(t, value)
		})
	}
}

// rlpShortList encodes items, already encoded, as a list of under 56 bytes.
func rlpShortList(items ...string) string {
	s := strings.Join(items, "")
	return string([]byte{byte(0xc0 + len(s))}) + s
}

// TestVerifyProofHandBuilt checks the walk through hand-encoded nodes whose
// root hashes are computed here: values in leaves and in a branch's 17th slot,
// embedded nodes, absence at every kind of node.
func TestVerifyProofHandBuilt(t *testing.T) {
	slots := func(children map[int]string, value string) []string {
		items := make([]string, 17)
		for i := range 16 {
			items[i] = "\x80"
			if c, ok := children[i]; ok {
				items[i] = c
			}
		}
		items[16] = value
		return items
	}
	leafEmpty := rlpShortList("\x20", "\x81\xaa") // leaf, no nibbles, value 0xaa
	leafOne := rlpShortList("\x31", "\x81\xbb")   // leaf, nibble 1, value 0xbb
	branch := rlpShortList(slots(map[int]string{0: leafEmpty, 2: leafOne}, "\x83top")...)
	inner := rlpShortList(slots(map[int]string{3: rlpShortList("\x20", "a")}, "b")...)
	ext := rlpShortList("\x11", inner) // extension over nibble 1 to an embedded branch
	tests := []struct {
		name  string
		node  string
		key   string
		value string // "" for absence
	}{
		{"leaf with empty path, empty key", rlpShortList("\x20", "a"), "", "a"},
		{"leaf with empty path, other key", rlpShortList("\x20", "a"), "\x00", ""},
		{"leaf with even path", rlpShortList("\x82\x20\x12", "a"), "\x12", "a"},
		{"leaf with even path, other key", rlpShortList("\x82\x20\x12", "a"), "\x13", ""},
		{"leaf with even path, longer key", rlpShortList("\x82\x20\x12", "a"), "\x12\x00", ""},
		{"leaf with odd path, empty key", leafOne, "", ""},
		{"branch value for the empty key", branch, "", "top"},
		{"embedded leaf at slot 0, a nibble left", branch, "\x00", ""},
		{"embedded leaf at slot 2", branch, "\x21", "\xbb"},
		{"embedded leaf at slot 2, other nibble", branch, "\x22", ""},
		{"empty slot", branch, "\x30", ""},
		{"extension, branch value", ext, "", ""},
		{"extension then embedded leaf", ext, "\x13", "a"},
		{"extension then empty slot", ext, "\x12", ""},
		{"key leaves the extension", ext, "\x23", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			node := []byte(tt.node)
			require.Less(t, len(node), 56)
			value, err := stacktrie.VerifyProof(keccak(node), []byte(tt.key), [][]byte{node})
			require.NoError(t, err)
			if tt.value == "" {
				assert.Nil(t, value)
			} else {
				assert.Equal(t, []byte(tt.value), value)
			}
		})
	}
}

package compat_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/compat/internal/trietest"
	"github.com/stacktrie/stacktrie/derivesha"
)

// proofRecorder is the ethdb.KeyValueWriter go-ethereum's Trie.Prove writes
// a proof into. It keeps the nodes in the order they are written, and checks
// that each is keyed by its hash.
type proofRecorder struct {
	nodes [][]byte
	err   error
}

func (r *proofRecorder) Put(key, value []byte) error {
	if !bytes.Equal(key, crypto.Keccak256(value)) && r.err == nil {
		r.err = fmt.Errorf("proof node %d keyed by %x, not its hash", len(r.nodes), key)
	}
	r.nodes = append(r.nodes, bytes.Clone(value))
	return nil
}

func (r *proofRecorder) Delete([]byte) error { return errors.New("proof recorder: delete") }

// proofDB is the ethdb.KeyValueReader go-ethereum's trie.VerifyProof reads a
// proof from: nodes keyed by their hashes.
type proofDB map[string][]byte

func newProofDB(proof [][]byte) proofDB {
	db := make(proofDB, len(proof))
	for _, node := range proof {
		db[string(crypto.Keccak256(node))] = node
	}
	return db
}

func (db proofDB) Has(key []byte) (bool, error) {
	_, ok := db[string(key)]
	return ok, nil
}

func (db proofDB) Get(key []byte) ([]byte, error) {
	if node, ok := db[string(key)]; ok {
		return node, nil
	}
	return nil, errors.New("proof db: not found")
}

// gethTrie returns go-ethereum's in-memory trie over the pairs, not
// committed, so that it can prove keys.
func gethTrie(t testing.TB, pairs []trietest.Pair) *trie.Trie {
	t.Helper()
	tr := trie.NewEmpty(nil)
	for _, p := range pairs {
		require.NoError(t, tr.Update(p.Key, p.Value))
	}
	return tr
}

// gethProve returns the nodes go-ethereum's Trie.Prove writes for key, in
// the order it writes them.
func gethProve(t testing.TB, tr *trie.Trie, key []byte) [][]byte {
	t.Helper()
	var rec proofRecorder
	require.NoError(t, tr.Prove(key, &rec))
	require.NoError(t, rec.err)
	return rec.nodes
}

// proofTargets picks keys to prove in a set: up to n present keys, and as
// many absent keys next to present ones (cut short, extended, changed).
func proofTargets(rng *rand.Rand, pairs []trietest.Pair, n int) [][]byte {
	targets := [][]byte{nil, {0x00}, {0xff, 0xff}}
	if len(pairs) == 0 {
		return targets
	}
	for range n {
		k := pairs[rng.IntN(len(pairs))].Key
		targets = append(targets, k)
		switch rng.IntN(3) {
		case 0:
			targets = append(targets, k[:rng.IntN(len(k)+1)])
		case 1:
			targets = append(targets, append(slices.Clone(k), byte(rng.Uint32())))
		default:
			if len(k) > 0 {
				k = slices.Clone(k)
				k[rng.IntN(len(k))] ^= byte(1 + rng.IntN(255))
			}
			targets = append(targets, k)
		}
	}
	return targets
}

// assertProofsMatchGeth proves targets over pairs with a ProofSet, and checks
// that each proof is the one go-ethereum's Trie.Prove writes, that
// go-ethereum's trie.VerifyProof accepts it with the key's value (nil for
// an absent key), and that VerifyProof accepts go-ethereum's proof alike.
func assertProofsMatchGeth(t *testing.T, pairs []trietest.Pair, targets [][]byte) {
	t.Helper()
	ps := stacktrie.NewProofSet(targets...)
	st := stacktrie.New(ps.OnNode)
	require.NoError(t, trietest.Insert(st, pairs))
	root := common.Hash(st.Hash())

	gt := gethTrie(t, pairs)
	require.Equal(t, gt.Hash(), root, "root")
	for _, key := range targets {
		want, err := gt.Get(key)
		require.NoError(t, err)
		if len(want) == 0 {
			want = nil
		}

		proof := ps.Proof(key)
		gethProof := gethProve(t, gt, key)
		if len(gethProof) == 0 {
			// Only the empty trie has nothing to prove; geth's
			// VerifyProof has no proof for it, ours takes the empty one.
			require.Equal(t, types.EmptyRootHash, root)
			assert.Empty(t, proof, "key %x", key)
			assert.NotNil(t, proof, "key %x", key)
		} else {
			require.Equal(t, gethProof, proof, "proof of key %x", key)
			value, err := trie.VerifyProof(root, key, newProofDB(proof))
			require.NoError(t, err, "geth verifying the proof of key %x", key)
			assert.Equal(t, want, value, "geth: value of key %x", key)
		}
		value, err := stacktrie.VerifyProof(stacktrie.Hash(root), key, gethProof)
		require.NoError(t, err, "verifying geth's proof of key %x", key)
		assert.Equal(t, want, value, "value of key %x", key)
	}
}

// TestProofsMatchGeth runs every key set of the differential tests.
func TestProofsMatchGeth(t *testing.T) {
	for _, c := range keySetCases(true) {
		t.Run(c.name, func(t *testing.T) {
			rng := caseRand(t, c.name)
			pairs := c.pairs(rng)
			assertProofsMatchGeth(t, pairs, proofTargets(rng, pairs, 10))
		})
	}
}

// TestReceiptProofsMatchGeth proves receipts and transactions of a block with
// derivesha.DeriveShaWithProofs, as a light client would check them: the
// root is the header's, go-ethereum's verifier accepts the proofs, and the
// verified value decodes to the receipt.
func TestReceiptProofsMatchGeth(t *testing.T) {
	rng := caseRand(t, "receipts")
	for _, n := range []int{1, 2, 127, 128, 129, 300} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			receipts := testReceipts(rng, n)
			txs := signedTxs(t, rng, types.DynamicFeeTxType, n)
			indices := []int{0, 1, n / 2, n - 1, n, 1000}

			for _, list := range []struct {
				name string
				list types.DerivableList
				root common.Hash
			}{
				{"receipts", receipts, types.DeriveSha(receipts, trie.NewStackTrie(nil))},
				{"transactions", txs, types.DeriveSha(txs, trie.NewStackTrie(nil))},
			} {
				root, proofs := derivesha.DeriveShaWithProofs(list.list, indices...)
				require.Equal(t, list.root, common.Hash(root), "%s root", list.name)
				require.Len(t, proofs, len(indices))

				// go-ethereum's trie of the same list, keyed as DeriveSha keys it.
				var pairs []trietest.Pair
				var buf bytes.Buffer
				for i := range list.list.Len() {
					buf.Reset()
					list.list.EncodeIndex(i, &buf)
					pairs = append(pairs, trietest.Pair{Key: derivesha.IndexKey(i), Value: bytes.Clone(buf.Bytes())})
				}
				gt := gethTrie(t, pairs)
				for i, index := range indices {
					key := derivesha.IndexKey(index)
					require.Equal(t, gethProve(t, gt, key), proofs[i], "%s: proof of index %d", list.name, index)
					value, err := trie.VerifyProof(list.root, key, newProofDB(proofs[i]))
					require.NoError(t, err, "%s: geth verifying index %d", list.name, index)
					ours, err := stacktrie.VerifyProof(root, key, proofs[i])
					require.NoError(t, err, "%s: verifying index %d", list.name, index)
					assert.Equal(t, value, ours, "%s: index %d", list.name, index)
					if index >= n {
						assert.Nil(t, ours, "%s: index %d is past the end", list.name, index)
						continue
					}
					assert.Equal(t, pairs[index].Value, ours, "%s: index %d", list.name, index)
					if list.name == "receipts" {
						var r types.Receipt
						require.NoError(t, r.UnmarshalBinary(ours))
						assert.Equal(t, receipts[index].CumulativeGasUsed, r.CumulativeGasUsed)
						assert.Equal(t, receipts[index].Bloom, r.Bloom)
						assert.Len(t, r.Logs, len(receipts[index].Logs))
					}
				}
			}
		})
	}
}

// TestVerifyProofAgreesWithGeth damages proofs in place and carries each
// change up to a new root, so that both verifiers decode the damaged node
// behind a valid chain of hashes, and checks each outcome by compareVerifiers:
// what VerifyProof accepts, go-ethereum's trie.VerifyProof accepts with the
// same value; what go-ethereum refuses, VerifyProof refuses; and what only
// go-ethereum accepts, VerifyProof refuses as malformed for one of the
// non-canonical forms go-ethereum tolerates (see tolerated). Each of the three
// outcomes must occur, so that none of the checks is left idle.
func TestVerifyProofAgreesWithGeth(t *testing.T) {
	rng := caseRand(t, "damaged")
	rounds := 3000
	if testing.Short() {
		rounds = 500
	}
	sets := [][]trietest.Pair{
		trietest.RandomKeys(rng, 200, 32, 32, nil, trietest.ValuesBetween(1, 100)),
		trietest.RandomKeys(rng, 200, 0, 4, []byte{0x00, 0x01, 0x10, 0x11, 0xff}, trietest.ValuesBetween(1, 40)),
		trietest.DeriveShaPairs(trietest.RandomItems(rng, 300, 1, 100)),
	}
	tries := make([]*trie.Trie, len(sets))
	for i, pairs := range sets {
		tries[i] = gethTrie(t, pairs)
	}
	outcomes := make(map[verdict]int)
	reasons := make(map[string]int)
	for range rounds {
		s := rng.IntN(len(sets))
		key := proofTargets(rng, sets[s], 1)[3+rng.IntN(2)]
		gt := tries[s]
		root := gt.Hash()
		proof := gethProve(t, gt, key)
		for range 1 + rng.IntN(3) {
			root = damageAndRehash(rng, proof, root)
		}
		v, reason := compareVerifiers(t, root, key, proof)
		outcomes[v]++
		if v == onlyGethAccepts {
			reasons[reason]++
		}
	}
	// Of 20,000 rounds of one run, about 19% were accepted by both, 78%
	// refused by both and 3% accepted by go-ethereum alone (bytes after a
	// node's list most of them, then a hex-prefix flag above 3, nodes past
	// the end of the key's path, a padding nibble that is not zero).
	assert.Positive(t, outcomes[bothAccept], "damaged proofs both verifiers accept")
	assert.Positive(t, outcomes[bothRefuse], "damaged proofs both verifiers refuse")
	assert.Positive(t, outcomes[onlyGethAccepts], "damaged proofs only go-ethereum accepts")
	assert.Equal(t, rounds, outcomes[bothAccept]+outcomes[bothRefuse]+outcomes[onlyGethAccepts])
	t.Logf("of %d damaged proofs: %d accepted by both, %d refused by both, %d by VerifyProof alone: %v",
		rounds, outcomes[bothAccept], outcomes[bothRefuse], outcomes[onlyGethAccepts], reasons)
}

// damageAndRehash changes one node of proof in place, then puts its new hash
// where its parent held the old one, and so on up to the root, which it
// returns. A node that no longer parses may lose its place in the chain; the
// root then stays as it was.
func damageAndRehash(rng *rand.Rand, proof [][]byte, root common.Hash) common.Hash {
	return damageAt(proof, root, rng.IntN(len(proof)), rng.IntN(4), rng.IntN(1<<16), byte(rng.Uint32()))
}

// damageAt is damageAndRehash with its choices made: node i, one of four
// kinds of change at byte pos (modulo the node's length), with byte b.
func damageAt(proof [][]byte, root common.Hash, i, kind, pos int, b byte) common.Hash {
	if len(proof) == 0 {
		return root
	}
	i %= len(proof)
	node := bytes.Clone(proof[i])
	if len(node) == 0 {
		node = []byte{b}
	}
	switch kind % 4 {
	case 0: // flip bits
		node[pos%len(node)] ^= max(b, 1)
	case 1: // put a byte that means something in RLP or hex-prefix
		node[pos%len(node)] = []byte{0x00, 0x20, 0x80, 0xa0, 0xc0, 0xf8}[int(b)%6]
	case 2: // cut short
		node = node[:pos%len(node)+1]
	default: // insert a byte
		node = slices.Insert(node, pos%(len(node)+1), b)
	}
	return replaceAndRehash(proof, root, i, node)
}

// replaceAndRehash puts node in place of proof[i], then its hash where the
// parent held the old one, and so on up to the root, which it returns; or
// root if the chain breaks on the way.
func replaceAndRehash(proof [][]byte, root common.Hash, i int, node []byte) common.Hash {
	oldHash := crypto.Keccak256Hash(proof[i])
	proof[i] = node
	newHash := crypto.Keccak256Hash(node)
	for ; i > 0; i-- {
		parent := proof[i-1]
		parentOld := crypto.Keccak256Hash(parent)
		ref := append([]byte{0xa0}, oldHash[:]...)
		if !bytes.Contains(parent, ref) {
			return root
		}
		proof[i-1] = bytes.Replace(parent, ref, append([]byte{0xa0}, newHash[:]...), 1)
		oldHash, newHash = parentOld, crypto.Keccak256Hash(proof[i-1])
	}
	if oldHash == root {
		return newHash
	}
	return root
}

// verdict is how the two verifiers answered one proof.
type verdict int

const (
	bothAccept verdict = iota
	bothRefuse
	onlyGethAccepts
)

// compareVerifiers runs both verifiers on a proof and fails unless they
// agree as VerifyProof documents (stricter than go-ethereum's, never looser):
//
//   - what VerifyProof accepts, go-ethereum's trie.VerifyProof accepts with
//     the same value (but for the empty proof of the empty trie, which only
//     VerifyProof has);
//   - what go-ethereum refuses, VerifyProof refuses, with one of its errors;
//   - what go-ethereum accepts and VerifyProof refuses, it refuses with
//     ErrProofMalformed, and the proof has one of the non-canonical forms
//     that go-ethereum tolerates, as tolerated finds them.
//
// It returns the verdict and, when only go-ethereum accepts, the form.
func compareVerifiers(t testing.TB, root common.Hash, key []byte, proof [][]byte) (verdict, string) {
	t.Helper()
	ours, err := stacktrie.VerifyProof(stacktrie.Hash(root), key, proof)
	geth, gethErr := trie.VerifyProof(root, key, newProofDB(proof))
	if err != nil {
		require.True(t, errors.Is(err, stacktrie.ErrProofHash) || errors.Is(err, stacktrie.ErrProofMissingNode) ||
			errors.Is(err, stacktrie.ErrProofMalformed), "error wraps no proof error: %v", err)
		require.Nil(t, ours, "a value with an error")
		if gethErr != nil {
			return bothRefuse, ""
		}
		require.ErrorIs(t, err, stacktrie.ErrProofMalformed, "geth accepts the proof of %x: %x", key, proof)
		reason := tolerated(root, key, proof)
		require.NotEmpty(t, reason, "geth accepts the proof of %x, which VerifyProof refuses (%v), in no form known to be non-canonical: %x", key, err, proof)
		return onlyGethAccepts, reason
	}
	if len(proof) == 0 {
		// The empty trie's proof, which only VerifyProof has.
		require.Equal(t, types.EmptyRootHash, root)
		require.Nil(t, ours)
		return bothAccept, ""
	}
	require.NoError(t, gethErr, "we accept the proof of %x, geth does not: %x", key, proof)
	require.Equal(t, geth, ours, "proof of %x: %x", key, proof)
	return bothAccept, ""
}

// tolerated names the first non-canonical form in a proof that go-ethereum's
// verifier reads past and VerifyProof refuses as malformed, or returns "" if
// the proof has none:
//
//   - bytes after a node's RLP list (go-ethereum decodes the list, ignores the rest);
//   - a hex-prefix path whose flag nibble is above 3, or whose padding
//     nibble, in an even path, is not zero (go-ethereum reads the flag's low
//     bits only, and drops the padding);
//   - a hex-prefix path with no bytes at all, or an extension with no
//     nibbles or no child;
//   - a leaf with an empty value; a branch value that is a list (go-ethereum
//     reads it as no value);
//   - an extension whose child is not a branch;
//   - a node other than the root under 32 bytes, referred to by its hash;
//   - nodes that go-ethereum never reads: past the end of the key's path,
//     or off it (it verifies against nodes looked up by hash).
func tolerated(root common.Hash, key []byte, proof [][]byte) string {
	if reason := nonCanonicalProof(root, proof); reason != "" {
		return reason
	}
	want, err := trie.VerifyProof(root, key, newProofDB(proof))
	if err != nil {
		return ""
	}
	for i := range proof {
		fewer := slices.Concat(proof[:i], proof[i+1:])
		if got, err := trie.VerifyProof(root, key, newProofDB(fewer)); err == nil && bytes.Equal(got, want) {
			return "a node go-ethereum does not read"
		}
	}
	return ""
}

// nonCanonicalProof names the first form in the proof's nodes that
// go-ethereum reads past and VerifyProof and VerifyRange refuse, or "" if
// there is none.
func nonCanonicalProof(root common.Hash, proof [][]byte) string {
	byHash := make(map[common.Hash][]byte, len(proof))
	for _, node := range proof {
		byHash[crypto.Keccak256Hash(node)] = node
	}
	for _, node := range proof {
		if reason := nodeForm(node, false, byHash); reason != "" {
			return reason
		}
		if len(node) < 32 && crypto.Keccak256Hash(node) != root {
			return "a node under 32 bytes referred to by hash"
		}
	}
	return ""
}

// nodeForm returns what is not canonical in node and the nodes embedded in
// it, from the list tolerated gives, or "". isChild says node is an
// extension's child, which must be a branch; byHash finds hashed children.
// It reads the RLP with go-ethereum's decoder, which refuses RLP that is not
// canonical, as both verifiers do.
func nodeForm(node []byte, isChild bool, byHash map[common.Hash][]byte) string {
	kind, content, rest, err := rlp.Split(node)
	switch {
	case err != nil || kind != rlp.List:
		return ""
	case len(rest) > 0:
		return "bytes after a node's list"
	}
	var items [][]byte // raw items
	for len(content) > 0 {
		_, _, after, err := rlp.Split(content)
		if err != nil {
			return ""
		}
		items = append(items, content[:len(content)-len(after)])
		content = after
	}
	isList := func(item []byte) bool { k, _, _, _ := rlp.Split(item); return k == rlp.List }
	str := func(item []byte) []byte { _, c, _, _ := rlp.Split(item); return c }
	switch len(items) {
	case 17:
		for _, child := range items[:16] {
			if isList(child) {
				if reason := nodeForm(child, false, byHash); reason != "" {
					return reason
				}
			}
		}
		if isList(items[16]) {
			return "a branch value that is a list"
		}
	case 2:
		if isChild {
			return "an extension's child that is not a branch"
		}
		if isList(items[0]) {
			return ""
		}
		path := str(items[0])
		switch {
		case len(path) == 0:
			return "a hex-prefix path with no bytes"
		case path[0]>>4 > 3:
			return "a hex-prefix flag above 3"
		case path[0]>>4&1 == 0 && path[0]&0x0f != 0:
			return "a hex-prefix padding nibble that is not zero"
		case path[0]>>4 >= 2:
			if !isList(items[1]) && len(str(items[1])) == 0 {
				return "a leaf with an empty value"
			}
			return ""
		case path[0]>>4 == 0 && len(path) == 1:
			return "an extension with no nibbles"
		}
		child := items[1]
		switch {
		case isList(child):
			return nodeForm(child, true, byHash)
		case len(str(child)) == 0:
			return "an extension with no child"
		}
		if hashed, ok := byHash[common.BytesToHash(str(child))]; ok && len(str(child)) == 32 {
			return nodeForm(hashed, true, byHash)
		}
	}
	return ""
}

// TestToleratedForms checks compareVerifiers and tolerated on proofs
// damaged by hand, one non-canonical form each, behind a valid chain of
// hashes: go-ethereum accepts them, VerifyProof refuses them as malformed.
func TestToleratedForms(t *testing.T) {
	rng := caseRand(t, "tolerated")
	pairs := trietest.RandomKeys(rng, 200, 32, 32, nil, trietest.ValuesBetween(1, 100))
	gt := gethTrie(t, pairs)
	// A key whose leaf, the last node of its proof, has an even path: its
	// hex-prefix starts with 0x20.
	var key []byte
	var proof [][]byte
	var pathAt int // the offset of the leaf's hex-prefix in its node
	for _, p := range pairs {
		proof = gethProve(t, gt, p.Key)
		leaf := proof[len(proof)-1]
		_, items, _, err := rlp.Split(leaf)
		require.NoError(t, err)
		_, path, value, err := rlp.Split(items)
		require.NoError(t, err)
		if path[0] == 0x20 {
			// The list's header, then the path's header, then the path.
			key, pathAt = p.Key, len(leaf)-len(items)+len(items)-len(value)-len(path)
			break
		}
	}
	require.NotNil(t, key, "no leaf with an even path")
	last := len(proof) - 1
	edit := func(change func(leaf []byte) []byte) func([][]byte, common.Hash) ([][]byte, common.Hash) {
		return func(proof [][]byte, root common.Hash) ([][]byte, common.Hash) {
			return proof, replaceAndRehash(proof, root, last, change(bytes.Clone(proof[last])))
		}
	}
	tests := []struct {
		name   string
		damage func(proof [][]byte, root common.Hash) ([][]byte, common.Hash)
		want   verdict
		reason string
	}{
		{"canonical", func(p [][]byte, r common.Hash) ([][]byte, common.Hash) { return p, r }, bothAccept, ""},
		{"a byte after the leaf", edit(func(l []byte) []byte { return append(l, 0) }), onlyGethAccepts, "bytes after a node's list"},
		{"flag 6 for 2", edit(func(l []byte) []byte { l[pathAt] = 0x60; return l }), onlyGethAccepts, "a hex-prefix flag above 3"},
		{"padding nibble 5", edit(func(l []byte) []byte { l[pathAt] = 0x25; return l }), onlyGethAccepts, "a hex-prefix padding nibble that is not zero"},
		{"a node past the end", func(p [][]byte, r common.Hash) ([][]byte, common.Hash) {
			return append(p, bytes.Clone(p[0])), r
		}, onlyGethAccepts, "a node go-ethereum does not read"},
		{"leaf changed, not rehashed", func(p [][]byte, r common.Hash) ([][]byte, common.Hash) {
			p[last] = append(p[last], 0)
			return p, r
		}, bothRefuse, ""},
		{"leaf value cut, rehashed", edit(func(l []byte) []byte { return l[:len(l)-1] }), bothRefuse, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			proof := slices.Clone(proof)
			proof, root := tt.damage(proof, gt.Hash())
			v, reason := compareVerifiers(t, root, key, proof)
			assert.Equal(t, tt.want, v)
			assert.Equal(t, tt.reason, reason)
			if tt.want != bothRefuse {
				// Refused by both, the proof may have any form.
				assert.Equal(t, tt.reason, tolerated(root, key, proof))
			}
		})
	}
}

// FuzzProofsGeth proves a key of a fuzzed set, present or not, and checks
// the proof against go-ethereum's Trie.Prove and both verifiers; then damages
// it in place, carrying each change up to a new root, and checks that the
// verifiers agree on the result (see compareVerifiers).
//
// keyData: a first byte that is even picks the key of pair keyData[1], cut to
// keyData[2] bytes and followed by the rest; odd takes the rest as the key.
// ops: groups of four bytes, each a change: node, kind, position, byte.
func FuzzProofsGeth(f *testing.F) {
	f.Add([]byte{3, 'd', 'o', 'g', 4, 5, 'h', 'o', 'r', 's', 'e', 7}, []byte{0, 0, 3}, []byte{0, 0, 5, 1})
	f.Fuzz(func(t *testing.T, pairData, keyData, ops []byte) {
		pairs := decodeFuzzPairs(pairData)
		var key []byte
		switch {
		case len(keyData) >= 3 && keyData[0]%2 == 0 && len(pairs) > 0:
			k := pairs[int(keyData[1])%len(pairs)].Key
			key = append(bytes.Clone(k[:int(keyData[2])%(len(k)+1)]), keyData[3:]...)
		case len(keyData) > 0:
			key = keyData[1:]
		}
		ps := stacktrie.NewProofSet(key)
		st := stacktrie.New(ps.OnNode)
		require.NoError(t, trietest.Insert(st, pairs))
		root := common.Hash(st.Hash())
		gt := gethTrie(t, pairs)
		require.Equal(t, gt.Hash(), root)
		want, err := gt.Get(key)
		require.NoError(t, err)
		if len(want) == 0 {
			want = nil
		}
		proof := ps.Proof(key)
		gethProof := gethProve(t, gt, key)
		if len(gethProof) > 0 || len(proof) > 0 {
			require.Equal(t, gethProof, proof, "proof of %x", key)
		}
		v, _ := compareVerifiers(t, root, key, proof)
		require.Equal(t, bothAccept, v, "the proof of %x", key)
		value, err := stacktrie.VerifyProof(stacktrie.Hash(root), key, proof)
		require.NoError(t, err)
		require.Equal(t, want, value)

		damaged := make([][]byte, len(proof))
		for i := range proof {
			damaged[i] = bytes.Clone(proof[i])
		}
		for n := 0; len(ops) >= 4 && n < 16; n++ {
			root = damageAt(damaged, root, int(ops[0]), int(ops[1]), int(ops[2]), ops[3])
			ops = ops[4:]
		}
		compareVerifiers(t, root, key, damaged)
	})
}

package fuzz

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"golang.org/x/crypto/sha3"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/reftrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

// Bounds on what one input decodes to, so that each run stays quick: the
// reference trie rebuilds itself for every proof.
const (
	maxProofPairs   = 256
	maxProofTargets = 48
)

// proofPairs is sortedPairs cut to maxProofPairs pairs.
func proofPairs(data []byte) []testgen.Pair {
	pairs := sortedPairs(data)
	return pairs[:min(len(pairs), maxProofPairs)]
}

// nearKey reads a key near one of the pairs' keys: the key of the pair that
// the first byte picks, cut to the length the second byte picks, followed by
// up to two bytes of input. With no pairs, the key is the input bytes.
func nearKey(r *reader, pairs []testgen.Pair) []byte {
	if len(pairs) == 0 {
		return bytes.Clone(r.bytes(int(r.byte() % 4)))
	}
	key := pairs[int(r.byte())%len(pairs)].Key
	key = key[:int(r.byte())%(len(key)+1)]
	return append(bytes.Clone(key), r.bytes(int(r.byte()%3))...)
}

// buildProofs runs the pairs through a trie with a ProofSet for targets.
func buildProofs(t *testing.T, pairs []testgen.Pair, targets [][]byte) (stacktrie.Hash, *stacktrie.ProofSet) {
	ps := stacktrie.NewProofSet(targets...)
	tr := stacktrie.New(ps.OnNode)
	for _, p := range pairs {
		if err := tr.Update(p.Key, p.Value); err != nil {
			t.Fatalf("key %x: %v", p.Key, err)
		}
	}
	return tr.Hash(), ps
}

// FuzzProofs proves every key of a set and keys near them, present or
// absent, in one pass: each proof must be the reference trie's, and
// VerifyProof must return the key's value, or nil for an absent key.
func FuzzProofs(f *testing.F) {
	f.Add([]byte{0, 2, 'd', 'o', 4, 'v', 'e', 'r', 'b', 2, 1, 'g', 5, 'p', 'u', 'p', 'p', 'y'}, []byte{0, 1, 1, 'x', 1, 2, 0})
	f.Fuzz(func(t *testing.T, pairData, targetData []byte) {
		pairs := proofPairs(pairData)
		var targets [][]byte
		for _, p := range pairs {
			if len(targets) < maxProofTargets/2 {
				targets = append(targets, p.Key)
			}
		}
		r := &reader{targetData}
		for len(r.data) > 0 && len(targets) < maxProofTargets {
			targets = append(targets, nearKey(r, pairs))
		}
		root, ps := buildProofs(t, pairs, targets)
		ref := reftrie.New()
		for _, p := range pairs {
			ref.Put(p.Key, p.Value)
		}
		if want := stacktrie.Hash(ref.Root()); root != want {
			t.Fatalf("root %v, want %v", root, want)
		}
		for _, k := range targets {
			proof := ps.Proof(k)
			if proof == nil {
				t.Fatalf("key %x: nil proof for a target", k)
			}
			if want := ref.Prove(k); !slices.EqualFunc(proof, want, bytes.Equal) {
				t.Fatalf("key %x: proof\n%x\nwant\n%x", k, proof, want)
			}
			value, err := stacktrie.VerifyProof(root, k, proof)
			if err != nil {
				t.Fatalf("key %x: %v", k, err)
			}
			want, ok := ref.Get(k)
			if !ok {
				want = nil
			}
			if !bytes.Equal(value, want) || (value == nil) != !ok {
				t.Fatalf("key %x: value %x, want %x (present %t)", k, value, want, ok)
			}
		}
	})
}

// Ways FuzzVerifyProof damages a proof, one op byte each (the op modulo
// proofOps), most followed by bytes that say where.
const (
	opFlip      = iota // flip bits: node, position, mask
	opTruncate         // cut a node short: node, new length
	opAppend           // append a byte to a node: node, byte
	opDrop             // drop a node: node
	opDuplicate        // repeat a node: node
	opSwap             // swap two nodes: node, node
	opInsert           // insert a node made of input bytes: position, length, bytes
	opCutProof         // drop the nodes from one on: position
	opOtherKey         // verify a key near the pairs' keys instead: see nearKey
	opRehash           // from now on, fix hash references after each change
	proofOps
)

// FuzzVerifyProof damages a valid proof and checks that VerifyProof never
// panics and answers with one of its errors or the truth. Until an opRehash,
// the root stays the trie's, so any accepted answer must be the key's value in
// the trie, or nil if absent. After opRehash each change is carried up the
// proof into the parents' references and a new root, so that hostile nodes
// reach the decoder behind a valid chain of hashes; then only the absence of
// panics and the kind of error are checked.
func FuzzVerifyProof(f *testing.F) {
	f.Add([]byte{0, 2, 'd', 'o', 4, 'v', 'e', 'r', 'b', 2, 1, 'g', 5, 'p', 'u', 'p', 'p', 'y'}, []byte{0, 1, 2, 0}, []byte{opFlip, 0, 3, 1})
	f.Fuzz(func(t *testing.T, pairData, targetData, ops []byte) {
		pairs := proofPairs(pairData)
		key := nearKey(&reader{targetData}, pairs)
		root, ps := buildProofs(t, pairs, [][]byte{key})
		proof := ps.Proof(key)
		for i := range proof {
			proof[i] = bytes.Clone(proof[i]) // the ProofSet's nodes must not be modified
		}
		rehash := false
		r := &reader{ops}
		for n := 0; n < 32 && len(r.data) > 0 && len(proof) < 64; n++ {
			op := r.byte() % proofOps
			if op == opRehash {
				rehash = true
				continue
			}
			if op == opOtherKey {
				key = nearKey(r, pairs)
				continue
			}
			changed, old := damage(r, op, proof)
			proof = changed
			if rehash && old.index >= 0 {
				root = carryUp(proof, old, root)
			}
		}
		value, err := stacktrie.VerifyProof(root, key, proof)
		if err != nil {
			if !errors.Is(err, stacktrie.ErrProofHash) && !errors.Is(err, stacktrie.ErrProofMissingNode) && !errors.Is(err, stacktrie.ErrProofMalformed) {
				t.Fatalf("error wraps no proof error: %v", err)
			}
			if value != nil {
				t.Fatalf("value %x with error %v", value, err)
			}
			return
		}
		if rehash {
			return
		}
		var want []byte
		for _, p := range pairs {
			if bytes.Equal(p.Key, key) {
				want = p.Value
			}
		}
		if !bytes.Equal(value, want) || (value == nil) != (want == nil) {
			t.Fatalf("damaged proof of key %x accepted with value %x, want %x", key, value, want)
		}
	})
}

// changedNode is a node before a change: its index, and its hash then.
// index is -1 when no single node changed in place.
type changedNode struct {
	index int
	hash  stacktrie.Hash
}

// damage applies one op to proof, reading its arguments from r.
func damage(r *reader, op byte, proof [][]byte) ([][]byte, changedNode) {
	pick := func(n int) int {
		if n == 0 {
			return 0
		}
		return int(r.byte()) % n
	}
	none := changedNode{index: -1}
	if len(proof) == 0 && op != opInsert {
		return proof, none
	}
	switch op {
	case opFlip, opTruncate, opAppend:
		i := pick(len(proof))
		before := changedNode{i, keccak(proof[i])}
		node := proof[i]
		switch op {
		case opFlip:
			if len(node) > 0 {
				j := pick(len(node))
				node[j] ^= max(r.byte(), 1)
			}
		case opTruncate:
			node = node[:pick(len(node)+1)]
		case opAppend:
			node = append(node, r.byte())
		}
		proof[i] = node
		return proof, before
	case opDrop:
		i := pick(len(proof))
		return slices.Delete(proof, i, i+1), none
	case opDuplicate:
		i := pick(len(proof))
		return slices.Insert(proof, i, bytes.Clone(proof[i])), none
	case opSwap:
		i, j := pick(len(proof)), pick(len(proof))
		proof[i], proof[j] = proof[j], proof[i]
		return proof, none
	case opInsert:
		i := pick(len(proof) + 1)
		node := bytes.Clone(r.bytes(int(r.byte())))
		return slices.Insert(proof, i, node), none
	case opCutProof:
		return proof[:pick(len(proof)+1)], none
	}
	return proof, none
}

// carryUp makes the change to proof[old.index] part of a chain of hashes
// again: each node before it that held the old hash as a reference gets the
// new hash, and so on up; it returns the new root, or root if proof[0] did
// not change.
func carryUp(proof [][]byte, old changedNode, root stacktrie.Hash) stacktrie.Hash {
	oldHash, newHash := old.hash, keccak(proof[old.index])
	for i := old.index - 1; i >= 0; i-- {
		parentOld := keccak(proof[i])
		ref := append([]byte{0xa0}, oldHash[:]...)
		if !bytes.Contains(proof[i], ref) {
			return root
		}
		proof[i] = bytes.Replace(proof[i], ref, append([]byte{0xa0}, newHash[:]...), 1)
		oldHash, newHash = parentOld, keccak(proof[i])
	}
	if oldHash == root {
		return newHash
	}
	return root
}

func keccak(b []byte) stacktrie.Hash {
	d := sha3.NewLegacyKeccak256()
	d.Write(b)
	return stacktrie.Hash(d.Sum(nil))
}

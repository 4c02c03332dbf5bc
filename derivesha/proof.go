package derivesha

import "github.com/stacktrie/stacktrie"

// DeriveShaWithProofs returns the root DeriveSha returns for list and, in the
// same pass, the Merkle proofs of the elements at indices: proofs[i] is the
// proof of element indices[i], root node first, in the form go-ethereum's
// Trie.Prove writes and stacktrie.VerifyProof takes. Check one with
//
//	stacktrie.VerifyProof(root, derivesha.IndexKey(index), proof)
//
// which returns the element's encoding. Indices may repeat and come in any
// order; the proofs share the nodes they have in common, which must not be
// modified. An index with no element in the trie (past the end of the list,
// negative, or an element that encodes to nothing) gets a proof of absence;
// for an empty list every proof is empty, which proves absence under
// stacktrie.EmptyRoot.
//
// DeriveShaWithProofs uses a new trie and proof set for each call, so its
// proofs stay valid for good. A caller that proves the same indices of many
// lists keeps a Prover instead. To prove elements of a list that grows while
// it is hashed, pass a trie whose node callback is a stacktrie.ProofSet's
// OnNode to NewStream.
func DeriveShaWithProofs[L List](list L, indices ...int) (stacktrie.Hash, [][][]byte) {
	return Prove(NewProver(indices...), list)
}

// A Prover proves the same indices of list after list, such as the first
// and last receipts of every block, reusing its trie, its proof set and the
// proofs it returns: once it has proved one list, a list of the same shape
// costs no allocation. It is not safe for concurrent use.
type Prover struct {
	keys   [][]byte
	set    *stacktrie.ProofSet
	trie   *stacktrie.Trie
	proofs [][][]byte
}

// NewProver returns a Prover of the elements at indices, which may repeat
// and come in any order.
func NewProver(indices ...int) *Prover {
	p := &Prover{keys: make([][]byte, len(indices)), proofs: make([][][]byte, len(indices))}
	for i, index := range indices {
		p.keys[i] = IndexKey(index)
	}
	p.set = stacktrie.NewProofSet(p.keys...)
	p.trie = stacktrie.New(p.set.OnNode)
	return p
}

// Prove returns what DeriveShaWithProofs returns for list and the Prover's
// indices. The proofs, and the nodes they hold, belong to the Prover: they
// stay valid until its next call.
//
// Prove is a function, not a method, because it is generic over the list
// type, as DeriveSha is, so that passing Bytes costs no allocation.
func Prove[L List](p *Prover, list L) (stacktrie.Hash, [][][]byte) {
	p.set.Reset()
	root := DeriveSha(list, p.trie)
	for i, key := range p.keys {
		p.proofs[i] = p.set.AppendProof(p.proofs[i][:0], key)
	}
	return root, p.proofs
}

// IndexKey returns the trie key of element i of a list: the RLP encoding of
// i as an unsigned integer, which DeriveSha keys the element by. A negative i
// is taken as the uint64 of the same bits, an index no list reaches.
func IndexKey(i int) []byte {
	return appendIndex(nil, i)
}

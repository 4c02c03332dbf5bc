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
// DeriveShaWithProofs uses a new trie for each call. To prove elements of a
// list that grows while it is hashed, pass a trie whose node callback is a
// stacktrie.ProofSet's OnNode to NewStream.
func DeriveShaWithProofs[L List](list L, indices ...int) (stacktrie.Hash, [][][]byte) {
	keys := make([][]byte, len(indices))
	for i, index := range indices {
		keys[i] = IndexKey(index)
	}
	ps := stacktrie.NewProofSet(keys...)
	root := DeriveSha(list, stacktrie.New(ps.OnNode))
	proofs := make([][][]byte, len(indices))
	for i, key := range keys {
		proofs[i] = ps.Proof(key)
	}
	return root, proofs
}

// IndexKey returns the trie key of element i of a list: the RLP encoding of
// i as an unsigned integer, which DeriveSha keys the element by. A negative i
// is taken as the uint64 of the same bits, an index no list reaches.
func IndexKey(i int) []byte {
	return appendIndex(nil, i)
}

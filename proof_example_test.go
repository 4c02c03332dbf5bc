package stacktrie_test

import (
	"errors"
	"fmt"

	"github.com/stacktrie/stacktrie"
)

// Proofs of chosen keys, kept while the root is computed: one present, one
// absent.
func ExampleProofSet() {
	proofs := stacktrie.NewProofSet([]byte("dog"), []byte("cat"))
	t := stacktrie.New(proofs.OnNode)
	for _, kv := range [][2]string{{"do", "verb"}, {"dog", "puppy"}, {"doge", "coin"}, {"horse", "stallion"}} {
		if err := t.Update([]byte(kv[0]), []byte(kv[1])); err != nil {
			panic(err)
		}
	}
	root := t.Hash()

	for _, key := range []string{"dog", "cat"} {
		proof := proofs.Proof([]byte(key))
		value, err := stacktrie.VerifyProof(root, []byte(key), proof)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: %d proof nodes, in the trie: %t, value %q\n", key, len(proof), value != nil, value)
	}
	// Output:
	// dog: 4 proof nodes, in the trie: true, value "puppy"
	// cat: 2 proof nodes, in the trie: false, value ""
}

// A proof must lead from the root to the key; a damaged one is refused.
func ExampleVerifyProof() {
	proofs := stacktrie.NewProofSet([]byte("doge"))
	t := stacktrie.New(proofs.OnNode)
	t.Update([]byte("doe"), []byte("reindeer"))
	t.Update([]byte("dog"), []byte("puppy"))
	t.Update([]byte("doge"), []byte("coin"))
	t.Update([]byte("dogglesworth"), []byte("cat"))
	root := t.Hash()
	proof := proofs.Proof([]byte("doge"))

	value, err := stacktrie.VerifyProof(root, []byte("doge"), proof)
	fmt.Printf("%q %v\n", value, err)

	_, err = stacktrie.VerifyProof(root, []byte("doge"), proof[:len(proof)-1])
	fmt.Println(errors.Is(err, stacktrie.ErrProofMissingNode))

	proof[1] = append([]byte{}, proof[1]...)
	proof[1][3] ^= 1
	_, err = stacktrie.VerifyProof(root, []byte("doge"), proof)
	fmt.Println(errors.Is(err, stacktrie.ErrProofHash))
	// Output:
	// "coin" <nil>
	// true
	// true
}

package stacktrie_test

import (
	"errors"
	"fmt"

	"github.com/stacktrie/stacktrie"
)

// Keys go in ascending order; a key may be a prefix of a later one.
func ExampleTrie() {
	t := stacktrie.New(nil)
	for _, kv := range [][2]string{{"do", "verb"}, {"dog", "puppy"}, {"doge", "coin"}, {"horse", "stallion"}} {
		if err := t.Update([]byte(kv[0]), []byte(kv[1])); err != nil {
			panic(err)
		}
	}
	fmt.Println(t.Hash())
	// Output: 0x5991bb8c6514148a29db676a14ac506cd2cd5775ace63c30a4fe457715e9ac84
}

// A NodeFunc sees every node a database would store, children before
// parents, with its nibble path, hash and encoding.
func ExampleNew() {
	t := stacktrie.New(func(path []byte, hash stacktrie.Hash, blob []byte) {
		fmt.Printf("path %x: %d-byte node %.10s…\n", path, len(blob), hash)
	})
	t.Update([]byte("doe"), []byte("reindeer"))
	t.Update([]byte("dog"), []byte("puppy"))
	t.Update([]byte("dogglesworth"), []byte("cat"))
	fmt.Println("root", t.Hash())
	// Output:
	// path 0604060f0607: 37-byte node 0x37efd119…
	// path 0604060f06: 61-byte node 0xdb6ae1fd…
	// path : 38-byte node 0x8aad789d…
	// root 0x8aad789dff2f538bca5d8ea56e8abe10f4c7ba3a5dea95fea4cd6e7c3a1168d3
}

// A refused pair changes nothing; the stream goes on.
func ExampleTrie_Update() {
	t := stacktrie.New(nil)
	t.Update([]byte("b"), []byte("1"))
	err := t.Update([]byte("a"), []byte("2"))
	fmt.Println(errors.Is(err, stacktrie.ErrKeyOrder), err)
	err = t.Update([]byte("c"), nil)
	fmt.Println(errors.Is(err, stacktrie.ErrEmptyValue), err)
	fmt.Println(t.Update([]byte("c"), []byte("3")))
	// Output:
	// true stacktrie: key not in ascending order: key 0x61 after 0x62
	// true stacktrie: empty value: key 0x63
	// <nil>
}

// Reset starts a new trie and keeps the buffers, so a reused Trie allocates nothing.
func ExampleTrie_Reset() {
	t := stacktrie.New(nil)
	for _, key := range []string{"first", "second"} {
		t.Reset()
		t.Update([]byte(key), []byte("value"))
		fmt.Printf("%.10s…\n", t.Hash())
	}
	// Output:
	// 0x1da5ed5d…
	// 0xf8e9709b…
}

// A one-shot computation can borrow a warm trie from the shared pool.
func ExampleGetTrie() {
	t := stacktrie.GetTrie()
	defer stacktrie.PutTrie(t)
	t.Update([]byte("A"), []byte("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"))
	fmt.Println(t.Hash())
	// Output: 0xd23786fb4a010da3ce639d66d5e904a11dbc02746d1ce25029e53290cabf28ab
}

// HashLater ends trie after trie without waiting for each root, so that
// the nodes of small tries are hashed side by side; Flush writes the last
// roots. Here the puppy trie of ExampleTrie, an empty one, and the trie of
// ExampleNew.
func ExampleTrie_HashLater() {
	tries := [][][2]string{
		{{"do", "verb"}, {"dog", "puppy"}, {"doge", "coin"}, {"horse", "stallion"}},
		{},
		{{"doe", "reindeer"}, {"dog", "puppy"}, {"dogglesworth", "cat"}},
	}
	roots := make([]stacktrie.Hash, len(tries))
	t := stacktrie.New(nil)
	for i, pairs := range tries {
		for _, kv := range pairs {
			if err := t.Update([]byte(kv[0]), []byte(kv[1])); err != nil {
				panic(err)
			}
		}
		t.HashLater(&roots[i])
	}
	t.Flush()
	for _, root := range roots {
		fmt.Println(root)
	}
	// Output:
	// 0x5991bb8c6514148a29db676a14ac506cd2cd5775ace63c30a4fe457715e9ac84
	// 0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421
	// 0x8aad789dff2f538bca5d8ea56e8abe10f4c7ba3a5dea95fea4cd6e7c3a1168d3
}

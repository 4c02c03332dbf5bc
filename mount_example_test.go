package stacktrie_test

import (
	"fmt"
	"sync"

	"github.com/stacktrie/stacktrie"
)

// Sixteen partitions, one per first nibble, are built in separate goroutines
// (they could as well be processes or machines), handed over as bytes, and
// combined into the root of all the keys.
func ExampleSubtrie() {
	keys := make([][]byte, 0, 64)
	for i := range 64 {
		keys = append(keys, []byte{byte(i * 4), 0xaa})
	}

	wire := make([][]byte, 16)
	var wg sync.WaitGroup
	for nibble := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := stacktrie.New(nil)
			for _, k := range keys {
				if k[0]>>4 == byte(nibble) {
					t.Update(k, []byte("value"))
				}
			}
			top, _ := t.Subtrie()
			wire[nibble], _ = top.MarshalBinary()
		}()
	}
	wg.Wait()

	combined := stacktrie.New(nil)
	for _, b := range wire {
		var top stacktrie.Subtrie
		if err := top.UnmarshalBinary(b); err != nil {
			panic(err)
		}
		if err := top.Mount(combined); err != nil {
			panic(err)
		}
	}

	whole := stacktrie.New(nil)
	for _, k := range keys {
		whole.Update(k, []byte("value"))
	}
	fmt.Println(combined.Hash() == whole.Hash())
	// Output: true
}

// A stored hash stands in for a subtrie that has not changed: here the
// branch under nibble 1, whose keys are left out.
func ExampleTrie_UpdateBranch() {
	unchanged := stacktrie.New(nil)
	unchanged.Update([]byte{0x10}, []byte("a"))
	unchanged.Update([]byte{0x11}, []byte("b"))
	unchanged.Update([]byte{0x12}, []byte("c"))
	stored, _ := unchanged.Subtrie() // what a database would have kept

	t := stacktrie.New(nil)
	t.Update([]byte{0x01}, []byte("new"))
	if err := t.UpdateBranch(stored.Path, stored.Ref); err != nil {
		panic(err)
	}
	t.Update([]byte{0x20}, []byte("new too"))

	full := stacktrie.New(nil)
	for _, kv := range [][2]string{{"\x01", "new"}, {"\x10", "a"}, {"\x11", "b"}, {"\x12", "c"}, {"\x20", "new too"}} {
		full.Update([]byte(kv[0]), []byte(kv[1]))
	}
	fmt.Println(stored.Path, t.Hash() == full.Hash())
	// Output: [1] true
}

// Parallel takes the same stream as a Trie and hashes it on every core.
func ExampleParallel() {
	p := stacktrie.NewParallel(0, nil) // GOMAXPROCS workers
	defer p.Close()                    // ends the workers, whatever happens to the stream
	t := stacktrie.New(nil)
	for i := range 1000 {
		key := []byte{byte(i >> 2), byte(i), 0x55}
		p.Update(key, []byte("value"))
		t.Update(key, []byte("value"))
	}
	fmt.Println(p.Hash() == t.Hash())
	// Output: true
}

// Partitions handed over in binary form through one reused buffer: after the
// first round, building, collapsing and mounting them allocates nothing.
func ExampleTrie_AppendSubtrie() {
	part, combined, whole := stacktrie.New(nil), stacktrie.New(nil), stacktrie.New(nil)
	var wire []byte
	for first := range 4 {
		part.Reset()
		for second := range 50 {
			key := []byte{byte(first), byte(second)}
			part.Update(key, []byte("value"))
			whole.Update(key, []byte("value"))
		}
		wire, _ = part.AppendSubtrie(wire[:0])
		if err := combined.MountSubtrie(wire); err != nil {
			panic(err)
		}
	}
	fmt.Println(combined.Hash() == whole.Hash())
	// Output: true
}

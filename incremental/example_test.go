package incremental_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"slices"

	"github.com/stacktrie/stacktrie/incremental"
)

// hashedKey stands in for the Keccak-256 hash a state trie keys by.
func hashedKey(i int) []byte {
	h := sha256.Sum256([]byte{byte(i), byte(i >> 8)})
	return h[:]
}

// A node keeps its flat state and the stored branches in two sorted
// tables: Tables here, a database's iterators in practice. Build makes the
// store once; after that each block's root comes from Root, which reads
// only the leaves around the keys that changed.
func Example() {
	leaves := &incremental.Table{}   // hashed key -> value
	branches := &incremental.Table{} // nibble path -> branch record
	for i := range 5000 {
		leaves.Put(hashedKey(i), []byte(fmt.Sprintf("value %d", i)))
	}
	root, err := incremental.Build(leaves, branches.Write)
	if err != nil {
		panic(err)
	}
	fmt.Println("genesis:", root)

	// A block: key 7 updated, key 8 deleted, key 6000 inserted. Deleted
	// keys belong to the changed set too.
	leaves.Put(hashedKey(7), []byte("new value"))
	leaves.Delete(hashedKey(8))
	leaves.Put(hashedKey(6000), []byte("value 6000"))
	changed := [][]byte{hashedKey(7), hashedKey(8), hashedKey(6000)}
	slices.SortFunc(changed, bytes.Compare)

	writes, deletions := 0, 0
	root, err = incremental.Root(branches, leaves, changed, func(path, branch []byte) {
		if branch == nil {
			deletions++
		} else {
			writes++
		}
		branches.Write(path, branch)
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("block 1:", root)
	fmt.Printf("%d branches written, %d deleted, of %d\n", writes, deletions, branches.Len())

	scratch, err := incremental.Build(leaves, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("same as from scratch:", root == scratch)
	// Output:
	// genesis: 0x3fa7c521a1498d8541fd8765e5c934aeb9575061d90cf1a4bd083d606f837e27
	// block 1: 0xdbaf1edc794342ac5e28d0a2dc484db33d6c171086222b8765b720c0e1110ce8
	// 6 branches written, 0 deleted, of 395
	// same as from scratch: true
}

// A node keeps every account's storage trie in one table, each owner's
// keys behind its hashed address. A PrefixCursor and a PrefixStore, reset
// for each owner, give Build and Root one storage trie at a time.
func ExamplePrefixCursor() {
	slots := &incremental.Table{}    // owner ++ hashed slot -> value
	branches := &incremental.Table{} // owner ++ nibble path -> branch record
	owners := [][]byte{hashedKey(1), hashedKey(2)}
	for n, owner := range owners {
		for i := range 300 * (n + 1) {
			slots.Put(append(slices.Clone(owner), hashedKey(1000+i)...), []byte(fmt.Sprintf("slot %d", i)))
		}
	}
	var view, stored incremental.PrefixCursor
	var store incremental.PrefixStore
	b := incremental.NewBuilder(incremental.HashedKeyLen)
	for _, owner := range owners {
		view.Reset(slots, owner)
		store.Reset(branches.Write, owner)
		root, err := b.Build(&view, store.Write)
		if err != nil {
			panic(err)
		}
		fmt.Printf("owner %x: %v\n", owner[:4], root)
	}

	// A block changes one slot of the second owner only.
	owner := owners[1]
	slots.Put(append(slices.Clone(owner), hashedKey(1007)...), []byte("changed"))
	view.Reset(slots, owner)
	stored.Reset(branches, owner)
	store.Reset(branches.Write, owner)
	root, err := b.Root(&stored, &view, [][]byte{hashedKey(1007)}, store.Write)
	if err != nil {
		panic(err)
	}
	scratch, err := b.Build(&view, nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("owner %x after the block: %v, as from scratch: %v\n", owner[:4], root, root == scratch)
	// Output:
	// owner 47dc540c: 0xb69ee8e75225f0583f703a5c950879da7acfaa3d0e9fe8cdd349077603d7eede
	// owner 99be5efb: 0x42a8be97e7a793f33d6576b7e4f22f82ce244a2d70a019289503be34f7c1c96b
	// owner 99be5efb after the block: 0xf4011ae5b512da96d8ed78529f4cb45f7a2505e203d3a69b6b1be0b423cac1a6, as from scratch: true
}

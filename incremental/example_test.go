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

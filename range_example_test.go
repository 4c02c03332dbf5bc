package stacktrie_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"golang.org/x/crypto/sha3"

	"github.com/stacktrie/stacktrie"
)

// A snap-sync client asks a peer for the accounts from start on, checks the
// range it gets against the state root it trusts, and stores the range's
// nodes in the same pass. The nodes arrive before the verdict, so they go
// to a batch that is written only when the range is accepted.
func ExampleRangeVerifier() {
	// The server: a state of 1000 accounts under hashed keys, and the
	// proof of the range it answers with.
	type account struct{ key, value []byte }
	var state []account
	for i := range 1000 {
		h := sha3.NewLegacyKeccak256()
		h.Write(binary.BigEndian.AppendUint64(nil, uint64(i)))
		state = append(state, account{h.Sum(nil), []byte(fmt.Sprintf("account %d", i))})
	}
	slices.SortFunc(state, func(a, b account) int { return slices.Compare(a.key, b.key) })
	start := make([]byte, 32)
	start[0] = 0x40 // the request: accounts from 0x40..., up to 100 of them
	from, _ := slices.BinarySearchFunc(state, start, func(a account, k []byte) int { return slices.Compare(a.key, k) })
	answer := state[from : from+100]
	proofs := stacktrie.NewProofSet(start, answer[len(answer)-1].key)
	server := stacktrie.New(proofs.OnNode)
	for _, a := range state {
		server.Update(a.key, a.value)
	}
	root := server.Hash()
	proof := proofs.RangeProof(start, answer[len(answer)-1].key)
	var keys, values [][]byte
	for _, a := range answer {
		keys, values = append(keys, a.key), append(values, a.value)
	}

	// The client.
	var batch [][]byte // stands for a database batch: nodes keyed by path or hash
	v := stacktrie.NewRangeVerifier(func(path []byte, hash stacktrie.Hash, blob []byte) {
		batch = append(batch, blob)
	})
	hasMore, err := v.Verify(root, start, keys, values, proof)
	if err != nil {
		batch = batch[:0] // dropped: nothing of a refused range is written
	}
	fmt.Printf("accepted: %v, more accounts after the range: %v\n", err == nil, hasMore)
	fmt.Printf("nodes to write: %d\n", len(batch))

	// A peer that changes one account is refused.
	batch = batch[:0]
	values[50] = []byte("account 0, forged")
	_, err = v.Verify(root, start, keys, values, proof)
	if err != nil {
		batch = batch[:0]
	}
	fmt.Printf("forged: refused: %v, nodes to write: %d\n", errors.Is(err, stacktrie.ErrRangeMismatch), len(batch))
	// Output:
	// accepted: true, more accounts after the range: true
	// nodes to write: 136
	// forged: refused: true, nodes to write: 0
}

package stacktrie

// The scalar Keccak-256 path: one message at a time. The batcher hashes
// through it where the machine has no SIMD lanes, and VerifyProof always.

import (
	"hash"
	"reflect"

	"golang.org/x/crypto/sha3"
)

// keccakRate is the Keccak-256 block size: 1600 bits less twice the 256-bit capacity.
const keccakRate = 136

// keccakState is x/crypto's Keccak sponge, read out with Read so that no
// digest slice is allocated per hash.
type keccakState interface {
	hash.Hash
	Read([]byte) (int, error)
}

// hasher computes Keccak-256 (legacy padding, as Ethereum uses) one message at
// a time through one reused x/crypto sponge: the scalar path.
type hasher struct {
	state keccakState
	// apart is the sponge's neighbour in memory, never written: allocated
	// right after it, of its size, so that the allocator puts it in the
	// next slot of the same size class. The sponge is written at every
	// hash, and x/crypto's (232 bytes on 64-bit machines) is in a class that
	// is not whole cache lines: without apart, the sponges of two Tries made
	// one after the other shared a line, and hashing on two cores at once
	// was slower than on one (see lines.go, TestSpongesApart). x/crypto
	// allocates the sponge, so this is as far as it can be kept apart.
	apart []byte
}

func newHasher() hasher {
	state := sha3.NewLegacyKeccak256().(keccakState)
	var size uintptr
	if t := reflect.TypeOf(state); t.Kind() == reflect.Pointer {
		size = t.Elem().Size()
	}
	return hasher{state: state, apart: make([]byte, size)}
}

// sum writes keccak256(data) to out.
func (h *hasher) sum(data []byte, out *[32]byte) {
	h.state.Reset()
	h.state.Write(data)
	h.state.Read(out[:])
}

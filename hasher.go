package stacktrie

// The scalar Keccak-256 path: one message at a time. The batcher hashes
// through it where the machine has no SIMD lanes, and VerifyProof always.

import (
	"hash"

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
}

func newHasher() hasher {
	return hasher{state: sha3.NewLegacyKeccak256().(keccakState)}
}

// sum writes keccak256(data) to out.
func (h *hasher) sum(data []byte, out *[32]byte) {
	h.state.Reset()
	h.state.Write(data)
	h.state.Read(out[:])
}

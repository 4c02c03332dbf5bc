package stacktrie

import (
	"hash"

	"golang.org/x/crypto/sha3"
)

// keccakState is x/crypto's Keccak sponge, read out with Read so that no
// digest slice is allocated per hash.
type keccakState interface {
	hash.Hash
	Read([]byte) (int, error)
}

// hasher computes Keccak-256 (legacy padding, as Ethereum uses) through one
// reused sponge.
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

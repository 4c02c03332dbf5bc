package stacktrie

import (
	"math/rand/v2"
	"testing"

	"github.com/cloudflare/circl/simd/keccakf1600"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/sha3"

	"github.com/stacktrie/stacktrie/internal/testgen"
)

// keccakOracle is Keccak-256 straight from x/crypto.
func keccakOracle(msg []byte) [32]byte {
	h := sha3.NewLegacyKeccak256()
	h.Write(msg)
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// sumAll hashes msgs through l with sumEach, refilling lanes as they
// finish, as the trie does.
func sumAll(l *lanes, msgs [][]byte) [][32]byte {
	hashes := make([]Hash, len(msgs))
	l.sumEach(msgs, hashes, nil)
	out := make([][32]byte, len(msgs))
	for i, h := range hashes {
		out[i] = h
	}
	return out
}

// testLanes returns four lanes over circl's four-way state, which runs AVX2
// where the machine has it and circl's generic code elsewhere, so the lane
// logic is tested on every machine and build.
func testLanes() *lanes {
	s := new(keccakf1600.StateX4)
	return newLanesOver("circlx4", 4, stagedKernel(s.Initialize(false), 4, s.Permute))
}

func TestLanesEveryLength(t *testing.T) { checkEveryLength(t, testLanes()) }

func TestLanesMixedBatches(t *testing.T) { checkMixedBatches(t, testLanes()) }

// checkEveryLength hashes messages of every length from 0 to 1100 bytes in
// l and compares them with x/crypto.
func checkEveryLength(t *testing.T, l *lanes) {
	r := rand.New(rand.NewPCG(1, 1))
	msgs := make([][]byte, 1101)
	for n := range msgs {
		msgs[n] = make([]byte, n)
		for i := range msgs[n] {
			msgs[n][i] = byte(r.Uint32())
		}
	}
	for n, got := range sumAll(l, msgs) {
		require.Equal(t, keccakOracle(msgs[n]), got, "length %d", n)
	}
}

// checkMixedBatches hashes random batches of messages of lengths at the
// block boundaries in l and compares them with x/crypto.
func checkMixedBatches(t *testing.T, l *lanes) {
	seed := testgen.Seed(t)
	r := rand.New(rand.NewPCG(seed, 2))
	for round := range 200 {
		msgs := make([][]byte, 1+r.IntN(3*maxLanes))
		for i := range msgs {
			msgs[i] = make([]byte, []int{0, 1, 31, 32, 135, 136, 137, 271, 272, 600}[r.IntN(10)])
			for j := range msgs[i] {
				msgs[i][j] = byte(r.Uint32())
			}
		}
		for i, got := range sumAll(l, msgs) {
			require.Equal(t, keccakOracle(msgs[i]), got, "seed %d, round %d, message %d of %d bytes", seed, round, i, len(msgs[i]))
		}
	}
}

func TestLanesReset(t *testing.T) {
	l := testLanes()
	l.start(0, make([]byte, 500, 500+padSpare))
	l.step()
	l.reset()
	assert.True(t, l.allIdle())
	msg := []byte("after a reset")
	assert.Equal(t, keccakOracle(msg), sumAll(l, [][]byte{msg})[0])
}

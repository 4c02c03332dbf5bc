//go:build amd64 && !purego

package stacktrie

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// lanesX4 returns four lanes over keccakX4 alone; lanesX4x2, eight over
// keccakX4x2 alone. newLanesAVX2 uses each in turn, so each is tested on
// its own as well as through it.
func lanesX4() *lanes {
	state := new([200]uint64)
	return newLanesOver("avx2x4", 4, func(blocks *[maxLanes]*[keccakRate]byte, keep *[maxLanes]uint64, digests *[maxLanes][32]byte) {
		keccakX4(state, &roundConstantsX8, (*[4]*[keccakRate]byte)(blocks[:4]), (*[4]uint64)(keep[:4]), (*[4][32]byte)(digests[:4]))
	})
}

func lanesX4x2() *lanes {
	state := new([440]uint64)
	return newLanesOver("avx2x4x2", 8, func(blocks *[maxLanes]*[keccakRate]byte, keep *[maxLanes]uint64, digests *[maxLanes][32]byte) {
		keccakX4x2(state, &roundConstantsX8, blocks, keep, digests)
	})
}

// The AVX2 lanes against x/crypto, where the machine has AVX2.
func TestLanesAVX2(t *testing.T) {
	if newLanesAVX2() == nil {
		t.Skip("no AVX2 on this machine: amd64 hashes one node at a time there")
	}
	for _, newLanes := range []func() *lanes{lanesX4, lanesX4x2, newLanesAVX2} {
		t.Run(newLanes().name, func(t *testing.T) {
			checkEveryLength(t, newLanes())
			checkMixedBatches(t, newLanes())
		})
	}
}

// TestLanesAVX2SwitchKernels checks that a message goes on across steps
// that switch between keccakX4 and keccakX4x2: lane 0 holds a long message
// while lanes 4 to 7 take messages only every other step, so that the first
// set's state passes from one kernel to the other and back.
func TestLanesAVX2SwitchKernels(t *testing.T) {
	l := newLanesAVX2()
	if l == nil {
		t.Skip("no AVX2 on this machine: amd64 hashes one node at a time there")
	}
	r := rand.New(rand.NewPCG(4, 2))
	message := func(n int) []byte {
		msg := make([]byte, n, n+padSpare)
		for i := range msg {
			msg[i] = byte(r.Uint32())
		}
		return msg
	}
	msgs := [][]byte{message(7 * keccakRate)} // lane 0, for eight steps
	l.start(0, msgs[0])
	got := map[int32][32]byte{}
	for step := range 8 {
		if step%2 == 1 {
			// Lanes 1 to 7 take a one-block message each: lanes 4 to 7 are
			// busy at this step only.
			for l.hasIdle() {
				msgs = append(msgs, message(r.IntN(keccakRate)))
				l.start(int32(len(msgs)-1), msgs[len(msgs)-1])
			}
		}
		for ended := l.step(); ended != 0; ended &= ended - 1 {
			i := bits.TrailingZeros8(ended)
			got[l.finish(i)] = l.digests[i]
		}
	}
	require.True(t, l.allIdle(), "every message hashed")
	require.Len(t, got, len(msgs))
	for i, msg := range msgs {
		require.Equal(t, keccakOracle(msg), got[int32(i)], "message %d of %d bytes", i, len(msg))
	}
}

package stacktrie

// The multi-lane Keccak-256 path: several messages hashed side by side in the
// interleaved states of a SIMD Keccak-f[1600]. The kernel is chosen per
// architecture (lanes_amd64.go, lanes_arm64.go, lanes_generic.go); this file
// schedules messages into lanes and pads them, whatever the kernel.

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// maxLanes is the most Keccak permutations run side by side.
const maxLanes = 8

// A kernel runs one step of Keccak-256 in every lane: it absorbs blocks[i]
// into lane i, first clearing the lane's state where keep[i] is zero (and
// leaving it where keep[i] is all ones), runs the permutation, and writes
// the first 32 bytes of each lane's state to digests[i].
type kernel func(blocks *[maxLanes]*[keccakRate]byte, keep *[maxLanes]uint64, digests *[maxLanes][32]byte)

// zeroBlock is what idle lanes absorb.
var zeroBlock [keccakRate]byte

// upperIdle reports whether lanes 4 to 7 idle in a step: a kernel may then
// run lanes 0 to 3 alone, for less.
func upperIdle(blocks *[maxLanes]*[keccakRate]byte) bool {
	return blocks[4] == &zeroBlock && blocks[5] == &zeroBlock && blocks[6] == &zeroBlock && blocks[7] == &zeroBlock
}

// lanes computes Keccak-256 of up to maxLanes messages at once. Messages of
// different lengths are absorbed in lockstep, one block per lane per step,
// and a lane takes its next message as soon as its last block is in: so a
// short message never waits for a long one.
//
// The kernel's arguments are kept from step to step: a lane's block and
// keep word change only when it starts a message, moves to the message's
// next block, or idles, so that a step visits by the bits of masks only
// the lanes with more blocks to absorb and those that ended and stayed
// idle.
type lanes struct {
	name   string // the kernel, as the tests and benchmarks report it
	n      int
	kernel kernel

	busy uint8 // bit i: lane i holds a message
	full uint8 // busy when every lane holds one
	more uint8 // lanes whose message has blocks after the one in blocks
	// ended holds the lanes the last step ended, whose arguments still
	// name their last block: the next step idles those not restarted.
	ended uint8
	job   [maxLanes]int32
	rest  [maxLanes][]byte // the blocks of each lane's message after the one in blocks

	// The kernel's arguments: each lane's next block, zeroBlock when idle,
	// and whether it goes on from its state (all ones) or starts anew (0).
	blocks  [maxLanes]*[keccakRate]byte
	keep    [maxLanes]uint64
	digests [maxLanes][32]byte

	// Work done, for the benchmarks' lane occupancy.
	permutations, laneBlocks uint64
}

func newLanesOver(name string, n int, k kernel) *lanes {
	l := &lanes{name: name, n: n, kernel: k, full: uint8(1<<n - 1)}
	l.reset()
	return l
}

// paddedLen is the length of a message of n bytes with Keccak's padding:
// at least one byte more, rounded up to whole blocks.
func paddedLen(n int) int { return (n/keccakRate + 1) * keccakRate }

// padSpare is the capacity start needs past a message: the padding is
// written there, in place, by clearing a whole block's worth of bytes at once.
const padSpare = keccakRate

// start puts msg, the message of job, in an idle lane. The caller checks
// that one is idle, and gives msg a capacity of at least len(msg)+padSpare,
// which start may overwrite: the padding is written there, past the
// message, so that the kernel reads every block, the last one too, straight
// from msg.
func (l *lanes) start(job int32, msg []byte) {
	l.startIn(l.idle(), job, msg)
}

// idle returns the first idle lane; there must be one.
func (l *lanes) idle() int32 { return int32(bits.TrailingZeros8(^l.busy)) }

// startIn is start in lane i, which must be idle.
func (l *lanes) startIn(i, job int32, msg []byte) {
	i &= maxLanes - 1 // changes nothing; saves bounds checks
	// Legacy Keccak padding: 0x01 after the message, 0x80 in the last byte
	// of the block; a message filling whole blocks gets a block of padding
	// alone. The padding is at most a block: it is cleared as an array, in
	// a few vector stores rather than a call to memclr.
	n := len(msg)
	*(*[padSpare]byte)(msg[n : n+padSpare]) = [padSpare]byte{}
	msg = msg[:paddedLen(n)]
	if last := len(msg) - 1; last == n {
		msg[n] = 0x81
	} else {
		msg[n], msg[last] = 0x01, 0x80 // written, not or-ed: a byte read just after the wide clear would wait for it
	}
	l.blocks[i], l.keep[i], l.rest[i] = (*[keccakRate]byte)(msg), 0, msg[keccakRate:]
	l.job[i] = job
	l.busy |= 1 << i
	if len(msg) > keccakRate {
		l.more |= 1 << i
	}
}

// startOwn is startIn for a message of one block with its padding, at
// most keccakRate-2 bytes, as a leaf of hashed keys is, as job i, the
// lane's own (batcher.newReady): short enough to inline where most leaves
// are started.
func (l *lanes) startOwn(i int32, msg []byte) {
	i &= maxLanes - 1 // changes nothing; saves bounds checks
	n := len(msg)
	*(*[padSpare]byte)(msg[n : n+padSpare]) = [padSpare]byte{}
	block := (*[keccakRate]byte)(msg[:keccakRate])
	block[n], block[keccakRate-1] = 0x01, 0x80
	l.blocks[i], l.keep[i], l.rest[i] = block, 0, nil
	l.job[i] = i
	l.busy |= 1 << i
}

// hasIdle reports whether a lane is free for a message.
func (l *lanes) hasIdle() bool { return l.busy != l.full }

// allIdle reports whether no lane holds a message.
func (l *lanes) allIdle() bool { return l.busy == 0 }

// step absorbs the next block of every busy lane and runs the permutation.
// It returns the lanes whose message it ended, as a mask of lane bits: each
// still holds its job, and its hash in digests, until finish frees it.
func (l *lanes) step() (ended uint8) {
	for idle := l.ended &^ l.busy; idle != 0; idle &= idle - 1 {
		i := bits.TrailingZeros8(idle)
		l.blocks[i], l.keep[i] = &zeroBlock, 0
	}
	l.kernel(&l.blocks, &l.keep, &l.digests)
	l.laneBlocks += uint64(bits.OnesCount8(l.busy))
	l.permutations++

	// Most messages are one block, as every leaf of hashed keys is: the
	// lanes visited are those with more.
	ended = l.busy &^ l.more
	for more := l.more; more != 0; more &= more - 1 {
		i := bits.TrailingZeros8(more)
		rest := l.rest[i]
		l.blocks[i], l.keep[i], l.rest[i] = (*[keccakRate]byte)(rest), ^uint64(0), rest[keccakRate:]
		if len(rest) == keccakRate {
			l.more &^= 1 << i
		}
	}
	l.ended = ended
	return ended
}

// finish frees lane i, whose message the last step ended, and returns its
// job. The hash stays in digests[i] until the next step.
func (l *lanes) finish(i int) int32 {
	l.busy &^= 1 << i
	return l.job[i]
}

// sumEach writes Keccak-256 of msgs[i] to out[i], hashing the messages side
// by side, each lane taking the next message as soon as it is free. The
// lanes must be idle. The messages are copied into padded, grown as needed
// and returned for reuse, with room for their padding: start's spare bytes
// past a message fall on the next one's place before it is copied there,
// and past the last one on padSpare bytes more.
func (l *lanes) sumEach(msgs [][]byte, out []Hash, padded []byte) []byte {
	size := padSpare
	for _, msg := range msgs {
		size += paddedLen(len(msg))
	}
	padded = slices.Grow(padded[:0], size)[:size]
	next, at := 0, 0
	for next < len(msgs) || !l.allIdle() {
		for l.hasIdle() && next < len(msgs) {
			n := len(msgs[next])
			msg := padded[at : at+n : at+n+padSpare]
			copy(msg, msgs[next])
			l.start(int32(next), msg)
			next, at = next+1, at+paddedLen(n)
		}
		for ended := l.step(); ended != 0; ended &= ended - 1 {
			i := bits.TrailingZeros8(ended)
			out[l.finish(i)] = l.digests[i]
		}
	}
	return padded
}

// reset drops the messages in flight.
func (l *lanes) reset() {
	l.busy, l.more, l.ended = 0, 0, 0
	for i := range l.blocks {
		l.blocks[i], l.keep[i], l.rest[i] = &zeroBlock, 0, nil
	}
}

// stagedKernel is the kernel of a permutation that works on interleaved
// states in memory, lane i's word w at a[w*n+i], such as circl's: blocks go
// in and digests come out word by word, in Go.
func stagedKernel(a []uint64, n int, permute func()) kernel {
	return func(blocks *[maxLanes]*[keccakRate]byte, keep *[maxLanes]uint64, digests *[maxLanes][32]byte) {
		for i := range n {
			block, k := blocks[i], keep[i]
			for w := range keccakRate / 8 {
				a[w*n+i] = a[w*n+i]&k ^ binary.LittleEndian.Uint64(block[8*w:])
			}
			for w := keccakRate / 8; w < 25; w++ {
				a[w*n+i] &= k
			}
		}
		permute()
		for i := range n {
			for w := range 4 {
				binary.LittleEndian.PutUint64(digests[i][8*w:], a[w*n+i])
			}
		}
	}
}

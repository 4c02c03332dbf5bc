package stacktrie

// The multi-lane Keccak-256 path: several messages hashed side by side in the
// interleaved states of a SIMD Keccak-f[1600]. The kernel is chosen per
// architecture (lanes_amd64.go, lanes_arm64.go, lanes_generic.go); this file
// only absorbs, pads and reads out, whatever the kernel.

import "encoding/binary"

// maxLanes is the most Keccak permutations run side by side.
const maxLanes = 8

// lanes computes Keccak-256 of up to maxLanes messages at once, in the
// interleaved states of a multi-way Keccak-f[1600] permutation: lane i's
// word j is a[j*n+i]. Messages of different lengths are absorbed in
// lockstep, one block per lane per permutation, and a lane takes its next
// message as soon as its last block is in: so a short message never waits
// for a long one.
type lanes struct {
	name    string // the kernel, as the tests and benchmarks report it
	a       []uint64
	n       int
	permute func()

	msg  [maxLanes][]byte
	job  [maxLanes]int32
	off  [maxLanes]int // next byte of msg to absorb
	busy [maxLanes]bool
	idle int

	block [keccakRate]byte // the padded last block of a message

	// Work done, for the benchmarks' lane occupancy.
	permutations, laneBlocks uint64
}

func newLanesOver(name string, a []uint64, n int, permute func()) *lanes {
	return &lanes{name: name, a: a, n: n, permute: permute, idle: n}
}

// laneDone is a message whose hash a step completed.
type laneDone struct {
	job  int32
	hash [32]byte
}

// start puts msg, the message of job, in an idle lane. The caller checks
// that one is idle. The lane's state is cleared by its first block.
func (l *lanes) start(job int32, msg []byte) {
	i := 0
	for l.busy[i] {
		i++
	}
	l.msg[i], l.job[i], l.off[i], l.busy[i] = msg, job, 0, true
	l.idle--
}

// step absorbs the next block of every busy lane, runs the permutation, and
// writes the jobs whose last block went in to done, returning how many.
func (l *lanes) step(done *[maxLanes]laneDone) int {
	var last [maxLanes]bool
	for i := range l.n {
		if !l.busy[i] {
			continue
		}
		msg, off := l.msg[i], l.off[i]
		block := l.block[:]
		if len(msg)-off >= keccakRate {
			block = msg[off : off+keccakRate]
			l.off[i] += keccakRate
		} else {
			// Legacy Keccak padding: 0x01 after the message, 0x80 in the
			// last byte of the block; a message filling whole blocks gets a
			// block of padding alone.
			n := copy(block, msg[off:])
			clear(block[n:])
			block[n] = 0x01
			block[keccakRate-1] |= 0x80
			last[i] = true
		}
		if off == 0 {
			l.load(i, block)
		} else {
			l.absorb(i, block)
		}
	}
	l.laneBlocks += uint64(l.n - l.idle)
	l.permute()
	l.permutations++

	finished := 0
	for i := range l.n {
		if !last[i] {
			continue
		}
		d := &done[finished]
		d.job = l.job[i]
		for w := range 4 {
			binary.LittleEndian.PutUint64(d.hash[8*w:], l.a[w*l.n+i])
		}
		l.busy[i], l.msg[i] = false, nil
		l.idle++
		finished++
	}
	return finished
}

// absorb XORs one block into lane i's state.
func (l *lanes) absorb(i int, block []byte) {
	for w := range keccakRate / 8 {
		l.a[w*l.n+i] ^= binary.LittleEndian.Uint64(block[8*w:])
	}
}

// load starts lane i's state with a message's first block: the block XORed
// into a zero state, written at once.
func (l *lanes) load(i int, block []byte) {
	for w := range keccakRate / 8 {
		l.a[w*l.n+i] = binary.LittleEndian.Uint64(block[8*w:])
	}
	for w := keccakRate / 8; w < 25; w++ {
		l.a[w*l.n+i] = 0
	}
}

// reset drops the messages in flight.
func (l *lanes) reset() {
	l.busy = [maxLanes]bool{}
	l.msg = [maxLanes][]byte{}
	l.idle = l.n
}

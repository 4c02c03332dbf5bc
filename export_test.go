package stacktrie

import "time"

// NewScalar returns a Trie that hashes one node at a time even where the
// machine has SIMD lanes, so tests cover both hashing paths on one machine.
func NewScalar(onNode NodeFunc) *Trie {
	t := New(onNode)
	t.batch.lanes = nil
	return t
}

// LaneWork returns the permutations the trie's lanes ran and the lane-blocks
// they absorbed; zeros without lanes.
func LaneWork(t *Trie) (permutations, laneBlocks uint64, lanes int) {
	l := t.batch.lanes
	if l == nil {
		return 0, 0, 0
	}
	return l.permutations, l.laneBlocks, l.n
}

// NewFourLanes returns a Trie that hashes in circl's four lanes (AVX2, or
// circl's generic code without it) whatever wider lanes the machine has.
func NewFourLanes(onNode NodeFunc) *Trie {
	t := New(onNode)
	t.batch.lanes = testLanes()
	return t
}

// LaneBlockCost times the kernel of the trie's lanes alone, every lane
// busy, rounds times, and returns its cost per lane-block: the permutation
// floor's unit. A kernel step also absorbs a block and writes the digests,
// work that hashing a block cannot skip. It overwrites the lanes' state, so
// call it only after Hash; zero without lanes.
func LaneBlockCost(t *Trie, rounds int) (nanoseconds float64) {
	l := t.batch.lanes
	if l == nil {
		return 0
	}
	start := time.Now()
	l.runFull(rounds)
	return float64(time.Since(start).Nanoseconds()) / float64(rounds*l.n)
}

// runFull runs l's kernel rounds times with every lane absorbing a block,
// through the lanes' own step arguments, and then puts the arguments back:
// the lanes keep them from step to step. The block is not zeroBlock, which
// marks an idle lane: the AVX2 lanes run half their kernel when lanes 4 to
// 7 are idle.
func (l *lanes) runFull(rounds int) {
	blocks, keep := l.blocks, l.keep
	for i := range l.blocks {
		l.blocks[i], l.keep[i] = &fullBlock, ^uint64(0)
	}
	for range rounds {
		l.kernel(&l.blocks, &l.keep, &l.digests)
	}
	l.blocks, l.keep = blocks, keep
}

// fullBlock is what runFull's lanes absorb.
var fullBlock [keccakRate]byte

// NewWithoutPermutation returns a Trie whose eight lanes skip the
// permutation: every node is encoded, queued, put in a lane and delivered
// as in a Trie, but no block is absorbed and every hash is whatever the
// lanes held, so its roots are wrong. It measures the trie's own work, the
// part of its time that is not Keccak (BenchmarkTrieWork, make
// instructions).
func NewWithoutPermutation() *Trie {
	t := New(nil)
	t.batch.lanes = newLanesOver("none", maxLanes, func(*[maxLanes]*[keccakRate]byte, *[maxLanes]uint64, *[maxLanes][32]byte) {})
	return t
}

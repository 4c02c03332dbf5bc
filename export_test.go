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

// LaneBlockCost times the permutation of the trie's lanes alone, rounds
// times, and returns its cost per lane-block: the permutation floor's unit.
// It overwrites the lanes' state, so call it only after Hash; zero without
// lanes.
func LaneBlockCost(t *Trie, rounds int) (nanoseconds float64) {
	l := t.batch.lanes
	if l == nil {
		return 0
	}
	start := time.Now()
	for range rounds {
		l.permute()
	}
	return float64(time.Since(start).Nanoseconds()) / float64(rounds*l.n)
}

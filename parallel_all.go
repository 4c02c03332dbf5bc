package stacktrie

// This file hashes pairs the caller holds all at once, in slices, on the
// Parallel's workers: each worker reads its partitions' pairs where they
// are, so that the caller's goroutine, which copies every pair in a stream
// fed with Update, does next to nothing.

import "fmt"

// HashAll returns the root of the pairs keys[i], values[i], as Update for
// each pair in turn and then Hash would, but without copying them: each
// worker reads the pairs of its partitions where they are and checks their
// order as it builds them. keys and values must not change until HashAll
// returns. Afterwards the Parallel is as after Hash.
//
// A stream begun with Update must be hashed or reset first: HashAll
// refuses it with ErrStreamOpen. Keys and values of different lengths are
// refused, and so are pairs Update would refuse, with the error Update
// gives for the first of them. A refused call changes nothing; with a node
// callback, the order is checked before any node is hashed, so that a
// refused call reports none.
func (p *Parallel) HashAll(keys, values [][]byte) (Hash, error) {
	switch {
	case p.hasKey && !p.hashed:
		return Hash{}, ErrStreamOpen
	case len(keys) != len(values):
		return Hash{}, fmt.Errorf("stacktrie: %d keys and %d values", len(keys), len(values))
	case p.onNode != nil:
		if err := firstRefused(keys, values); err != nil {
			return Hash{}, err
		}
	}
	first := 0 // the first pair of a partition: after the empty key, if there is one
	if len(keys) > 0 && len(keys[0]) == 0 {
		if len(values[0]) == 0 {
			return Hash{}, errorWithKeys(ErrEmptyValue, keys[0], nil)
		}
		first = 1
	}
	if !p.buildPartitions(keys[first:], values[first:]) {
		p.dropTops()
		if err := firstRefused(keys, values); err != nil {
			return Hash{}, err
		}
		// Not reached: a check fails only on pairs Update refuses.
		return Hash{}, fmt.Errorf("%w: pairs out of order", ErrKeyOrder)
	}
	p.top.Reset()
	if first == 1 {
		_ = p.top.Update(keys[0], values[0]) // the empty key, into an empty trie
	}
	p.mountTops()
	p.root = p.top.Hash()
	p.hasKey, p.hashed = len(keys) > 0, true
	return p.root, nil
}

// buildPartitions has the workers build the partitions of keys and
// reports whether the keys were in order with values set; the partitions'
// tops are then in tops.
//
// Partition p starts at the first key whose first byte is p or more, found
// by binary search, which is exact only for sorted keys. But whatever the
// keys, a binary search ends between a key it found below p and one it found
// at p or more: each partition starts with a key of p or more and ends with
// one below p+1, and its Trie checks that its keys ascend, so that all of
// them lie under p, and the partitions follow each other in order. What is
// left to check is that no key comes before partition 0: an empty key after
// the first.
func (p *Parallel) buildPartitions(keys, values [][]byte) bool {
	var bounds [partitions + 1]int
	for part := range partitions {
		bounds[part] = lowerBound(keys, part)
	}
	bounds[partitions] = len(keys)
	if bounds[0] != 0 {
		return false
	}
	p.start()
	p.refused = [partitions]bool{}
	for part := range partitions {
		lo, hi := bounds[part], bounds[part+1] // lo <= hi: binary search is monotone in what it looks for
		if lo == hi {
			continue
		}
		b := <-p.batches
		b.part, b.keys, b.values, b.last = part, keys[lo:hi], values[lo:hi], true
		p.work[part%p.n] <- b
	}
	p.finishStream()
	for _, refused := range p.refused {
		if refused {
			return false
		}
	}
	return true
}

// buildInPlace builds the pairs of a HashAll batch into t, where the
// caller holds them, and marks the partition refused if t refuses one.
func (w *workers) buildInPlace(t *Trie, b *batch) {
	for i, key := range b.keys {
		if t.Update(key, b.values[i]) != nil {
			w.refused[b.part] = true
			break
		}
	}
	b.keys, b.values = nil, nil
}

// lowerBound is the first index of sorted keys whose first byte is b or
// more, by binary search.
func lowerBound(keys [][]byte, b int) int {
	lo, hi := 0, len(keys)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if firstByte(keys[mid]) >= b {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// firstByte is a key's first byte, or -1 for the empty key.
func firstByte(key []byte) int {
	if len(key) == 0 {
		return -1
	}
	return int(key[0])
}

// firstRefused returns the error Update gives for the first pair it would
// refuse in a stream of keys and values, or nil if it would take them all.
func firstRefused(keys, values [][]byte) error {
	for i, key := range keys {
		switch {
		case len(values[i]) == 0:
			return errorWithKeys(ErrEmptyValue, key, nil)
		case i > 0 && !after(key, keys[i-1]):
			return errorWithKeys(ErrKeyOrder, key, keys[i-1])
		}
	}
	return nil
}

package state

// This file is the workers' part: building a job's tries, whole or in
// groups whose tops can be combined in key order.

import "github.com/stacktrie/stacktrie"

// build builds the tries of a job's items, on whichever worker takes the
// job, in the job's own Trie. An item that holds a whole trie gives its
// root. A chunk of a larger trie gives the tops of its groups, for the
// sequencer or the mounter to combine in key order: a group is every key of
// the trie under one prefix, so that its top is a node of the whole trie,
// and the chunks of one trie can be built by different workers at once.
//
// Whole tries end with HashLater: most storage tries hold a few slots, and
// their nodes fill the lanes together where each alone would leave most of
// them idle. Without OnNode, that is; with it, each is hashed at once, so
// that its nodes are reported under its owner.
func (j *job) build() {
	j.trie.Reset()
	for i := range j.items {
		it := &j.items[i]
		j.owner = it.owner
		it.topsFrom = int32(len(j.topEnds))
		if it.whole() {
			for k := it.first; k < it.end; k++ {
				// Keys were checked ascending and values not empty as
				// they came in: this cannot fail.
				_ = j.trie.Update(j.keys[k][:], j.value(k))
			}
			j.trie.HashLater(&it.root)
		} else {
			for k := it.first; k < it.end; {
				k = j.buildGroup(it, k)
			}
		}
		it.topsTo = int32(len(j.topEnds))
	}
	j.trie.Flush()
}

// buildGroup builds the group of a chunk that starts at pair first, appends
// its top to the job's tops, and returns where the next group starts.
func (j *job) buildGroup(it *item, first int32) int32 {
	depth := groupDepth(it, &j.keys[first])
	k := first
	for ; k < it.end && sharedNibbles(&j.keys[first], &j.keys[k]) >= depth; k++ {
		_ = j.trie.Update(j.keys[k][:], j.value(k))
	}
	j.tops, _ = j.trie.AppendSubtrie(j.tops) // not hashed: cannot fail
	j.topEnds = append(j.topEnds, int32(len(j.tops)))
	j.trie.Reset() // it holds the top as its last item
	return k
}

// groupDepth is the length of the prefix of the group that starts at key, a
// key of the chunk it: the shortest prefix of key that neither of the keys
// just outside the chunk has. Every key of the trie with that prefix is then
// in the chunk, and none comes before key there: a key of an earlier group
// with that prefix would have given its group the same depth, and key would
// be in it.
func groupDepth(it *item, key *stacktrie.Hash) int {
	depth := 0
	if it.hasBefore {
		depth = sharedNibbles(&it.before, key) + 1
	}
	if it.hasAfter {
		depth = max(depth, sharedNibbles(key, &it.after)+1)
	}
	return depth
}

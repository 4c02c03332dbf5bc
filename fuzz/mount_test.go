package fuzz

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/reftrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

// sortedPairs decodes input into pairs in key order, without duplicates or
// empty values: a stream every trie accepts.
func sortedPairs(data []byte) []testgen.Pair {
	pairs := slices.DeleteFunc(decodePairs(data), func(p testgen.Pair) bool { return len(p.Value) == 0 })
	slices.SortStableFunc(pairs, func(a, b testgen.Pair) int { return bytes.Compare(a.Key, b.Key) })
	return slices.CompactFunc(pairs, func(a, b testgen.Pair) bool { return bytes.Equal(a.Key, b.Key) })
}

// reference returns the reference trie over pairs.
func reference(pairs []testgen.Pair) *reftrie.Trie {
	ref := reftrie.New()
	for _, p := range pairs {
		ref.Put(p.Key, p.Value)
	}
	return ref
}

// FuzzSubtries splits a stream into partitions by the first depth nibbles of
// the keys (depth from the input, 0 to 5), builds each in a Trie of its own,
// passes its Subtrie through its binary form and mounts it into one trie,
// inserting keys shorter than depth directly. The root and nodes must be the
// reference trie's.
func FuzzSubtries(f *testing.F) {
	f.Add(byte(1), []byte{0, 2, 'd', 'o', 4, 'v', 'e', 'r', 'b', 2, 1, 'g', 5, 'p', 'u', 'p', 'p', 'y'})
	f.Add(byte(3), []byte{0, 1, 'a', 1, 'x', 1, 1, 'b', 1, 'y', 0, 2, 'a', 'c', 1, 'z'})
	f.Fuzz(func(t *testing.T, depthByte byte, data []byte) {
		depth := int(depthByte % 6)
		pairs := sortedPairs(data)
		var got []reported
		onNode := func(path []byte, hash stacktrie.Hash, blob []byte) {
			got = append(got, reported{string(path), hash, string(blob)})
		}
		top := stacktrie.New(onNode)
		var part *stacktrie.Trie
		var partPrefix []byte
		mountPart := func() {
			if part == nil {
				return
			}
			sub, err := part.Subtrie()
			if err != nil {
				t.Fatal(err)
			}
			wire, err := sub.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var back stacktrie.Subtrie
			if err := back.UnmarshalBinary(wire); err != nil {
				t.Fatalf("%x: %v", wire, err)
			}
			if err := back.Mount(top); err != nil {
				t.Fatalf("mount %+v: %v", back, err)
			}
			part = nil
		}
		for _, p := range pairs {
			nibbles := reftrie.KeyNibbles(p.Key)
			if len(nibbles) < depth {
				mountPart()
				if err := top.Update(p.Key, p.Value); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if part == nil || !bytes.Equal(nibbles[:depth], partPrefix) {
				mountPart()
				part = stacktrie.New(onNode)
				partPrefix = nibbles[:depth]
			}
			if err := part.Update(p.Key, p.Value); err != nil {
				t.Fatal(err)
			}
		}
		mountPart()
		ref := reference(pairs)
		if root, want := top.Hash(), stacktrie.Hash(ref.Root()); root != want {
			t.Fatalf("depth %d: root %v, want %v", depth, root, want)
		}
		checkNodes(t, ref.Nodes(), got)
	})
}

// maxMounts bounds the subtries one input mounts.
const maxMounts = 16

// mountItem is what a trie takes in key order: a pair, or a branch to mount.
// path holds the key's nibbles, or the branch's path.
type mountItem struct {
	path       []byte
	key, value []byte
	branch     bool
	ref        []byte
}

func (it mountItem) insert(tr *stacktrie.Trie) error {
	if it.branch {
		return tr.UpdateBranch(it.path, it.ref)
	}
	return tr.Update(it.key, it.value)
}

func (it mountItem) String() string {
	if it.branch {
		return fmt.Sprintf("branch at %x (%x)", it.path, it.ref)
	}
	return fmt.Sprintf("key %x", it.key)
}

// chooseMounts picks branches of the reference trie to mount, as the input
// says: a count, then for each a branch by index (two bytes). A branch at,
// above or below one picked before is left out, as it could not be mounted
// beside it. The result is in key order.
func chooseMounts(r *reader, branches []reftrie.Branch) []reftrie.Branch {
	if len(branches) == 0 {
		return nil
	}
	var mounts []reftrie.Branch
	for range int(r.byte()) % (maxMounts + 1) {
		b := branches[(int(r.byte())<<8|int(r.byte()))%len(branches)]
		if !slices.ContainsFunc(mounts, func(m reftrie.Branch) bool {
			return bytes.HasPrefix(m.Path, b.Path) || bytes.HasPrefix(b.Path, m.Path)
		}) {
			mounts = append(mounts, b)
		}
	}
	slices.SortFunc(mounts, func(a, b reftrie.Branch) int { return bytes.Compare(a.Path, b.Path) })
	return mounts
}

// mountItems merges the pairs and the mounts in key order, leaving out the
// pairs under a mounted branch, which holds them.
func mountItems(pairs []testgen.Pair, mounts []reftrie.Branch) []mountItem {
	var items []mountItem
	for _, m := range mounts {
		items = append(items, mountItem{path: m.Path, branch: true, ref: m.Ref})
	}
	for _, p := range pairs {
		nibbles := reftrie.KeyNibbles(p.Key)
		if !slices.ContainsFunc(mounts, func(m reftrie.Branch) bool { return bytes.HasPrefix(nibbles, m.Path) }) {
			items = append(items, mountItem{path: nibbles, key: p.Key, value: p.Value})
		}
	}
	slices.SortFunc(items, func(a, b mountItem) int { return bytes.Compare(a.path, b.path) })
	return items
}

// packNibbles packs an even number of nibbles into a key.
func packNibbles(nibbles []byte) []byte {
	key := make([]byte, len(nibbles)/2)
	for i := range key {
		key[i] = nibbles[2*i]<<4 | nibbles[2*i+1]
	}
	return key
}

// Ways FuzzUpdateBranch tries to make the trie take an item it must refuse,
// one op byte after each accepted item (the op modulo refusalOps).
const (
	refuseNothing     = iota
	refuseKeyUnder    // a key under the last branch mounted, or not above the last key: extra nibbles / cut
	refuseBranchUnder // a branch under the last mounted one, or at a prefix of the last key: extra nibbles / cut
	refuseEarlier     // an item accepted before: which
	refuseNibble      // a branch whose path holds a nibble above 15: the nibble
	refuseRef         // a branch in key order with an invalid reference: kind, length
	refuseEmptyValue  // the next key with no value
	refusalOps
)

// refusal makes an item the trie must refuse after the accepted items (the
// last of them the trie's last item), with next the item to come, if any;
// and the error it must be refused with.
func refusal(r *reader, op byte, accepted []mountItem, next *mountItem) (mountItem, error) {
	hash := make([]byte, 32)
	last := accepted[len(accepted)-1]
	extra := func(path []byte) []byte {
		path = bytes.Clone(path)
		for range int(r.byte() % 4) {
			path = append(path, r.byte()%16)
		}
		return path
	}
	switch op {
	case refuseKeyUnder:
		if last.branch {
			nibbles := extra(last.path)
			if len(nibbles)%2 == 1 {
				nibbles = append(nibbles, r.byte()%16)
			}
			return mountItem{path: nibbles, key: packNibbles(nibbles), value: []byte{1}}, stacktrie.ErrKeyOrder
		}
		key := last.key[:int(r.byte())%(len(last.key)+1)]
		return mountItem{path: reftrie.KeyNibbles(key), key: key, value: []byte{1}}, stacktrie.ErrKeyOrder
	case refuseBranchUnder:
		if last.branch {
			return mountItem{path: extra(last.path), branch: true, ref: hash}, stacktrie.ErrKeyOrder
		}
		return mountItem{path: last.path[:int(r.byte())%(len(last.path)+1)], branch: true, ref: hash}, stacktrie.ErrKeyOrder
	case refuseEarlier:
		return accepted[int(r.byte())%len(accepted)], stacktrie.ErrKeyOrder
	}
	// The rest would be in key order: before the next item, or past every
	// item if there is none.
	path := []byte{15, 15, 15}
	if next != nil {
		path = next.path
	}
	switch op {
	case refuseNibble:
		path = slices.Clone(path)
		path[int(r.byte())%len(path)] = 16 + r.byte()%240
		return mountItem{path: path, branch: true, ref: hash}, stacktrie.ErrInvalidBranch
	case refuseRef:
		n := 1 + int(r.byte())%31
		var ref []byte
		switch r.byte() % 4 {
		case 0: // none
		case 1: // longer than a hash
			ref = make([]byte, 33)
		case 2: // short, not a list
			ref = append([]byte{0x80 + byte(n-1)}, make([]byte, n-1)...)
		default: // a list header of the wrong length
			ref = append([]byte{0xc0 + byte(n)}, make([]byte, n-1)...)
		}
		return mountItem{path: path, branch: true, ref: ref}, stacktrie.ErrInvalidBranch
	case refuseEmptyValue:
		return mountItem{path: path, key: packNibbles(path[:len(path)/2*2])}, stacktrie.ErrEmptyValue
	}
	return mountItem{}, nil
}

// FuzzUpdateBranch builds the trie of a key set from its pairs and from
// subtries known only by the reference of their top branch: the input picks
// branches of the reference trie, which are mounted with UpdateBranch, and
// the pairs outside them go in with Update. Between the items, the input
// offers items that must be refused (under a mounted branch, out of order,
// invalid): each must fail with its documented error and change nothing.
// The root must be the reference trie's, and the nodes reported those of the
// reference trie outside the mounted subtries (and the root, if a small
// branch is mounted as the root).
func FuzzUpdateBranch(f *testing.F) {
	// a1, a2 and b: branches at 6 and at 6,1,3 (under a1 and a2).
	abPairs := []byte{0, 2, 'a', '1', 1, 'x', 0, 2, 'a', '2', 1, 'y', 0, 1, 'b', 1, 'z'}
	// Mount 6,1,3, then a key under it (a5, nibbles 6,1,3,5), then b.
	f.Add(abPairs, []byte{1, 0, 1, refuseKeyUnder, 1, 5, refuseNothing})
	// Mount 6,1,3, then a branch under it (6,1,3,2,0) and the same branch again.
	f.Add(abPairs, []byte{1, 0, 1, refuseBranchUnder, 2, 2, 0, refuseBranchUnder, 0})
	// Keys 10 and 20: the root is a branch, embedded-size. Mount it as the
	// whole trie, then a branch under it (at 3).
	f.Add([]byte{0, 1, 0x10, 1, 1, 0, 1, 0x20, 1, 2}, []byte{1, 0, 0, refuseBranchUnder, 1, 3})
	// The same with values that make the root branch hashed, then a key under it.
	f.Add(append(append([]byte{0, 1, 0x10, 40}, bytes.Repeat([]byte{1}, 40)...), append([]byte{0, 1, 0x20, 40}, bytes.Repeat([]byte{2}, 40)...)...),
		[]byte{1, 0, 0, refuseKeyUnder, 1, 3})
	// Keys only, with refusals between: the same key again, a key cut
	// short, a branch at the root (a prefix of the last key).
	f.Add(abPairs, []byte{0, refuseEarlier, 0, refuseKeyUnder, 1, refuseBranchUnder, 3})
	// A nibble of 21; a reference missing, one of 33 bytes, one short and not
	// a list, one a list of the wrong length; an empty value.
	f.Add(abPairs, []byte{0, refuseNibble, 1, 5, refuseRef, 3, 0, refuseRef, 3, 3})
	f.Add(abPairs, []byte{0, refuseRef, 7, 1, refuseRef, 7, 2, refuseEmptyValue})
	// puppy: mount the branch under "do", which holds dog and doge.
	f.Add([]byte{0, 2, 'd', 'o', 4, 'v', 'e', 'r', 'b', 2, 1, 'g', 5, 'p', 'u', 'p', 'p', 'y',
		3, 1, 'e', 4, 'c', 'o', 'i', 'n', 0, 5, 'h', 'o', 'r', 's', 'e', 8, 's', 't', 'a', 'l', 'l', 'i', 'o', 'n'},
		[]byte{1, 0, 1, refuseEarlier, 0, refuseKeyUnder, 3, 1, 2, 3})
	f.Fuzz(func(t *testing.T, pairData, plan []byte) {
		pairs := sortedPairs(pairData)
		ref := reference(pairs)
		r := &reader{plan}
		mounts := chooseMounts(r, ref.Branches())
		items := mountItems(pairs, mounts)

		var got []reported
		tr := stacktrie.New(func(path []byte, hash stacktrie.Hash, blob []byte) {
			got = append(got, reported{string(path), hash, string(blob)})
		})
		for i, it := range items {
			if err := it.insert(tr); err != nil {
				t.Fatalf("%v: %v", it, err)
			}
			var next *mountItem
			if i+1 < len(items) {
				next = &items[i+1]
			}
			op := r.byte() % refusalOps
			if op == refuseNothing {
				continue
			}
			bad, want := refusal(r, op, items[:i+1], next)
			if err := bad.insert(tr); !errors.Is(err, want) {
				t.Fatalf("%v after %v: got %v, want %v", bad, it, err, want)
			}
		}

		if root, want := tr.Hash(), stacktrie.Hash(ref.Root()); root != want {
			t.Fatalf("root %v, want %v (mounted %d of %d items)", root, want, len(mounts), len(items))
		}
		var want []reftrie.Node
		for _, n := range ref.Nodes() {
			inside := slices.ContainsFunc(mounts, func(m reftrie.Branch) bool {
				return bytes.HasPrefix(n.Path, m.Path) && !(len(n.Path) == 0 && len(m.Ref) < 32)
			})
			if !inside {
				want = append(want, n)
			}
		}
		checkNodes(t, want, got)
		if err := tr.UpdateBranch([]byte{15}, make([]byte, 32)); !errors.Is(err, stacktrie.ErrFinalized) {
			t.Fatalf("UpdateBranch after Hash: got %v, want ErrFinalized", err)
		}
	})
}

// FuzzParallel compares Parallel on two workers with the reference trie,
// and its refusals of keys out of order with bytes.Compare's.
func FuzzParallel(f *testing.F) {
	f.Add([]byte{0, 2, 'd', 'o', 4, 'v', 'e', 'r', 'b', 2, 1, 'g', 5, 'p', 'u', 'p', 'p', 'y'}, []byte{0, 1, 2, 3, 4, 7})
	f.Fuzz(func(t *testing.T, data, offers []byte) {
		pairs := sortedPairs(data)
		var got []reported
		p := stacktrie.NewParallel(2, func(path []byte, hash stacktrie.Hash, blob []byte) {
			got = append(got, reported{string(path), hash, string(blob)})
		})
		defer p.Close()
		// Before each pair, offers may put a key that is not after the
		// last: the last again, its prefix, or an earlier key; or one just
		// after it, which may leave the next pair behind. Each verdict is
		// bytes.Compare's against the last key accepted.
		var accepted []testgen.Pair
		offer := func(pair testgen.Pair) {
			err := p.Update(pair.Key, pair.Value)
			if n := len(accepted); n > 0 && bytes.Compare(pair.Key, accepted[n-1].Key) <= 0 {
				if !errors.Is(err, stacktrie.ErrKeyOrder) {
					t.Fatalf("key %x after %x: got %v, want ErrKeyOrder", pair.Key, accepted[n-1].Key, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			accepted = append(accepted, pair)
		}
		for i, pair := range pairs {
			if n := len(accepted); n > 0 && i < len(offers) {
				last := accepted[n-1]
				switch o := int(offers[i]); o % 5 {
				case 1:
					offer(last)
				case 2:
					offer(testgen.Pair{Key: last.Key[:len(last.Key)-min(len(last.Key), 1)], Value: last.Value})
				case 3:
					offer(accepted[o/5%n])
				case 4:
					offer(testgen.Pair{Key: append(bytes.Clone(last.Key), 0), Value: last.Value})
				}
			}
			offer(pair)
		}
		ref := reference(accepted)
		if root, want := p.Hash(), stacktrie.Hash(ref.Root()); root != want {
			t.Fatalf("root %v, want %v", root, want)
		}
		checkNodes(t, ref.Nodes(), got)
	})
}

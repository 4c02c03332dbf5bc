package compat_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/ethereum/go-ethereum/trie/trienode"
	"github.com/ethereum/go-ethereum/triedb"

	"github.com/stacktrie/stacktrie/compat/internal/trietest"
	"github.com/stacktrie/stacktrie/incremental"
)

// BenchmarkIncrementalRoot times one block's root over a million random
// 32-byte keys with 32-byte values (100k with -short), for 100, 1,000 and
// 10,000 changed keys: 80% updates, 10% inserts, 10% deletions.
//
//   - impl=geth: go-ethereum's trie.Trie opened at the previous root over a
//     hash-scheme database whose nodes are on its in-memory disk, the
//     changes applied, Commit, and triedb.Update with the node set.
//   - impl=stacktrie: incremental.Root over the stored branches and the new
//     flat state, both in incremental.Tables, its writes and deletions
//     applied to the branches table (undone, untimed, after each run).
//   - impl=build: incremental.Build over the same new flat state, its
//     records copied into a reused buffer.
//
// Each reports allocs/key, the allocations per changed key.
func BenchmarkIncrementalRoot(b *testing.B) {
	base, label := incrementalBase(b)
	for _, changes := range []int{100, 1_000, 10_000} {
		b.Run(fmt.Sprintf("keys=%s/changes=%d", label, changes), func(b *testing.B) {
			blk := benchBlockOf(b, base, changes)
			runImpls(b, impl{"geth", blk.benchGeth}, impl{"stacktrie", blk.benchRoot}, impl{"build", blk.benchBuild})
		})
	}
}

// incrementalState is the state before the block, in both forms.
type incrementalState struct {
	pairs    []trietest.Pair
	root     common.Hash
	gethDB   *triedb.Database
	branches *incremental.Table
}

var (
	incrementalBase1M   = sync.OnceValues(func() (*incrementalState, error) { return newIncrementalState(random32Pairs1M()) })
	incrementalBase100K = sync.OnceValues(func() (*incrementalState, error) { return newIncrementalState(random32Pairs()) })
)

func incrementalBase(b *testing.B) (*incrementalState, string) {
	get, label := incrementalBase1M, "1M"
	if testing.Short() {
		get, label = incrementalBase100K, "100K"
	}
	base, err := get()
	if err != nil {
		b.Fatal(err)
	}
	return base, label
}

// newIncrementalState commits the pairs to go-ethereum's database and
// builds the stored branches.
func newIncrementalState(pairs []trietest.Pair) (*incrementalState, error) {
	s := &incrementalState{pairs: pairs, branches: &incremental.Table{}}
	s.gethDB = triedb.NewDatabase(rawdb.NewMemoryDatabase(), triedb.HashDefaults)
	tr := trie.NewEmpty(s.gethDB)
	for _, p := range pairs {
		if err := tr.Update(p.Key, p.Value); err != nil {
			return nil, err
		}
	}
	root, set := tr.Commit(false)
	if err := s.gethDB.Update(root, types.EmptyRootHash, 0, trienode.NewWithNodeSet(set), nil); err != nil {
		return nil, err
	}
	if err := s.gethDB.Commit(root, false); err != nil {
		return nil, err
	}
	s.root = root
	built, err := incremental.Build(pairCursor(pairs), s.branches.Write)
	if err != nil {
		return nil, err
	}
	if common.Hash(built) != root {
		return nil, fmt.Errorf("Build gives %v, go-ethereum %v", built, root)
	}
	return s, nil
}

// pairCursor returns a Table of sorted pairs.
func pairCursor(pairs []trietest.Pair) *incremental.Table {
	t := &incremental.Table{}
	for _, p := range pairs {
		t.Put(p.Key, p.Value)
	}
	return t
}

// benchBlock is one block's changes over the base state.
type benchBlock struct {
	base    *incrementalState
	changes []trietest.Pair // sorted; an empty value deletes
	changed [][]byte
	leaves  *incremental.Table // the flat state after the block
	root    common.Hash        // go-ethereum's root after the block
}

// benchBlocks keeps each block made, so that -count rounds share them.
var benchBlocks sync.Map // *incrementalState and size -> *benchBlock

type benchBlockKey struct {
	base *incrementalState
	n    int
}

func benchBlockOf(b *testing.B, base *incrementalState, n int) *benchBlock {
	if blk, ok := benchBlocks.Load(benchBlockKey{base, n}); ok {
		return blk.(*benchBlock)
	}
	blk := newBenchBlock(b, base, n)
	benchBlocks.Store(benchBlockKey{base, n}, blk)
	return blk
}

func newBenchBlock(b *testing.B, base *incrementalState, n int) *benchBlock {
	rng := rand.New(rand.NewPCG(benchSeed, uint64(n)))
	blk := &benchBlock{base: base}
	byKey := make(map[string][]byte, n)
	for len(byKey) < n {
		switch k := rng.IntN(10); {
		case k == 0: // insert
			byKey[string(trietest.RandomBytes(rng, 32))] = trietest.RandomBytes(rng, 32)
		case k == 1: // delete
			byKey[string(base.pairs[rng.IntN(len(base.pairs))].Key)] = []byte{}
		default: // update
			byKey[string(base.pairs[rng.IntN(len(base.pairs))].Key)] = trietest.RandomBytes(rng, 32)
		}
	}
	for k, v := range byKey {
		blk.changes = append(blk.changes, trietest.Pair{Key: []byte(k), Value: v})
	}
	slices.SortFunc(blk.changes, func(x, y trietest.Pair) int { return bytes.Compare(x.Key, y.Key) })
	blk.leaves = pairCursor(base.pairs)
	for _, c := range blk.changes {
		blk.changed = append(blk.changed, c.Key)
		blk.leaves.Put(c.Key, c.Value)
	}
	root, _, err := blk.gethRoot()
	if err != nil {
		b.Fatal(err)
	}
	blk.root = root
	return blk
}

// gethRoot applies the block to go-ethereum's trie at the base root and
// writes the nodes to its database.
func (blk *benchBlock) gethRoot() (common.Hash, int, error) {
	tr, err := trie.New(trie.TrieID(blk.base.root), blk.base.gethDB)
	if err != nil {
		return common.Hash{}, 0, err
	}
	for _, c := range blk.changes {
		if len(c.Value) == 0 {
			err = tr.Delete(c.Key)
		} else {
			err = tr.Update(c.Key, c.Value)
		}
		if err != nil {
			return common.Hash{}, 0, err
		}
	}
	root, set := tr.Commit(false)
	if err := blk.base.gethDB.Update(root, blk.base.root, 0, trienode.NewWithNodeSet(set), nil); err != nil {
		return common.Hash{}, 0, err
	}
	return root, len(set.Nodes), nil
}

// reportAllocsPerKey reports the allocations of the b.N runs since before
// per changed key.
func (blk *benchBlock) reportAllocsPerKey(b *testing.B, before *runtime.MemStats) {
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N)/float64(len(blk.changes)), "allocs/key")
}

func (blk *benchBlock) benchGeth(b *testing.B) {
	b.ReportAllocs()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		root, _, err := blk.gethRoot()
		if err != nil || root != blk.root {
			b.Fatalf("root %v, want %v: %v", root, blk.root, err)
		}
	}
	blk.reportAllocsPerKey(b, &before)
}

func (blk *benchBlock) benchRoot(b *testing.B) {
	branches := blk.base.branches
	var undo []trietest.Pair // the stored records the block overwrote or deleted, or nil values for new ones
	store := func(path, branch []byte) {
		branches.Write(path, branch)
	}
	record := func(path, _ []byte) {
		old, _ := branches.Get(path)
		undo = append(undo, trietest.Pair{Key: bytes.Clone(path), Value: bytes.Clone(old)})
	}
	builder := incremental.NewBuilder(incremental.HashedKeyLen)
	if _, err := builder.Root(branches, blk.leaves, blk.changed, record); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 0; i < b.N; i++ {
		root, err := builder.Root(branches, blk.leaves, blk.changed, store)
		if err != nil || common.Hash(root) != blk.root {
			b.Fatalf("root %v, want %v: %v", root, blk.root, err)
		}
		b.StopTimer()
		for _, u := range undo {
			branches.Write(u.Key, u.Value)
		}
		b.StartTimer()
	}
	blk.reportAllocsPerKey(b, &before)
	b.ReportMetric(float64(len(undo))/float64(len(blk.changes)), "writes/key")
}

func (blk *benchBlock) benchBuild(b *testing.B) {
	builder := incremental.NewBuilder(incremental.HashedKeyLen)
	var batch []byte
	store := func(path, branch []byte) { batch = append(append(batch, path...), branch...) }
	b.ReportAllocs()
	for b.Loop() {
		batch = batch[:0]
		root, err := builder.Build(blk.leaves, store)
		if err != nil || common.Hash(root) != blk.root {
			b.Fatalf("root %v, want %v: %v", root, blk.root, err)
		}
	}
}

package compat_test

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/holiman/uint256"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/compat/internal/trietest"
	"github.com/stacktrie/stacktrie/state"
)

var stateBenchLarge = flag.Bool("state.large", false,
	"BenchmarkStateRoot on 200,000 accounts and 2,000,000 slots rather than 20,000 and 200,000")

// flatStream is a state as go-ethereum's snapshot holds it, in memory:
// accounts in hashed-address order, slim RLP, each with its slots in
// hashed-key order, values in RLP; and the state root of it all.
type flatStream struct {
	accounts []streamAccount
	slots    int
	root     common.Hash
}

type streamAccount struct {
	hash  common.Hash
	slim  []byte
	slots []trietest.Pair
}

// benchStream is the state BenchmarkStateRoot hashes, made once per process:
// half of the slots in one contract, the rest spread over the other
// accounts, every stored storage root right. Its root is go-ethereum's.
var benchStream = sync.OnceValue(func() flatStream {
	accounts, slots := 20_000, 200_000
	if *stateBenchLarge {
		accounts, slots = 200_000, 2_000_000
	}
	return makeFlatStream(rand.New(rand.NewPCG(benchSeed, 14)), accounts, slots)
})

func makeFlatStream(rng *rand.Rand, accounts, slots int) flatStream {
	s := flatStream{accounts: make([]streamAccount, accounts)}
	big := accounts / 2
	for i := range s.accounts {
		n := rng.IntN(slots/accounts + 1) // about slots/2 over all the others
		if i == big {
			n = slots / 2
		}
		a := &s.accounts[i]
		a.hash = common.Hash(trietest.RandomBytes(rng, 32))
		for range n {
			value := common.TrimLeftZeroes(trietest.RandomBytes(rng, 1+rng.IntN(32)))
			enc, err := rlp.EncodeToBytes(append(value, 1)) // never zero
			if err != nil {
				panic(err)
			}
			a.slots = append(a.slots, trietest.Pair{Key: trietest.RandomBytes(rng, 32), Value: enc})
		}
		slices.SortFunc(a.slots, func(x, y trietest.Pair) int { return bytes.Compare(x.Key, y.Key) })
		a.slots = trietest.Packed(a.slots)
		s.slots += n
		var code []byte
		if n > 0 || rng.IntN(4) == 0 {
			code = trietest.RandomBytes(rng, 1+rng.IntN(100))
		}
		a.slim = types.SlimAccountRLP(types.StateAccount{
			Nonce:    rng.Uint64N(1 << 20),
			Balance:  new(uint256.Int).SetBytes(trietest.RandomBytes(rng, rng.IntN(20))),
			Root:     gethStorageRoot(a.slots),
			CodeHash: codeHash(code),
		})
	}
	slices.SortFunc(s.accounts, func(x, y streamAccount) int { return bytes.Compare(x.hash[:], y.hash[:]) })
	s.root = gethStateRoot(s)
	return s
}

func codeHash(code []byte) []byte {
	if code == nil {
		return types.EmptyCodeHash[:]
	}
	return crypto.Keccak256(code)
}

// gethStorageRoot is the root go-ethereum's trie generation gives slots: a
// new StackTrie for each storage trie.
func gethStorageRoot(slots []trietest.Pair) common.Hash {
	t := trie.NewStackTrie(nil)
	for _, sl := range slots {
		if err := t.Update(sl.Key, sl.Value); err != nil {
			panic(err)
		}
	}
	return t.Hash()
}

// gethLeaf is an account's leaf as go-ethereum's trie generation writes it:
// the snapshot's slim account made full, holding the root of its slots.
func gethLeaf(a *streamAccount) []byte {
	account, err := types.FullAccount(a.slim)
	if err != nil {
		panic(err)
	}
	account.Root = gethStorageRoot(a.slots)
	full, err := rlp.EncodeToBytes(account)
	if err != nil {
		panic(err)
	}
	return full
}

// gethStateRoot generates the tries of s on one goroutine, as go-ethereum's
// snapshot conversion feeds its StackTries: each account's storage trie,
// then the account's leaf into the account trie.
func gethStateRoot(s flatStream) common.Hash {
	t := trie.NewStackTrie(nil)
	for i := range s.accounts {
		a := &s.accounts[i]
		if err := t.Update(a.hash[:], gethLeaf(a)); err != nil {
			panic(err)
		}
	}
	return t.Hash()
}

// gethPartitionedRoot generates the tries of s as triedb.GenerateTrie does:
// 16 goroutines, one for each first nibble of the hashed address, each
// building its accounts' storage tries one after another and its slice of
// the account trie in a PartialStackTrie; then the top branch over the
// slices' roots.
func gethPartitionedRoot(s flatStream) common.Hash {
	var (
		blobs [16][]byte
		wg    sync.WaitGroup
	)
	for nibble := range byte(16) {
		first := func(a streamAccount, b int) int { return int(a.hash[0]) - b }
		lo, _ := slices.BinarySearchFunc(s.accounts, int(nibble)<<4, first)
		hi, _ := slices.BinarySearchFunc(s.accounts, int(nibble+1)<<4, first)
		wg.Go(func() {
			t := trie.NewPartialStackTrie(nibble, func(path []byte, _ common.Hash, blob []byte) {
				if len(path) == 1 {
					blobs[nibble] = bytes.Clone(blob)
				}
			})
			for i := lo; i < hi; i++ {
				a := &s.accounts[i]
				if err := t.Update(a.hash[:], gethLeaf(a)); err != nil {
					panic(err)
				}
			}
			t.Hash()
		})
	}
	wg.Wait()
	return assembleGethRoot(blobs)
}

// assembleGethRoot mounts the partitions' root nodes as GenerateTrie does,
// with go-ethereum's own helpers.
func assembleGethRoot(blobs [16][]byte) common.Hash {
	var children [17][]byte
	populated, last := 0, 0
	for i, blob := range blobs {
		if blob != nil {
			children[i] = crypto.Keccak256(blob)
			populated, last = populated+1, i
		}
	}
	switch populated {
	case 0:
		return types.EmptyRootHash
	case 1:
		root, _, _, err := trie.MountPartitionRoot(blobs[last], byte(last))
		if err != nil {
			panic(err)
		}
		return root
	}
	_, root, err := trie.AssembleBranch(children)
	if err != nil {
		panic(err)
	}
	return root
}

// BenchmarkStateRoot hashes a whole state fed from memory, so that only
// hashing is timed, no database: go-ethereum's trie generation on one
// goroutine (impl=geth) and on 16 partitions as triedb.GenerateTrie runs
// it (impl=geth-partitioned), against a reused state.Builder fed the stream
// on one worker (impl=stacktrie) and on two (impl=parallel), and given it
// all at once with HashAll on two (impl=hashall). Every run must give
// go-ethereum's root. -state.large makes the state ten times larger.
func BenchmarkStateRoot(b *testing.B) {
	s := benchStream()
	keys := len(s.accounts) + s.slots
	timed := func(name string, root func() common.Hash) impl {
		return impl{name, func(b *testing.B) {
			b.ReportAllocs()
			root() // warm up: a reused Builder allocates nothing after its first stream
			cpu := processCPU()
			for b.Loop() {
				if got := root(); got != s.root {
					b.Fatalf("state root %s, want go-ethereum's %s", got, s.root)
				}
			}
			b.ReportMetric(float64(keys*b.N)/b.Elapsed().Seconds(), "keys/s")
			b.ReportMetric((processCPU()-cpu).Seconds()/float64(b.N), "cpu-s/op")
		}}
	}
	impls := []impl{
		timed("geth", func() common.Hash { return gethStateRoot(s) }),
		timed("geth-partitioned", func() common.Hash { return gethPartitionedRoot(s) }),
	}
	for _, w := range []struct {
		impl    string
		workers int
	}{{"stacktrie", 1}, {"parallel", 2}} {
		builder := state.NewBuilder(state.Options{Workers: w.workers})
		defer builder.Close()
		impls = append(impls, timed(w.impl, func() common.Hash {
			root, err := builderStateRoot(builder, s)
			if err != nil {
				b.Fatal(err)
			}
			return root
		}))
	}
	flat := s.inMemory()
	builder := state.NewBuilder(state.Options{Workers: 2})
	defer builder.Close()
	impls = append(impls, timed("hashall", func() common.Hash {
		root, err := builderHashAll(builder, flat)
		if err != nil {
			b.Fatal(err)
		}
		return root
	}))
	runImpls(b, impls...)
}

// processCPU is the CPU time the process has used, on every thread: on a
// shared machine it moves less than the time on the clock, and it shows
// what a second worker costs.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// builderStateRoot feeds s to a reused Builder; every stored storage root
// must be the one it computes.
func builderStateRoot(builder *state.Builder, s flatStream) (common.Hash, error) {
	builder.Reset()
	for i := range s.accounts {
		a := &s.accounts[i]
		if err := builder.AddAccount(stacktrie.Hash(a.hash), a.slim); err != nil {
			return common.Hash{}, err
		}
		for _, sl := range a.slots {
			if err := builder.AddSlot(stacktrie.Hash(sl.Key), sl.Value); err != nil {
				return common.Hash{}, err
			}
		}
	}
	return checkedRoot(builder.Finish())
}

// builderHashAll gives the state to a reused Builder's HashAll; every
// stored storage root must be the one it computes.
func builderHashAll(builder *state.Builder, accounts []state.FlatAccount) (common.Hash, error) {
	builder.Reset()
	res, err := builder.HashAll(accounts)
	if err != nil {
		return common.Hash{}, err
	}
	return checkedRoot(res)
}

func checkedRoot(res state.Result) (common.Hash, error) {
	if res.Mismatches != 0 {
		return common.Hash{}, fmt.Errorf("%d storage roots differ from go-ethereum's", res.Mismatches)
	}
	return common.Hash(res.Root), nil
}

// inMemory is the state as HashAll takes it, reading its keys and values
// where they are.
func (s flatStream) inMemory() []state.FlatAccount {
	accounts := make([]state.FlatAccount, len(s.accounts))
	for i := range s.accounts {
		a := &s.accounts[i]
		accounts[i] = state.FlatAccount{Hash: stacktrie.Hash(a.hash), RLP: a.slim, Slots: make([]state.FlatSlot, len(a.slots))}
		for k, sl := range a.slots {
			accounts[i].Slots[k] = state.FlatSlot{Hash: stacktrie.Hash(sl.Key), Value: sl.Value}
		}
	}
	return accounts
}

// TestStateRootBenchmarkAgrees checks the benchmark's ways on small states,
// one of a single partition and an empty one among them: they must give
// go-ethereum's root, or the benchmark would time nothing worth comparing.
func TestStateRootBenchmarkAgrees(t *testing.T) {
	for _, size := range []struct{ accounts, slots int }{{300, 3000}, {1, 10}, {0, 0}} {
		s := makeFlatStream(rand.New(rand.NewPCG(benchSeed, uint64(size.accounts))), size.accounts, size.slots)
		assert.Equal(t, s.root, gethPartitionedRoot(s), "%d accounts, partitioned", size.accounts)
		for _, workers := range []int{1, 2} {
			builder := state.NewBuilder(state.Options{Workers: workers})
			root, err := builderStateRoot(builder, s)
			require.NoError(t, err)
			assert.Equal(t, s.root, root, "%d accounts, %d workers", size.accounts, workers)
			root, err = builderHashAll(builder, s.inMemory())
			require.NoError(t, err)
			assert.Equal(t, s.root, root, "%d accounts, %d workers, HashAll", size.accounts, workers)
			builder.Close()
		}
	}
}

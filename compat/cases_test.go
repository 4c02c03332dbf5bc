package compat_test

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"testing"

	"github.com/stacktrie/stacktrie/compat/internal/trietest"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

// caseRand returns the random source of one named case. Its seed comes from
// testgen.Seed: -seed or $STACKTRIE_SEED, or else a random one, which the
// test output shows with the command that reruns the case when it fails.
// Each case draws from its own stream, so a case reruns alike on its own or
// with the others.
func caseRand(t testing.TB, name string) *rand.Rand {
	t.Helper()
	seed := testgen.Seed(t)
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// keySetCase names a shape of key set and makes one at random.
type keySetCase struct {
	name  string
	pairs func(rng *rand.Rand) []trietest.Pair
}

// keySetCases lists the shapes the differential tests cover. short scales
// down the largest sets.
func keySetCases(short bool) []keySetCase {
	scale := func(full, reduced int) int {
		if short {
			return reduced
		}
		return full
	}
	var cases []keySetCase
	add := func(name string, pairs func(rng *rand.Rand) []trietest.Pair) {
		cases = append(cases, keySetCase{name: name, pairs: pairs})
	}

	add("empty", func(*rand.Rand) []trietest.Pair { return nil })
	for _, n := range []int{1, 2, 3, 16, 17, 100, 1000, scale(5000, 1000)} {
		add(fmt.Sprintf("random32/n=%d", n), func(rng *rand.Rand) []trietest.Pair {
			return trietest.RandomKeys(rng, n, 32, 32, nil, trietest.ValuesBetween(1, 100))
		})
	}
	add("random32/values=32", func(rng *rand.Rand) []trietest.Pair {
		return trietest.RandomKeys(rng, scale(2000, 500), 32, 32, nil, trietest.ValuesOfLen(32))
	})
	for _, stride := range []uint64{1, 16, 256, 1024, 65536} {
		for _, n := range []int{1, 17, 256, scale(4097, 1000)} {
			add(fmt.Sprintf("sequential/stride=%d/n=%d", stride, n), func(rng *rand.Rand) []trietest.Pair {
				return trietest.Sequential(rng, n, 0, stride, trietest.ValuesBetween(1, 40))
			})
		}
		add(fmt.Sprintf("sequential/stride=%d/offset", stride), func(rng *rand.Rand) []trietest.Pair {
			return trietest.Sequential(rng, 300, rng.Uint64N(1<<40), stride, trietest.ValuesBetween(1, 40))
		})
	}
	add("sequential/insert100k-shape", func(rng *rand.Rand) []trietest.Pair {
		return trietest.Sequential(rng, scale(20000, 5000), 0, 1024, trietest.ZeroValues(20))
	})
	for _, n := range []int{1, 2, 127, 128, 129, 255, 256, 1000} {
		add(fmt.Sprintf("derivesha/n=%d", n), func(rng *rand.Rand) []trietest.Pair {
			return trietest.DeriveShaPairs(trietest.RandomItems(rng, n, 1, 400))
		})
	}
	for _, keyLen := range []int{1, 2, 3} {
		for _, n := range []int{5, 50, 300} {
			add(fmt.Sprintf("short/keylen=%d/n=%d", keyLen, n), func(rng *rand.Rand) []trietest.Pair {
				return trietest.RandomKeys(rng, n, keyLen, keyLen, nil, trietest.ValuesBetween(1, 4))
			})
		}
	}
	for _, n := range []int{50, 300} {
		add(fmt.Sprintf("short/keylen=1-3/n=%d", n), func(rng *rand.Rand) []trietest.Pair {
			return trietest.RandomKeys(rng, n, 1, 3, nil, trietest.ValuesBetween(1, 4))
		})
	}
	for _, valueLen := range []int{1, 2, 30, 31, 32, 33, 54, 55, 56, 57, 134, 135, 136, 137, 138} {
		add(fmt.Sprintf("values/len=%d/keylen=1", valueLen), func(rng *rand.Rand) []trietest.Pair {
			return trietest.RandomKeys(rng, 24, 1, 1, nil, trietest.ValuesOfLen(valueLen))
		})
		add(fmt.Sprintf("values/len=%d/keylen=2", valueLen), func(rng *rand.Rand) []trietest.Pair {
			return trietest.RandomKeys(rng, 60, 2, 2, []byte{0x00, 0x01, 0x10, 0x12, 0x21, 0xf0}, trietest.ValuesOfLen(valueLen))
		})
		add(fmt.Sprintf("values/len=%d/keylen=32", valueLen), func(rng *rand.Rand) []trietest.Pair {
			return trietest.RandomKeys(rng, 40, 32, 32, nil, trietest.ValuesOfLen(valueLen))
		})
	}
	add("values/single-byte", func(rng *rand.Rand) []trietest.Pair {
		singles := []byte{0x00, 0x01, 0x7f, 0x80, 0x81, 0xff}
		return trietest.RandomKeys(rng, 50, 2, 2, nil, func(rng *rand.Rand, _ int) []byte {
			return []byte{singles[rng.IntN(len(singles))]}
		})
	})
	add("values/10KB", func(rng *rand.Rand) []trietest.Pair {
		return trietest.RandomKeys(rng, 20, 32, 32, nil, trietest.ValuesOfLen(10<<10))
	})
	add("values/70000B", func(rng *rand.Rand) []trietest.Pair {
		return trietest.RandomKeys(rng, 3, 1, 1, nil, trietest.ValuesOfLen(70000))
	})
	add("extension/prefix=20", func(rng *rand.Rand) []trietest.Pair {
		return trietest.SharedPrefixKeys(rng, 100, 20, 32, trietest.ValuesBetween(1, 64))
	})
	add("extension/prefix=31", func(rng *rand.Rand) []trietest.Pair {
		return trietest.SharedPrefixKeys(rng, 50, 31, 32, trietest.ValuesBetween(1, 64))
	})
	add("keylen=1-64", func(rng *rand.Rand) []trietest.Pair {
		return trietest.RandomKeys(rng, 300, 1, 64, nil, trietest.ValuesBetween(1, 64))
	})
	for _, n := range []int{20, 200} {
		add(fmt.Sprintf("prefixes/random/n=%d", n), func(rng *rand.Rand) []trietest.Pair {
			return trietest.RandomKeys(rng, n, 0, 4, []byte{0x00, 0x01, 0x10, 0x11, 0xff}, trietest.ValuesBetween(1, 40))
		})
	}
	add("prefixes/chain", func(rng *rand.Rand) []trietest.Pair {
		return fixedKeys(rng, "", "a", "ab", "abc", "abcd", "abcde")
	})
	add("prefixes/siblings", func(rng *rand.Rand) []trietest.Pair {
		return fixedKeys(rng, "\x12", "\x12\x34", "\x12\x35", "\x13", "\x13\x00\x00", "\x13\x00\x01")
	})
	add("emptykey/alone", func(rng *rand.Rand) []trietest.Pair {
		return fixedKeys(rng, "")
	})
	add("emptykey/and-one", func(rng *rand.Rand) []trietest.Pair {
		return fixedKeys(rng, "", "\x00")
	})
	return cases
}

// fixedKeys pairs the given keys with random values of 1 to 40 bytes.
func fixedKeys(rng *rand.Rand, keys ...string) []trietest.Pair {
	values := trietest.ValuesBetween(1, 40)
	pairs := make([]trietest.Pair, len(keys))
	for i, k := range keys {
		pairs[i] = trietest.Pair{Key: []byte(k), Value: values(rng, i)}
	}
	return trietest.Normalize(pairs)
}

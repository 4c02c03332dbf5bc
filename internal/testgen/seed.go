package testgen

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// SeedEnv is the environment variable Seed reads when the -seed flag is not
// given.
const SeedEnv = "STACKTRIE_SEED"

// seedFlag is the -seed flag of every test binary that imports testgen.
var seedFlag seedValue

func init() {
	flag.Var(&seedFlag, "seed", "seed of the random inputs of tests that call testgen.Seed "+
		"(a uint64, decimal or 0x-hex); if unset, $"+SeedEnv+"; if that is unset too, a random seed per test")
}

// seedValue is a uint64 flag that knows whether it was given.
type seedValue struct {
	value uint64
	set   bool
}

func (s *seedValue) String() string {
	if s == nil || !s.set {
		return ""
	}
	return strconv.FormatUint(s.value, 10)
}

func (s *seedValue) Set(text string) error {
	v, err := strconv.ParseUint(text, 0, 64)
	if err != nil {
		return err
	}
	s.value, s.set = v, true
	return nil
}

// Seed returns the seed of a test's random source: the -seed flag if given,
// else $STACKTRIE_SEED if set, else a new random seed. If the test fails,
// it logs the seed and how to replay the test with it:
//
//	go test -run '^TestName$' -seed=12345
//	STACKTRIE_SEED=12345 go test -run '^TestName$'
//
// (in the test's package directory; with several packages, or go test's
// package list mode, the environment variable reaches every test binary,
// while -seed must be defined by each, so only use it with packages whose
// tests import testgen). A malformed $STACKTRIE_SEED fails the test.
func Seed(t testing.TB) uint64 {
	t.Helper()
	seed, err := seedOf(&seedFlag, os.Getenv(SeedEnv))
	if err != nil {
		t.Fatalf("testgen.Seed: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("seed %d; replay: %s", seed, ReplayCommand(t.Name(), seed))
		}
	})
	return seed
}

// seedOf picks the seed: the flag if set, else the environment value if
// not empty, else a random one.
func seedOf(flagged *seedValue, env string) (uint64, error) {
	if flagged.set {
		return flagged.value, nil
	}
	if env = strings.TrimSpace(env); env != "" {
		seed, err := strconv.ParseUint(env, 0, 64)
		if err != nil {
			return 0, fmt.Errorf("%s=%q is not a uint64: %w", SeedEnv, env, err)
		}
		return seed, nil
	}
	return rand.Uint64(), nil
}

// ReplayCommand returns the go test command line that runs the test of the
// given name (as testing.T.Name gives it, subtests included) alone with seed.
func ReplayCommand(testName string, seed uint64) string {
	parts := strings.Split(testName, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return fmt.Sprintf("go test -run '%s' -seed=%d (or %s=%d)", strings.Join(parts, "/"), seed, SeedEnv, seed)
}

package testgen

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSeedOf(t *testing.T) {
	tests := []struct {
		name    string
		flag    seedValue
		env     string
		want    uint64
		wantErr bool
	}{
		{"flag", seedValue{value: 42, set: true}, "", 42, false},
		{"flag set to zero", seedValue{value: 0, set: true}, "7", 0, false},
		{"flag before environment", seedValue{value: 42, set: true}, "7", 42, false},
		{"environment", seedValue{}, "7", 7, false},
		{"environment in hex", seedValue{}, "0xff", 255, false},
		{"environment with spaces", seedValue{}, " 18446744073709551615\n", 1<<64 - 1, false},
		{"environment not a number", seedValue{}, "seven", 0, true},
		{"environment negative", seedValue{}, "-1", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := seedOf(&tt.flag, tt.env)
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	t.Run("random", func(t *testing.T) {
		seen := make(map[uint64]bool)
		for range 4 {
			got, err := seedOf(&seedValue{}, "")
			require.NoError(t, err)
			seen[got] = true
		}
		assert.Greater(t, len(seen), 1, "unset, each call draws a seed of its own")
	})
}

func TestSeedFlagValue(t *testing.T) {
	var v seedValue
	assert.Equal(t, "", v.String(), "unset")
	require.NoError(t, v.Set("12345"))
	assert.Equal(t, seedValue{value: 12345, set: true}, v)
	assert.Equal(t, "12345", v.String())
	assert.Error(t, v.Set("x"))
}

// fakeTB records what Seed asks of a test, and fails or not as told.
type fakeTB struct {
	testing.TB
	name     string
	failed   bool
	cleanups []func()
	logs     []string
}

func (f *fakeTB) Helper()                 {}
func (f *fakeTB) Name() string            { return f.name }
func (f *fakeTB) Failed() bool            { return f.failed }
func (f *fakeTB) Cleanup(fn func())       { f.cleanups = append(f.cleanups, fn) }
func (f *fakeTB) Logf(s string, a ...any) { f.logs = append(f.logs, fmt.Sprintf(s, a...)) }
func (f *fakeTB) Fatalf(s string, a ...any) {
	f.failed = true
	f.logs = append(f.logs, fmt.Sprintf(s, a...))
}

func (f *fakeTB) cleanUp() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}

func TestSeedLogsReplayOnFailure(t *testing.T) {
	t.Setenv(SeedEnv, "99")
	for _, failed := range []bool{false, true} {
		tb := &fakeTB{TB: t, name: "TestX/case_1"}
		assert.Equal(t, uint64(99), Seed(tb))
		tb.failed = failed
		tb.cleanUp()
		if !failed {
			assert.Empty(t, tb.logs, "a passing test logs nothing")
			continue
		}
		require.Len(t, tb.logs, 1)
		assert.Contains(t, tb.logs[0], "seed 99; replay")
		assert.Contains(t, tb.logs[0], "go test -run '^TestX$/^case_1$' -seed=99")
		assert.Contains(t, tb.logs[0], SeedEnv+"=99")
	}
}

func TestSeedBadEnvironmentFails(t *testing.T) {
	t.Setenv(SeedEnv, "not a seed")
	tb := &fakeTB{TB: t, name: "TestX"}
	Seed(tb)
	assert.True(t, tb.failed)
	require.NotEmpty(t, tb.logs)
	assert.Contains(t, tb.logs[0], SeedEnv)
}

func TestReplayCommandMatchesOnlyTheTest(t *testing.T) {
	cmd := ReplayCommand("TestRoots/values/len=1/keylen=1+x", 5)
	m := regexp.MustCompile(`-run '([^']*)'`).FindStringSubmatch(cmd)
	require.Len(t, m, 2, cmd)
	// go test splits the pattern and the name at slashes and matches level
	// by level.
	levels := regexp.MustCompile(`/`).Split(m[1], -1)
	name := []string{"TestRoots", "values", "len=1", "keylen=1+x"}
	require.Len(t, levels, len(name))
	for i, level := range levels {
		re := regexp.MustCompile(level)
		assert.True(t, re.MatchString(name[i]), "level %d: %s", i, level)
		assert.False(t, re.MatchString(name[i]+"0"), "level %d: %s matches a longer name", i, level)
	}
	assert.Contains(t, cmd, "-seed=5")
}

package stacktrie

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/cloudflare/circl/simd/keccakf1600"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/cpu"
)

// hashingPath names the way New hashes nodes on this machine and build.
func hashingPath() string {
	if l := newLanes(); l != nil {
		return l.name
	}
	return "scalar"
}

// TestHashingPath checks that New takes the widest hashing path this build
// and CPU allow, as golang.org/x/sys/cpu sees the CPU (GODEBUG=cpu.avx512f=off
// hides AVX-512 from it, and so selects the AVX2 path). When
// STACKTRIE_PATHS_LOG names a file, it appends the path taken there, for
// make test's closing summary of which paths ran.
func TestHashingPath(t *testing.T) {
	want := "scalar"
	switch {
	case purego:
	case runtime.GOARCH == "amd64" && cpu.X86.HasAVX512F:
		want = "avx512x8"
	case runtime.GOARCH == "amd64" && cpu.X86.HasAVX2:
		want = "avx2x8"
	case runtime.GOARCH == "arm64" && keccakf1600.IsEnabledX2():
		// circl turns its two NEON lanes on for darwin/arm64 only.
		want = "neonx2"
	}
	got := hashingPath()
	assert.Equal(t, want, got)
	t.Logf("hashing path: %s on %s", got, runtime.GOARCH)

	log := os.Getenv("STACKTRIE_PATHS_LOG")
	if log == "" {
		return
	}
	how := runtime.GOARCH
	if purego {
		how += " -tags purego"
	}
	if strings.Contains(os.Getenv("GODEBUG"), "cpu.avx512f=off") {
		how += " GODEBUG=cpu.avx512f=off"
	}
	if runner := os.Getenv("STACKTRIE_RUNNER"); runner != "" {
		how += " under " + runner // the emulator make cross runs this binary in
	}
	f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	require.NoError(t, err)
	defer f.Close()
	_, err = fmt.Fprintf(f, "%s\t%s\n", got, how)
	require.NoError(t, err)
}

//go:build amd64 && !purego

package stacktrie

import "testing"

// The AVX-512 lanes against x/crypto, where the machine has AVX-512.
func TestLanesX8(t *testing.T) {
	l := newLanesX8()
	if l == nil {
		t.Skip("no AVX-512 on this machine")
	}
	checkEveryLength(t, l)
	checkMixedBatches(t, newLanesX8())
}

// BenchmarkPermutation times one multi-way permutation; ns/lane-block is
// the cost of absorbing one block in one lane.
func BenchmarkPermutation(b *testing.B) {
	run := func(b *testing.B, l *lanes) {
		if l == nil {
			b.Skip("not on this machine")
		}
		for b.Loop() {
			l.permute()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*l.n), "ns/lane-block")
	}
	b.Run("lanes=4", func(b *testing.B) { run(b, testLanes()) })
	b.Run("lanes=8", func(b *testing.B) { run(b, newLanesX8()) })
}

//go:build amd64 && !purego

package stacktrie

import "testing"

// The AVX2 lanes against x/crypto, where the machine has AVX2.
func TestLanesX4(t *testing.T) {
	if newLanesX4() == nil {
		t.Skip("no AVX2 on this machine: amd64 hashes one node at a time there")
	}
	checkEveryLength(t, newLanesX4())
	checkMixedBatches(t, newLanesX4())
}

// Package balances draws the account balances of the states gencli and
// gethdb write, so that both generators cover the same widths of uint256.
package balances

import (
	"math/rand/v2"

	"github.com/holiman/uint256"
)

// Of is the i-th account's balance: above 2^64 for one account in four,
// zero for one in four, small otherwise.
func Of(rng *rand.Rand, i int) *uint256.Int {
	switch i % 4 {
	case 0:
		b := new(uint256.Int).Lsh(uint256.NewInt(1), 64+uint(rng.IntN(64)))
		return b.Add(b, uint256.NewInt(rng.Uint64()))
	case 3:
		return new(uint256.Int)
	default:
		return uint256.NewInt(rng.Uint64N(1e18))
	}
}

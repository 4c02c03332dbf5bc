package main

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/stacktrie/stacktrie/compat/internal/gencli/balances"
)

// stateSpec is what the flags ask for.
type stateSpec struct {
	accounts, slots int
	bigShare        float64
	seed            uint64
	scheme          string
	blockItems      int
	compact         bool
}

func (s *stateSpec) check() error {
	switch {
	case s.accounts < 1:
		return errors.New("-accounts must be at least 1")
	case s.slots < 0:
		return errors.New("-slots must not be negative")
	case s.bigShare < 0 || s.bigShare > 1:
		return errors.New("-big must be between 0 and 1")
	case s.blockItems < 1:
		return errors.New("-block must be at least 1")
	case s.scheme != "path" && s.scheme != "hash":
		return errors.New("-scheme must be path or hash")
	}
	return nil
}

// accountPlan is one account to write: the first account is the largest
// contract, and one account in eight is a contract with code and storage.
type accountPlan struct {
	address common.Address
	balance *uint256.Int
	nonce   uint64
	code    []byte
	slots   int        // storage slots to write
	written int        // storage slots written so far
	rng     *rand.Rand // draws its slots, in order, whatever the blocks
}

// plan draws the accounts and shares the slots among the contracts: the
// largest takes bigShare of them, the others a log-normal share each, so
// that their sizes spread over orders of magnitude.
func (s *stateSpec) plan() []*accountPlan {
	rng := rand.New(rand.NewPCG(s.seed, 0x67657468))
	accounts := make([]*accountPlan, s.accounts)
	var contracts []*accountPlan
	for i := range accounts {
		a := &accountPlan{rng: rand.New(rand.NewPCG(s.seed, uint64(i)+1))}
		fill(rng, a.address[:])
		a.balance, a.nonce = balances.Of(rng, i), uint64(i%5)
		if a.balance.IsZero() && a.nonce == 0 {
			a.nonce = 1 // an empty account would be deleted
		}
		if i%8 == 0 {
			a.code = make([]byte, 1+rng.IntN(300))
			fill(rng, a.code)
			contracts = append(contracts, a)
		}
		accounts[i] = a
	}
	big := int(math.Round(s.bigShare * float64(s.slots)))
	if len(contracts) == 1 {
		big = s.slots
	}
	contracts[0].slots = big
	shareOut(rng, contracts[1:], s.slots-big)
	return accounts
}

// shareOut gives the contracts total slots in log-normal shares.
func shareOut(rng *rand.Rand, contracts []*accountPlan, total int) {
	if len(contracts) == 0 {
		return
	}
	weights := make([]float64, len(contracts))
	var sum float64
	for i := range weights {
		weights[i] = math.Exp(1.5 * rng.NormFloat64())
		sum += weights[i]
	}
	given := 0
	for i, c := range contracts {
		c.slots = int(float64(total) * weights[i] / sum)
		given += c.slots
	}
	contracts[len(contracts)-1].slots += total - given
}

// nextSlot draws the account's next storage slot: a small index, as a
// contract's first variables have, or a hash, as a mapping's entries have,
// and a value of 1 to 32 bytes that is never zero.
func (a *accountPlan) nextSlot() (key, value common.Hash) {
	if a.written%2 == 0 {
		key = common.BigToHash(big.NewInt(int64(a.written)))
	} else {
		fill(a.rng, key[:])
	}
	n := 1 + a.rng.IntN(32)
	fill(a.rng, value[32-n:])
	value[31] |= 1
	a.written++
	return key, value
}

// fill fills b with random bytes.
func fill(rng *rand.Rand, b []byte) {
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
}

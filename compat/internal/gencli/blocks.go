package main

import (
	"encoding/binary"
	"math/big"
	"math/rand/v2"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/stacktrie/stacktrie/compat/internal/trietest"
)

// blockSpec describes a sample block of one fork. The numbers are chosen to
// reach RLP's edge cases in the header: a zero, single bytes below and at
// 0x80, the largest extra data and a base fee above 2^64.
type blockSpec struct {
	name        string // the sample's file name stem
	fork        string
	number      uint64
	txs         int
	kinds       []txKind
	withdrawals int // -1: none, before Shanghai
	baseFee     *big.Int
	extra       []byte
	gasUsed     uint64
	// requests counts the deposits, withdrawal requests and consolidations
	// of a Prague block.
	requests [3]int
}

var blockSpecs = []blockSpec{
	{name: "paris", fork: "paris", number: 15_537_394, txs: 5, kinds: londonTxKinds, withdrawals: -1,
		baseFee: big.NewInt(7), extra: nil, gasUsed: 0},
	{name: "shanghai", fork: "shanghai", number: 17_034_870, txs: 10, kinds: londonTxKinds, withdrawals: 16,
		baseFee: big.NewInt(1_000_000_007), extra: []byte("extra data of the largest size:."), gasUsed: 12_345_678},
	{name: "cancun", fork: "cancun", number: 19_426_587, txs: 130, kinds: cancunTxKinds, withdrawals: 0,
		baseFee: new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), 64), big.NewInt(5)), extra: []byte("stacktrie"), gasUsed: 29_999_999},
	{name: "prague", fork: "prague", number: 22_431_084, txs: 8, kinds: allTxKinds, withdrawals: 3,
		baseFee: big.NewInt(0x80), extra: []byte{0x7f}, gasUsed: 1_000_000, requests: [3]int{2, 1, 1}},
	{name: "prague-sparse", fork: "prague", number: 22_431_085, txs: 2, kinds: allTxKinds, withdrawals: 1,
		baseFee: big.NewInt(0x81), extra: []byte{0x80}, gasUsed: 21_000, requests: [3]int{0, 0, 1}},
}

// sampleBlock is a built block with what the consensus layer holds beside it.
type sampleBlock struct {
	spec  blockSpec
	block *types.Block
	// beaconParent is the root of the parent beacon block: the block's
	// parent beacon root from Cancun on, and a beacon-API field before.
	beaconParent common.Hash
	// requests are the execution requests of a Prague block, each its type
	// byte and data, with the empty lists left out as the engine API does.
	requests [][]byte
	// deposits, withdrawalRequests and consolidations are the requests one
	// by one, as the beacon API lists them.
	deposits           []depositRequest
	withdrawalRequests []withdrawalRequest
	consolidations     []consolidationRequest
}

func (s blockSpec) isCancun() bool { return s.fork == "cancun" || s.fork == "prague" }
func (s blockSpec) isPrague() bool { return s.fork == "prague" }

// build makes the block: go-ethereum computes the transactions and
// withdrawals roots, the requests hash and the block hash. Fields the tool
// copies without checking (state and receipts roots, bloom) are random.
func (s blockSpec) build(seed uint64) (*sampleBlock, error) {
	rng := rand.New(rand.NewPCG(seed, 3))
	random := func(n int) []byte { return trietest.RandomBytes(rng, n) }
	txs, err := newTxMaker(seed).transactions(s.txs, s.kinds)
	if err != nil {
		return nil, err
	}
	sb := &sampleBlock{spec: s, beaconParent: common.BytesToHash(random(32))}
	header := &types.Header{
		ParentHash:  common.BytesToHash(random(32)),
		UncleHash:   types.EmptyUncleHash,
		Coinbase:    common.BytesToAddress(random(20)),
		Root:        common.BytesToHash(random(32)),
		TxHash:      types.DeriveSha(types.Transactions(txs), trie.NewStackTrie(nil)),
		ReceiptHash: common.BytesToHash(random(32)),
		Bloom:       types.BytesToBloom(random(types.BloomByteLength)),
		Difficulty:  new(big.Int),
		Number:      new(big.Int).SetUint64(s.number),
		GasLimit:    36_000_000,
		GasUsed:     s.gasUsed,
		Time:        1_663_224_179 + 12*(s.number-15_537_394),
		Extra:       s.extra,
		MixDigest:   common.BytesToHash(random(32)),
		BaseFee:     s.baseFee,
	}
	body := types.Body{Transactions: txs}
	if s.withdrawals >= 0 {
		body.Withdrawals = make([]*types.Withdrawal, s.withdrawals)
		for i := range body.Withdrawals {
			body.Withdrawals[i] = &types.Withdrawal{
				Index:     90_000_000 + uint64(i),
				Validator: rng.Uint64N(2_000_000),
				Address:   common.BytesToAddress(random(20)),
				Amount:    rng.Uint64N(40e9) * uint64(i%3), // zero now and then
			}
		}
		hash := types.DeriveSha(types.Withdrawals(body.Withdrawals), trie.NewStackTrie(nil))
		header.WithdrawalsHash = &hash
	}
	if s.isCancun() {
		blobs := uint64(0)
		for _, tx := range txs {
			blobs += uint64(len(tx.BlobHashes()))
		}
		blobGasUsed, excess := blobs*131_072, uint64(rng.Uint32())
		header.BlobGasUsed, header.ExcessBlobGas = &blobGasUsed, &excess
		header.ParentBeaconRoot = &sb.beaconParent
	}
	if s.isPrague() {
		if err := sb.addRequests(rng); err != nil {
			return nil, err
		}
		hash := types.CalcRequestsHash(sb.requests)
		header.RequestsHash = &hash
	}
	sb.block = types.NewBlockWithHeader(header).WithBody(body)
	return sb, nil
}

// depositRequest is an EIP-6110 deposit as the beacon API lists it.
type depositRequest struct {
	pubkey      [48]byte
	credentials [32]byte
	amount      uint64
	signature   [96]byte
	index       uint64
}

// withdrawalRequest is an EIP-7002 withdrawal request.
type withdrawalRequest struct {
	source common.Address
	pubkey [48]byte
	amount uint64
}

// consolidationRequest is an EIP-7251 consolidation request.
type consolidationRequest struct {
	source       common.Address
	sourcePubkey [48]byte
	targetPubkey [48]byte
}

// addRequests makes the requests the spec counts, each list led by its
// type byte; an empty list is left out, as the engine API leaves it out and
// the requests hash skips it. The deposits' bytes are what go-ethereum
// decodes from the deposit contract's log.
func (sb *sampleBlock) addRequests(rng *rand.Rand) error {
	random := func(b []byte) { copy(b, trietest.RandomBytes(rng, len(b))) }
	deposits := []byte{0x00}
	for i := range sb.spec.requests[0] {
		d := depositRequest{amount: 32e9 + uint64(i), index: 1_900_000 + uint64(i)}
		random(d.pubkey[:])
		random(d.credentials[:])
		random(d.signature[:])
		data, err := types.DepositLogToRequest(depositLogData(d))
		if err != nil {
			return err
		}
		deposits = append(deposits, data...)
		sb.deposits = append(sb.deposits, d)
	}
	withdrawals := []byte{0x01}
	for i := range sb.spec.requests[1] {
		w := withdrawalRequest{source: common.BytesToAddress(trietest.RandomBytes(rng, 20)), amount: uint64(i) * 1e9}
		random(w.pubkey[:])
		sb.withdrawalRequests = append(sb.withdrawalRequests, w)
		withdrawals = append(withdrawals, w.source[:]...)
		withdrawals = append(withdrawals, w.pubkey[:]...)
		withdrawals = binary.LittleEndian.AppendUint64(withdrawals, w.amount)
	}
	consolidations := []byte{0x02}
	for range sb.spec.requests[2] {
		c := consolidationRequest{source: common.BytesToAddress(trietest.RandomBytes(rng, 20))}
		random(c.sourcePubkey[:])
		random(c.targetPubkey[:])
		sb.consolidations = append(sb.consolidations, c)
		consolidations = append(consolidations, c.source[:]...)
		consolidations = append(consolidations, c.sourcePubkey[:]...)
		consolidations = append(consolidations, c.targetPubkey[:]...)
	}
	sb.requests = [][]byte{}
	for _, list := range [][]byte{deposits, withdrawals, consolidations} {
		if len(list) > 1 {
			sb.requests = append(sb.requests, list)
		}
	}
	return nil
}

// depositLogData is the data of the deposit contract's DepositEvent for d:
// five dynamic byte strings, ABI-encoded, with the amount and the index in
// little-endian order as the contract writes them.
func depositLogData(d depositRequest) []byte {
	fields := [][]byte{
		d.pubkey[:],
		d.credentials[:],
		binary.LittleEndian.AppendUint64(nil, d.amount),
		d.signature[:],
		binary.LittleEndian.AppendUint64(nil, d.index),
	}
	word := func(v int) []byte { return common.LeftPadBytes(big.NewInt(int64(v)).Bytes(), 32) }
	var head, tail []byte
	for _, f := range fields {
		head = append(head, word(32*len(fields)+len(tail))...)
		padded := make([]byte, (len(f)+31)/32*32)
		copy(padded, f)
		tail = append(append(tail, word(len(f))...), padded...)
	}
	return append(head, tail...)
}

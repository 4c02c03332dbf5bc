package compat_test

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie/compat/internal/trietest"
)

// The account that signs every test transaction and authorization, and the
// chain it signs for. A fixed key keeps the benchmark input the same from
// run to run.
var (
	testKey, _  = crypto.ToECDSA(crypto.Keccak256([]byte("stacktrie compat test key")))
	testChainID = big.NewInt(1337)
	testSigner  = types.LatestSignerForChainID(testChainID)
)

// txTypes are the transaction types the tests sign, one of each kind
// go-ethereum knows.
var txTypes = []byte{
	types.LegacyTxType,
	types.AccessListTxType,
	types.DynamicFeeTxType,
	types.BlobTxType,
	types.SetCodeTxType,
}

// signedTxs returns n transactions of the given type with consecutive
// nonces, random recipients, amounts and call data, signed by testKey.
func signedTxs(t testing.TB, rng *rand.Rand, txType byte, n int) types.Transactions {
	t.Helper()
	txs := make(types.Transactions, n)
	for i := range txs {
		tx, err := types.SignNewTx(testKey, testSigner, txData(t, rng, txType, uint64(i)))
		require.NoError(t, err, "signing a transaction of type %d", txType)
		txs[i] = tx
	}
	return txs
}

// txData makes the unsigned content of a transaction of the given type.
func txData(t testing.TB, rng *rand.Rand, txType byte, nonce uint64) types.TxData {
	t.Helper()
	to := common.BytesToAddress(trietest.RandomBytes(rng, common.AddressLength))
	data := trietest.RandomBytes(rng, rng.IntN(300))
	gas := 21000 + rng.Uint64N(1_000_000)
	value := uint256.NewInt(rng.Uint64())
	tip := uint256.NewInt(1 + rng.Uint64N(1e9))
	feeCap := new(uint256.Int).Add(tip, uint256.NewInt(rng.Uint64N(1e11)))
	chainID := uint256.MustFromBig(testChainID)
	switch txType {
	case types.LegacyTxType:
		return &types.LegacyTx{Nonce: nonce, GasPrice: feeCap.ToBig(), Gas: gas, To: &to, Value: value.ToBig(), Data: data}
	case types.AccessListTxType:
		return &types.AccessListTx{ChainID: testChainID, Nonce: nonce, GasPrice: feeCap.ToBig(), Gas: gas,
			To: &to, Value: value.ToBig(), Data: data, AccessList: accessList(rng)}
	case types.DynamicFeeTxType:
		return &types.DynamicFeeTx{ChainID: testChainID, Nonce: nonce, GasTipCap: tip.ToBig(), GasFeeCap: feeCap.ToBig(),
			Gas: gas, To: &to, Value: value.ToBig(), Data: data, AccessList: accessList(rng)}
	case types.BlobTxType:
		hashes := make([]common.Hash, 1+rng.IntN(6))
		for i := range hashes {
			hashes[i] = common.BytesToHash(trietest.RandomBytes(rng, common.HashLength))
			hashes[i][0] = 0x01 // the KZG commitment version
		}
		return &types.BlobTx{ChainID: chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: gas,
			To: to, Value: value, Data: data, AccessList: accessList(rng),
			BlobFeeCap: uint256.NewInt(1 + rng.Uint64N(1e9)), BlobHashes: hashes}
	case types.SetCodeTxType:
		auths := make([]types.SetCodeAuthorization, 1+rng.IntN(3))
		for i := range auths {
			auth, err := types.SignSetCode(testKey, types.SetCodeAuthorization{
				ChainID: *chainID,
				Address: common.BytesToAddress(trietest.RandomBytes(rng, common.AddressLength)),
				Nonce:   nonce + 1 + uint64(i),
			})
			require.NoError(t, err, "signing an authorization")
			auths[i] = auth
		}
		return &types.SetCodeTx{ChainID: chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: gas,
			To: to, Value: value, Data: data, AccessList: accessList(rng), AuthList: auths}
	}
	t.Fatalf("no test data for transaction type %d", txType)
	return nil
}

// accessList makes an access list of up to two accounts with up to three
// storage keys each.
func accessList(rng *rand.Rand) types.AccessList {
	list := make(types.AccessList, rng.IntN(3))
	for i := range list {
		list[i].Address = common.BytesToAddress(trietest.RandomBytes(rng, common.AddressLength))
		for range rng.IntN(4) {
			list[i].StorageKeys = append(list[i].StorageKeys, common.BytesToHash(trietest.RandomBytes(rng, common.HashLength)))
		}
	}
	return list
}

// testReceipts returns n receipts of all transaction types, each with up
// to three logs, their bloom filters set as a block's would be. Some legacy
// receipts carry a pre-Byzantium state root instead of a status.
func testReceipts(rng *rand.Rand, n int) types.Receipts {
	receipts := make(types.Receipts, n)
	var gasUsed uint64
	for i := range receipts {
		gasUsed += 21000 + rng.Uint64N(500_000)
		r := &types.Receipt{Type: txTypes[i%len(txTypes)], CumulativeGasUsed: gasUsed, Status: rng.Uint64N(2)}
		if r.Type == types.LegacyTxType && rng.IntN(2) == 0 {
			r.PostState = trietest.RandomBytes(rng, common.HashLength)
		}
		for range rng.IntN(4) {
			log := &types.Log{
				Address: common.BytesToAddress(trietest.RandomBytes(rng, common.AddressLength)),
				Data:    trietest.RandomBytes(rng, rng.IntN(200)),
			}
			for range rng.IntN(5) {
				log.Topics = append(log.Topics, common.BytesToHash(trietest.RandomBytes(rng, common.HashLength)))
			}
			r.Logs = append(r.Logs, log)
		}
		r.Bloom = types.CreateBloom(r)
		receipts[i] = r
	}
	return receipts
}

// testWithdrawals returns n withdrawals with consecutive indices.
func testWithdrawals(rng *rand.Rand, n int) types.Withdrawals {
	withdrawals := make(types.Withdrawals, n)
	for i := range withdrawals {
		withdrawals[i] = &types.Withdrawal{
			Index:     uint64(i),
			Validator: rng.Uint64N(1 << 21),
			Address:   common.BytesToAddress(trietest.RandomBytes(rng, common.AddressLength)),
			Amount:    rng.Uint64N(64e9),
		}
	}
	return withdrawals
}

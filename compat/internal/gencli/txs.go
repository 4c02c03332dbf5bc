package main

import (
	"crypto/ecdsa"
	"math/big"
	"math/rand/v2"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"

	"github.com/stacktrie/stacktrie/compat/internal/trietest"
)

// txKind is a transaction type to sign.
type txKind int

const (
	legacyTx txKind = iota
	accessListTx
	dynamicFeeTx
	blobTx
	setCodeTx
)

// Transaction types by the first fork that has them.
var (
	londonTxKinds = []txKind{legacyTx, accessListTx, dynamicFeeTx}
	cancunTxKinds = []txKind{legacyTx, accessListTx, dynamicFeeTx, blobTx}
	allTxKinds    = []txKind{legacyTx, accessListTx, dynamicFeeTx, blobTx, setCodeTx}
)

// txMaker signs transactions of one sender with a fixed key; ECDSA signing
// here is deterministic, so the same seed gives the same transactions.
type txMaker struct {
	rng    *rand.Rand
	key    *ecdsa.PrivateKey
	signer types.Signer
	nonce  uint64
}

func newTxMaker(seed uint64) *txMaker {
	rng := rand.New(rand.NewPCG(seed, 2))
	key, err := crypto.ToECDSA(common.LeftPadBytes(big.NewInt(int64(seed)+1).Bytes(), 32))
	if err != nil {
		panic(err) // a small nonzero scalar is always a valid key
	}
	return &txMaker{rng: rng, key: key, signer: types.LatestSignerForChainID(params.MainnetChainConfig.ChainID)}
}

// transactions signs n transactions, cycling through kinds, with calldata of
// 0 to 300 bytes so that encodings range from about 100 to 450 bytes.
func (m *txMaker) transactions(n int, kinds []txKind) ([]*types.Transaction, error) {
	txs := make([]*types.Transaction, n)
	for i := range txs {
		tx, err := types.SignNewTx(m.key, m.signer, m.txData(kinds[i%len(kinds)]))
		if err != nil {
			return nil, err
		}
		txs[i] = tx
	}
	return txs, nil
}

func (m *txMaker) txData(kind txKind) types.TxData {
	nonce := m.nonce
	m.nonce++
	to := common.BytesToAddress(trietest.RandomBytes(m.rng, 20))
	data := trietest.RandomBytes(m.rng, m.rng.IntN(301))
	value := uint256.NewInt(m.rng.Uint64())
	chainID := uint256.MustFromBig(params.MainnetChainConfig.ChainID)
	tip, feeCap := uint256.NewInt(1e9), uint256.NewInt(30e9)
	accessList := types.AccessList{{Address: to, StorageKeys: []common.Hash{common.BytesToHash(trietest.RandomBytes(m.rng, 32))}}}
	switch kind {
	case legacyTx:
		return &types.LegacyTx{Nonce: nonce, GasPrice: big.NewInt(20e9), Gas: 21000 + 16*uint64(len(data)), To: &to, Value: value.ToBig(), Data: data}
	case accessListTx:
		return &types.AccessListTx{ChainID: chainID.ToBig(), Nonce: nonce, GasPrice: big.NewInt(20e9), Gas: 50000, To: &to, Value: value.ToBig(), Data: data, AccessList: accessList}
	case dynamicFeeTx:
		return &types.DynamicFeeTx{ChainID: chainID.ToBig(), Nonce: nonce, GasTipCap: tip.ToBig(), GasFeeCap: feeCap.ToBig(), Gas: 60000, To: &to, Value: value.ToBig(), Data: data}
	case blobTx:
		hashes := []common.Hash{versionedHash(m.rng), versionedHash(m.rng)}
		return &types.BlobTx{ChainID: chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: 70000, To: to, Value: value, Data: data, BlobFeeCap: uint256.NewInt(1e6), BlobHashes: hashes}
	default:
		auth, err := types.SignSetCode(m.key, types.SetCodeAuthorization{ChainID: *chainID, Address: to, Nonce: nonce + 1})
		if err != nil {
			panic(err) // signing with a valid key cannot fail
		}
		m.nonce++ // the authorization uses the next nonce
		return &types.SetCodeTx{ChainID: chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: 80000, To: to, Value: value, Data: data, AuthList: []types.SetCodeAuthorization{auth}}
	}
}

// versionedHash is a random stand-in for the hash of a blob's commitment,
// with the version byte of KZG commitments.
func versionedHash(rng *rand.Rand) common.Hash {
	h := common.BytesToHash(trietest.RandomBytes(rng, 32))
	h[0] = 0x01
	return h
}

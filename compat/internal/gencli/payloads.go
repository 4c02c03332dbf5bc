package main

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/beacon/engine"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
)

// writePayloads writes each sample block in two shapes, engine API and
// beacon API, varied so that every shape the tool reads appears once:
//
//	paris:    a bare ExecutionPayloadV1; an unsigned bellatrix block
//	shanghai: a bare ExecutionPayloadV2; a signed capella block
//	cancun:   engine_newPayloadV3's params; a getPayloadV3 response, which
//	          lacks the parent beacon root (given with --parent-beacon-root);
//	          a deneb block as GET /eth/v2/beacon/blocks returns it
//	prague:   an engine_newPayloadV4 JSON-RPC request; an electra block as
//	          GET /eth/v2/beacon/blocks returns it
//	prague-sparse: a getPayloadV4 response; an electra block whose
//	          deposits and withdrawal requests are empty lists
func writePayloads(o *output) error {
	for i, spec := range blockSpecs {
		sb, err := spec.build(uint64(100 + i))
		if err != nil {
			return fmt.Errorf("%s block: %w", spec.fork, err)
		}
		env := engine.BlockToExecutableData(sb.block, big.NewInt(0), nil, sb.requests)
		want := sb.want()
		var hashes []common.Hash
		for _, tx := range sb.block.Transactions() {
			hashes = append(hashes, tx.BlobHashes()...)
		}
		engineFile := "payload/" + spec.name + "-engine.json"
		var engineJSON any
		var engineArgs []string
		switch spec.name {
		case "paris", "shanghai":
			engineJSON = env.ExecutionPayload
		case "cancun":
			engineJSON = []any{env.ExecutionPayload, hashes, sb.beaconParent}
			file := "payload/cancun-getpayload.json"
			if err := o.writeJSON(file, env); err != nil {
				return err
			}
			o.addCase("payload", file, []string{"--parent-beacon-root", sb.beaconParent.Hex()}, want)
		case "prague-sparse":
			engineFile = "payload/prague-sparse-getpayload.json"
			engineJSON = env
			engineArgs = []string{"--parent-beacon-root", sb.beaconParent.Hex()}
		case "prague":
			engineJSON = map[string]any{
				"jsonrpc": "2.0", "id": 1, "method": "engine_newPayloadV4",
				"params": []any{env.ExecutionPayload, hashes, sb.beaconParent, hexList(sb.requests)},
			}
		}
		if err := o.writeJSON(engineFile, engineJSON); err != nil {
			return err
		}
		o.addCase("payload", engineFile, engineArgs, want)

		beaconFile := "payload/" + spec.name + "-beacon.json"
		if err := o.writeJSON(beaconFile, sb.beaconJSON()); err != nil {
			return err
		}
		o.addCase("payload", beaconFile, nil, want)
	}
	return nil
}

// want is what go-ethereum says about the block.
func (sb *sampleBlock) want() map[string]any {
	h := sb.block.Header()
	want := map[string]any{
		"fork":             sb.spec.fork,
		"transactions":     len(sb.block.Transactions()),
		"transactionsRoot": h.TxHash,
		"blockHash":        sb.block.Hash(),
		"match":            true,
	}
	if h.WithdrawalsHash != nil {
		want["withdrawals"] = len(sb.block.Withdrawals())
		want["withdrawalsRoot"] = *h.WithdrawalsHash
	}
	if h.RequestsHash != nil {
		want["requestsHash"] = *h.RequestsHash
	}
	return want
}

func hexList(items [][]byte) []hexutil.Bytes {
	out := make([]hexutil.Bytes, len(items))
	for i, item := range items {
		out[i] = item
	}
	return out
}

// decimal writes a number as the beacon API does: a decimal string.
func decimal(v uint64) string { return fmt.Sprint(v) }

// beaconJSON is the block as the beacon API shows it: snake_case names,
// numbers as decimal strings, the execution payload inside the body.
func (sb *sampleBlock) beaconJSON() any {
	b := sb.block
	payload := map[string]any{
		"parent_hash":      b.ParentHash(),
		"fee_recipient":    b.Coinbase(),
		"state_root":       b.Root(),
		"receipts_root":    b.ReceiptHash(),
		"logs_bloom":       hexutil.Bytes(b.Bloom().Bytes()),
		"prev_randao":      b.MixDigest(),
		"block_number":     decimal(b.NumberU64()),
		"gas_limit":        decimal(b.GasLimit()),
		"gas_used":         decimal(b.GasUsed()),
		"timestamp":        decimal(b.Time()),
		"extra_data":       hexutil.Bytes(b.Extra()),
		"base_fee_per_gas": b.BaseFee().String(),
		"block_hash":       b.Hash(),
		"transactions":     encodedTxs(b.Transactions()),
	}
	body := map[string]any{
		"randao_reveal":      hexutil.Bytes(make([]byte, 96)),
		"graffiti":           common.Hash{},
		"proposer_slashings": []any{},
		"attester_slashings": []any{},
		"attestations":       []any{},
		"deposits":           []any{},
		"voluntary_exits":    []any{},
		"execution_payload":  payload,
	}
	if b.Withdrawals() != nil {
		ws := []map[string]any{}
		for _, w := range b.Withdrawals() {
			ws = append(ws, map[string]any{
				"index": decimal(w.Index), "validator_index": decimal(w.Validator),
				"address": w.Address, "amount": decimal(w.Amount),
			})
		}
		payload["withdrawals"] = ws
		body["bls_to_execution_changes"] = []any{}
	}
	if sb.spec.isCancun() {
		payload["blob_gas_used"] = decimal(*b.BlobGasUsed())
		payload["excess_blob_gas"] = decimal(*b.ExcessBlobGas())
		body["blob_kzg_commitments"] = []any{}
	}
	if sb.spec.isPrague() {
		body["execution_requests"] = sb.beaconRequests()
	}
	message := map[string]any{
		"slot":           decimal(b.NumberU64() + 1_000_000),
		"proposer_index": "4242",
		"parent_root":    sb.beaconParent,
		"state_root":     common.Hash{0x5e},
		"body":           body,
	}
	signed := map[string]any{"message": message, "signature": hexutil.Bytes(make([]byte, 96))}
	switch sb.spec.fork {
	case "paris":
		return message
	case "shanghai":
		return signed
	case "cancun":
		return map[string]any{"version": "deneb", "execution_optimistic": false, "finalized": true, "data": signed}
	default:
		return map[string]any{"version": "electra", "execution_optimistic": false, "finalized": true, "data": signed}
	}
}

// beaconRequests lists the execution requests by kind, field by field.
func (sb *sampleBlock) beaconRequests() map[string]any {
	deposits := []map[string]any{}
	for _, d := range sb.deposits {
		deposits = append(deposits, map[string]any{
			"pubkey": hexutil.Bytes(d.pubkey[:]), "withdrawal_credentials": hexutil.Bytes(d.credentials[:]),
			"amount": decimal(d.amount), "signature": hexutil.Bytes(d.signature[:]), "index": decimal(d.index),
		})
	}
	withdrawals := []map[string]any{}
	for _, w := range sb.withdrawalRequests {
		withdrawals = append(withdrawals, map[string]any{
			"source_address": w.source, "validator_pubkey": hexutil.Bytes(w.pubkey[:]), "amount": decimal(w.amount),
		})
	}
	consolidations := []map[string]any{}
	for _, c := range sb.consolidations {
		consolidations = append(consolidations, map[string]any{
			"source_address": c.source, "source_pubkey": hexutil.Bytes(c.sourcePubkey[:]),
			"target_pubkey": hexutil.Bytes(c.targetPubkey[:]),
		})
	}
	return map[string]any{"deposits": deposits, "withdrawals": withdrawals, "consolidations": consolidations}
}

func encodedTxs(txs types.Transactions) []hexutil.Bytes {
	out := make([]hexutil.Bytes, len(txs))
	for i, tx := range txs {
		enc, err := tx.MarshalBinary()
		if err != nil {
			panic(err) // a signed transaction always encodes
		}
		out[i] = enc
	}
	return out
}

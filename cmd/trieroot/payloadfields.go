package main

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/holiman/uint256"
)

// executionPayload holds the fields of an execution payload that go into
// the block header, or into the roots that the header commits to.
type executionPayload struct {
	parentHash, stateRoot, receiptsRoot, prevRandao, blockHash []byte
	feeRecipient, logsBloom, extraData                         []byte
	number, gasLimit, gasUsed, timestamp                       uint64
	baseFee                                                    *uint256.Int
	transactions                                               [][]byte
	withdrawals                                                []withdrawal // nil before Shanghai
	blobGasUsed, excessBlobGas                                 *uint64      // nil before Cancun
}

// withdrawal is an EIP-4895 withdrawal; the amount is in Gwei.
type withdrawal struct {
	index, validator uint64
	address          []byte
	amount           uint64
}

// payloadField is a member of an execution payload: its names in the
// engine API and the beacon API, and its decoder.
type payloadField struct {
	engine, beacon string
	required       bool // in every fork's payload
	decode         func(p *executionPayload, raw json.RawMessage, snake bool) error
}

func (f *payloadField) name(snake bool) string {
	if snake {
		return f.beacon
	}
	return f.engine
}

// The members of payloads from Paris (V1) to Prague (V3), in header order.
var payloadFields = []payloadField{
	{"parentHash", "parent_hash", true, fixedField(32, func(p *executionPayload) *[]byte { return &p.parentHash })},
	{"feeRecipient", "fee_recipient", true, fixedField(20, func(p *executionPayload) *[]byte { return &p.feeRecipient })},
	{"stateRoot", "state_root", true, fixedField(32, func(p *executionPayload) *[]byte { return &p.stateRoot })},
	{"receiptsRoot", "receipts_root", true, fixedField(32, func(p *executionPayload) *[]byte { return &p.receiptsRoot })},
	{"logsBloom", "logs_bloom", true, fixedField(256, func(p *executionPayload) *[]byte { return &p.logsBloom })},
	{"prevRandao", "prev_randao", true, fixedField(32, func(p *executionPayload) *[]byte { return &p.prevRandao })},
	{"blockNumber", "block_number", true, numberField(func(p *executionPayload) *uint64 { return &p.number })},
	{"gasLimit", "gas_limit", true, numberField(func(p *executionPayload) *uint64 { return &p.gasLimit })},
	{"gasUsed", "gas_used", true, numberField(func(p *executionPayload) *uint64 { return &p.gasUsed })},
	{"timestamp", "timestamp", true, numberField(func(p *executionPayload) *uint64 { return &p.timestamp })},
	{"extraData", "extra_data", true, func(p *executionPayload, raw json.RawMessage, _ bool) (err error) {
		p.extraData, err = someBytes(raw)
		return err
	}},
	{"baseFeePerGas", "base_fee_per_gas", true, func(p *executionPayload, raw json.RawMessage, _ bool) (err error) {
		p.baseFee, err = bigNumber(raw)
		return err
	}},
	{"blockHash", "block_hash", true, fixedField(32, func(p *executionPayload) *[]byte { return &p.blockHash })},
	{"transactions", "transactions", true, decodeTransactions},
	{"withdrawals", "withdrawals", false, decodeWithdrawals},
	{"blobGasUsed", "blob_gas_used", false, optionalNumberField(func(p *executionPayload) **uint64 { return &p.blobGasUsed })},
	{"excessBlobGas", "excess_blob_gas", false, optionalNumberField(func(p *executionPayload) **uint64 { return &p.excessBlobGas })},
}

func fixedField(size int, at func(*executionPayload) *[]byte) func(*executionPayload, json.RawMessage, bool) error {
	return func(p *executionPayload, raw json.RawMessage, _ bool) (err error) {
		*at(p), err = fixedBytes(raw, size)
		return err
	}
}

func numberField(at func(*executionPayload) *uint64) func(*executionPayload, json.RawMessage, bool) error {
	return func(p *executionPayload, raw json.RawMessage, _ bool) (err error) {
		*at(p), err = number(raw)
		return err
	}
}

func optionalNumberField(at func(*executionPayload) **uint64) func(*executionPayload, json.RawMessage, bool) error {
	return func(p *executionPayload, raw json.RawMessage, _ bool) error {
		n, err := number(raw)
		*at(p) = &n
		return err
	}
}

// decodePayload decodes the payload's members. A member that no fork up to
// Prague has is an error: the header it belongs to is one trieroot cannot
// rebuild.
func decodePayload(src *payloadSource) (*executionPayload, error) {
	known := func(name string) bool {
		return slices.ContainsFunc(payloadFields, func(f payloadField) bool { return f.name(src.snake) == name })
	}
	if name := unknownMember(src.payload, known); name != "" {
		api := "engine"
		if src.snake {
			api = "beacon"
		}
		return nil, fmt.Errorf("execution payload field %q is unknown: trieroot reads Paris to Prague payloads, with the %s API's names", name, api)
	}
	p := &executionPayload{}
	for i := range payloadFields {
		f := &payloadFields[i]
		raw := src.payload[f.name(src.snake)]
		if raw == nil {
			if f.required {
				return nil, fmt.Errorf("execution payload has no %s", f.name(src.snake))
			}
			continue
		}
		if err := f.decode(p, raw, src.snake); err != nil {
			return nil, fmt.Errorf("execution payload %s: %w", f.name(src.snake), err)
		}
	}
	return p, nil
}

func decodeTransactions(p *executionPayload, raw json.RawMessage, _ bool) error {
	var txs []json.RawMessage
	if err := json.Unmarshal(raw, &txs); err != nil {
		return fmt.Errorf("want an array, got %s", jsonKind(raw))
	}
	p.transactions = make([][]byte, len(txs))
	for i, tx := range txs {
		b, err := someBytes(tx)
		if err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
		p.transactions[i] = b
	}
	return nil
}

func decodeWithdrawals(p *executionPayload, raw json.RawMessage, snake bool) error {
	objs, err := objectList(raw)
	if err != nil {
		return err
	}
	validator := "validatorIndex"
	if snake {
		validator = "validator_index"
	}
	names := []string{"index", validator, "address", "amount"}
	p.withdrawals = make([]withdrawal, len(objs))
	for i, obj := range objs {
		if name := unknownMember(obj, func(n string) bool { return slices.Contains(names, n) }); name != "" {
			return fmt.Errorf("[%d]: unknown field %q", i, name)
		}
		for _, name := range names {
			if obj[name] == nil {
				return fmt.Errorf("[%d]: no %s", i, name)
			}
		}
		w := &p.withdrawals[i]
		if w.index, err = number(obj["index"]); err != nil {
			return fmt.Errorf("[%d].index: %w", i, err)
		}
		if w.validator, err = number(obj[validator]); err != nil {
			return fmt.Errorf("[%d].%s: %w", i, validator, err)
		}
		if w.address, err = fixedBytes(obj["address"], 20); err != nil {
			return fmt.Errorf("[%d].address: %w", i, err)
		}
		if w.amount, err = number(obj["amount"]); err != nil {
			return fmt.Errorf("[%d].amount: %w", i, err)
		}
	}
	return nil
}

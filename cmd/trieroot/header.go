package main

import (
	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/derivesha"
)

// header is an execution block header rebuilt from a payload: the
// payload's fields, the roots computed from its lists, and what the
// consensus layer holds beside it.
type header struct {
	payload          *executionPayload
	fork             fork
	transactionsRoot stacktrie.Hash
	withdrawalsRoot  stacktrie.Hash // from Shanghai
	parentBeaconRoot []byte         // from Cancun
	requestsHash     []byte         // from Prague
}

// emptyOmmersHash is the ommers hash of every block since the merge: the
// Keccak-256 of the empty RLP list.
var emptyOmmersHash = keccak256([]byte{0xc0})

// hash is the block hash: the Keccak-256 of the header's RLP encoding, a
// list of the fields in the order the Yellow Paper and later EIPs append
// them. Proof-of-stake fixes difficulty at 0 and the nonce at 8 zero bytes.
func (h *header) hash() stacktrie.Hash {
	p := h.payload
	var b []byte
	b = rlpString(b, p.parentHash)
	b = rlpString(b, emptyOmmersHash[:])
	b = rlpString(b, p.feeRecipient)
	b = rlpString(b, p.stateRoot)
	b = rlpString(b, h.transactionsRoot[:])
	b = rlpString(b, p.receiptsRoot)
	b = rlpString(b, p.logsBloom)
	b = rlpUint(b, 0) // difficulty
	b = rlpUint(b, p.number)
	b = rlpUint(b, p.gasLimit)
	b = rlpUint(b, p.gasUsed)
	b = rlpUint(b, p.timestamp)
	b = rlpString(b, p.extraData)
	b = rlpString(b, p.prevRandao) // mixHash
	b = rlpString(b, make([]byte, 8))
	b = rlpUint256(b, p.baseFee) // from London
	if h.fork >= shanghai {
		b = rlpString(b, h.withdrawalsRoot[:])
	}
	if h.fork >= cancun {
		b = rlpUint(b, *p.blobGasUsed)
		b = rlpUint(b, *p.excessBlobGas)
		b = rlpString(b, h.parentBeaconRoot)
	}
	if h.fork >= prague {
		b = rlpString(b, h.requestsHash)
	}
	return keccak256(rlpList(nil, b))
}

// withdrawalsRoot is the DeriveSha root of the withdrawals, each encoded as
// the RLP list [index, validator index, address, amount].
func withdrawalsRoot(ws []withdrawal) stacktrie.Hash {
	items := make(derivesha.Bytes, len(ws))
	var fields []byte
	for i, w := range ws {
		fields = rlpUint(fields[:0], w.index)
		fields = rlpUint(fields, w.validator)
		fields = rlpString(fields, w.address)
		fields = rlpUint(fields, w.amount)
		items[i] = rlpList(nil, fields)
	}
	return derivesha.DeriveSha(items, nil)
}

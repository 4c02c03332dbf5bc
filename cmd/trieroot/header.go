package main

import (
	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/derivesha"
	"github.com/stacktrie/stacktrie/internal/rlp"
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
	b = rlp.AppendString(b, p.parentHash)
	b = rlp.AppendString(b, emptyOmmersHash[:])
	b = rlp.AppendString(b, p.feeRecipient)
	b = rlp.AppendString(b, p.stateRoot)
	b = rlp.AppendString(b, h.transactionsRoot[:])
	b = rlp.AppendString(b, p.receiptsRoot)
	b = rlp.AppendString(b, p.logsBloom)
	b = rlp.AppendUint(b, 0) // difficulty
	b = rlp.AppendUint(b, p.number)
	b = rlp.AppendUint(b, p.gasLimit)
	b = rlp.AppendUint(b, p.gasUsed)
	b = rlp.AppendUint(b, p.timestamp)
	b = rlp.AppendString(b, p.extraData)
	b = rlp.AppendString(b, p.prevRandao) // mixHash
	b = rlp.AppendString(b, make([]byte, 8))
	b = rlp.AppendString(b, p.baseFee.Bytes()) // from London
	if h.fork >= shanghai {
		b = rlp.AppendString(b, h.withdrawalsRoot[:])
	}
	if h.fork >= cancun {
		b = rlp.AppendUint(b, *p.blobGasUsed)
		b = rlp.AppendUint(b, *p.excessBlobGas)
		b = rlp.AppendString(b, h.parentBeaconRoot)
	}
	if h.fork >= prague {
		b = rlp.AppendString(b, h.requestsHash)
	}
	return keccak256(rlp.AppendList(nil, b))
}

// withdrawalsRoot is the DeriveSha root of the withdrawals, each encoded as
// the RLP list [index, validator index, address, amount].
func withdrawalsRoot(ws []withdrawal) stacktrie.Hash {
	items := make(derivesha.Bytes, len(ws))
	var fields []byte
	for i, w := range ws {
		fields = rlp.AppendUint(fields[:0], w.index)
		fields = rlp.AppendUint(fields, w.validator)
		fields = rlp.AppendString(fields, w.address)
		fields = rlp.AppendUint(fields, w.amount)
		items[i] = rlp.AppendList(nil, fields)
	}
	return derivesha.DeriveSha(items, nil)
}

package derivesha_test

import (
	"fmt"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/derivesha"
)

// The receipts root of a block and the proof of one receipt, in one pass. A
// go-ethereum types.Receipts value can be passed as it is; here the receipts
// are already encoded.
func ExampleDeriveShaWithProofs() {
	receipts := make(derivesha.Bytes, 200)
	for i := range receipts {
		receipts[i] = fmt.Appendf(nil, "encoded receipt %d, with its logs and bloom", i)
	}
	root, proofs := derivesha.DeriveShaWithProofs(receipts, 130)
	fmt.Println("receipts root", root)

	// Anyone with the root, from the block header, can check the receipt.
	receipt, err := stacktrie.VerifyProof(root, derivesha.IndexKey(130), proofs[0])
	fmt.Printf("%d proof nodes: %q %v\n", len(proofs[0]), receipt, err)
	// Output:
	// receipts root 0xa26162d520562125c4b5949823eeb10d3f2edab730599679be98184ae3ec90b8
	// 5 proof nodes: "encoded receipt 130, with its logs and bloom" <nil>
}

// A light-client server proves the first and last receipt of block after
// block with one Prover, which reuses everything from one block to the next.
func ExampleProve() {
	prover := derivesha.NewProver(0, 2)
	for block := range 3 {
		receipts := make(derivesha.Bytes, 3)
		for i := range receipts {
			receipts[i] = fmt.Appendf(nil, "block %d, receipt %d", block, i)
		}
		root, proofs := derivesha.Prove(prover, receipts) // valid until the next Prove
		last, err := stacktrie.VerifyProof(root, derivesha.IndexKey(2), proofs[1])
		fmt.Printf("%q %v %v\n", last, err, root == derivesha.DeriveSha(receipts, nil))
	}
	// Output:
	// "block 0, receipt 2" <nil> true
	// "block 1, receipt 2" <nil> true
	// "block 2, receipt 2" <nil> true
}

package derivesha_test

import (
	"fmt"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/derivesha"
)

// The transactions root of a block over its encoded transactions. A go-ethereum
// types.Transactions, Receipts or Withdrawals value can be passed as it is.
func ExampleDeriveSha() {
	txs := derivesha.Bytes{
		[]byte("first encoded transaction"),
		[]byte("second encoded transaction"),
	}
	fmt.Println(derivesha.DeriveSha(txs, nil))

	// A caller that computes many roots keeps its own trie.
	t := stacktrie.New(nil)
	fmt.Println(derivesha.DeriveSha(txs, t))
	// Output:
	// 0x29b6e32262792e7eec90f89c85e1447dbbee34097a519211e99b5cba89bfce01
	// 0x29b6e32262792e7eec90f89c85e1447dbbee34097a519211e99b5cba89bfce01
}

// The withdrawals roots of block after block: DeriveShaLater hashes the
// nodes of small lists side by side, and Flush writes the last roots.
func ExampleDeriveShaLater() {
	blocks := []derivesha.Bytes{
		{[]byte("first encoded transaction"), []byte("second encoded transaction")},
		{},
		{[]byte("first encoded transaction"), []byte("second encoded transaction")},
	}
	roots := make([]stacktrie.Hash, len(blocks))
	t := stacktrie.New(nil)
	for i, list := range blocks {
		derivesha.DeriveShaLater(list, t, &roots[i])
	}
	t.Flush()
	for _, root := range roots {
		fmt.Println(root)
	}
	// Output:
	// 0x29b6e32262792e7eec90f89c85e1447dbbee34097a519211e99b5cba89bfce01
	// 0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421
	// 0x29b6e32262792e7eec90f89c85e1447dbbee34097a519211e99b5cba89bfce01
}

// Receipts hashed while the block executes: each is added when it is ready,
// and the root is there as soon as the last one is.
func ExampleStream() {
	s := derivesha.NewStream(nil)
	for _, receipt := range []string{"receipt 0", "receipt 1", "receipt 2"} {
		if err := s.Append([]byte(receipt)); err != nil {
			panic(err)
		}
	}
	fmt.Println(s.Len(), s.Hash())
	// Output:
	// 3 0xb4b33aca63173edb43ca3338638596d919e26a72f190bd0255894560c96049fe
}

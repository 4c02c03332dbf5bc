// Package derivesha computes the roots Ethereum block headers commit to for
// ordered lists (transactions, receipts, withdrawals): a trie that maps the
// RLP encoding of each index to the list's encoding of that element.
package derivesha

import (
	"bytes"
	"sync"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/rlp"
)

// List is an ordered list whose elements can be encoded one at a time.
// go-ethereum's types.Transactions, types.Receipts and types.Withdrawals
// satisfy it.
type List interface {
	Len() int
	EncodeIndex(int, *bytes.Buffer)
}

// Bytes is a List of elements that are already encoded.
type Bytes [][]byte

// Len returns the number of elements.
func (b Bytes) Len() int { return len(b) }

// EncodeIndex writes element i to w.
func (b Bytes) EncodeIndex(i int, w *bytes.Buffer) { w.Write(b[i]) }

var bufferPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// DeriveSha returns the root of the trie of list's elements keyed by their
// RLP-encoded indices, as go-ethereum's types.DeriveSha computes it. t is
// Reset and used for the computation, so a caller that keeps one allocates
// nothing; nil takes a trie from a pool. An element that encodes to nothing
// is left out of the trie, as go-ethereum leaves it out.
//
// DeriveSha is generic so that passing a slice type such as Bytes does not
// box it in an interface, which would cost an allocation per call.
func DeriveSha[L List](list L, t *stacktrie.Trie) stacktrie.Hash {
	if t == nil {
		t = stacktrie.GetTrie()
		defer stacktrie.PutTrie(t)
	}
	t.Reset()
	insert(list, t)
	return t.Hash()
}

// DeriveShaLater is DeriveSha for many lists in a row, the roots of block
// after block: it builds list's trie in t and ends it with t.HashLater, so
// that the nodes of small lists, such as a block's withdrawals, are hashed
// side by side with those of the lists before and after it. The root is
// written to *root by t.Flush at the latest (see Trie.HashLater). t should
// hold no pairs; any it holds are ended first with their root dropped (a
// node callback still sees their nodes), while the roots t owes to
// HashLater stay due. A nil t takes a pooled trie, and the root is written
// at once.
func DeriveShaLater[L List](list L, t *stacktrie.Trie, root *stacktrie.Hash) {
	if t == nil {
		h := DeriveSha(list, nil)
		if root != nil {
			*root = h
		}
		return
	}
	t.HashLater(nil) // ends and drops what t holds, leaving its due roots
	insert(list, t)
	t.HashLater(root)
}

// insert puts list's elements into t, which holds no pair, in key order.
func insert[L List](list L, t *stacktrie.Trie) {
	var key [maxKeySize]byte
	if items, ok := any(list).(Bytes); ok {
		forEachIndex(len(items), func(i int) {
			if len(items[i]) > 0 {
				t.Update(appendIndex(key[:0], i), items[i])
			}
		})
		return
	}
	buf := bufferPool.Get().(*bytes.Buffer)
	defer bufferPool.Put(buf)
	forEachIndex(list.Len(), func(i int) {
		buf.Reset()
		list.EncodeIndex(i, buf)
		if buf.Len() > 0 {
			t.Update(appendIndex(key[:0], i), buf.Bytes())
		}
	})
}

// forEachIndex calls f for the indices 0..n-1 in the order of their keys:
// 1 to 127 encode as single bytes below 0x80, the encoding of 0, so 0 comes
// after them and before 128, whose encodings are longer and start higher.
func forEachIndex(n int, f func(int)) {
	for i := 1; i < min(n, 128); i++ {
		f(i)
	}
	if n > 0 {
		f(0)
	}
	for i := 128; i < n; i++ {
		f(i)
	}
}

// maxKeySize bounds the RLP encoding of an int index: a header and 8 bytes.
const maxKeySize = 9

// appendIndex appends the RLP encoding of the index i, an unsigned integer.
func appendIndex(dst []byte, i int) []byte { return rlp.AppendUint(dst, uint64(i)) }

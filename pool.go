package stacktrie

import "sync"

// triePool holds tries without a node callback, warm from earlier use, so
// that one-shot helpers such as derivesha.DeriveSha allocate nothing.
var triePool = sync.Pool{New: func() any { return New(nil) }}

// GetTrie returns an empty Trie without a node callback from a shared pool.
// Hand it back with PutTrie when done; a pooled Trie keeps the buffers it grew.
func GetTrie() *Trie {
	return triePool.Get().(*Trie)
}

// PutTrie empties t, drops its node callback and returns it to the pool.
// t must not be used afterwards.
func PutTrie(t *Trie) {
	if t == nil {
		return
	}
	t.batch.onNode = nil
	t.Reset()
	triePool.Put(t)
}

package incremental

// This file is the entry points: the Builder, which owns a stacktrie.Trie
// and every buffer so that a reused one allocates nothing, and Build and
// Root over 32-byte keys with pooled Builders.

import (
	"bytes"
	"fmt"
	"runtime"
	"sync"

	"github.com/stacktrie/stacktrie"
)

// HashedKeyLen is the key length Build and Root take: 32 bytes, the
// Keccak-256 hashed keys of state and storage tries.
const HashedKeyLen = 32

// A Builder computes roots with Build and Root over keys of one length,
// and keeps its trie and buffers from one call to the next: after a first
// call over data of some shape, it allocates nothing. Root runs the trie on
// a goroutine of the Builder's own, started by its first Root and ended
// once the Builder is dropped, unless the Root is small enough to feed it
// on the caller's; the cursors and store are only ever called from the
// caller's goroutine. A Builder is not safe for concurrent use.
type Builder struct {
	*engine
	keyLen int
	leaves reader
	walk   walker
}

// NewBuilder returns a Builder for keys of keyLen bytes. It panics if
// keyLen is below 1.
func NewBuilder(keyLen int) *Builder {
	if keyLen < 1 {
		panic(fmt.Sprintf("incremental: NewBuilder(%d): keys need at least one byte", keyLen))
	}
	b := &Builder{keyLen: keyLen, engine: newEngine()}
	b.walk.init(b)
	// The engine's goroutine, once started, ends when the Builder is
	// dropped.
	runtime.AddCleanup(b, func(work chan *itemBatch) { close(work) }, b.work)
	return b
}

// KeyLen is the length of the keys the Builder takes.
func (b *Builder) KeyLen() int { return b.keyLen }

// Build computes the root of the leaves from scratch and passes every
// branch record to store (which may be nil), as it is finalized: each
// after the stored branches below it. It is the first computation, and
// the reference every later Root must agree with. A Build that fails may
// have passed some records to store already.
func (b *Builder) Build(leaves Cursor, store func(path, branch []byte)) (stacktrie.Hash, error) {
	b.walk.feed.settle()
	b.trie.Reset()
	b.asm.reset(store, nil)
	defer func() { b.asm.store = nil }() // the engine keeps no reference to the caller's func
	r := &b.leaves
	r.reset(leaves, b.keyLen, false)
	for err := r.seek(nil); r.ok || err != nil; err = r.next() {
		if err != nil {
			return stacktrie.Hash{}, err
		}
		if err := b.trie.Update(r.key, r.value); err != nil {
			return stacktrie.Hash{}, err
		}
	}
	root := b.trie.Hash()
	return root, b.asm.err
}

// Root computes the root after a block. branches iterates the stored
// branches: each record's nibble path, one nibble a byte, to its
// encoding. leaves iterates the flat state after the block. changed holds
// every key inserted, updated or deleted, in ascending order; a key left
// out of it is taken as unchanged, and the root is wrong if it changed.
//
// Once the root is computed, store (which may be nil) receives each branch
// record to write, (path, record), and each path to delete, (path, nil),
// in ascending path order: the records Build would give for the new
// leaves, where they differ from the stored ones. Root calls store only if
// it succeeds, and after it is done with both cursors.
func (b *Builder) Root(branches, leaves Cursor, changed [][]byte, store func(path, branch []byte)) (stacktrie.Hash, error) {
	if err := CheckChanged(changed, b.keyLen); err != nil {
		return stacktrie.Hash{}, err
	}
	w := &b.walk
	w.feed.start() // first: it waits for the trie to be idle
	b.trie.Reset()
	w.start(branches, leaves, changed)
	b.asm.reset(nil, &b.built)
	err := w.coverRange(0, 0)
	if fed := w.feed.finish(); err == nil {
		err = fed
	}
	if err != nil {
		return stacktrie.Hash{}, err
	}
	root := b.trie.Hash()
	if b.asm.err != nil {
		return stacktrie.Hash{}, b.asm.err
	}
	if store != nil {
		w.flush(store)
	}
	return root, nil
}

// CheckChanged checks changed keys as Root does before it reads anything:
// each keyLen bytes long (ErrKeyLength), in strictly ascending order
// (ErrKeyOrder). A caller that gathers a block's keys from several sources
// can check them before it writes anything of its own.
func CheckChanged(changed [][]byte, keyLen int) error {
	for i, k := range changed {
		if len(k) != keyLen {
			return fmt.Errorf("%w: changed key %#x of %d bytes, want %d", ErrKeyLength, k, len(k), keyLen)
		}
		if i > 0 && bytes.Compare(changed[i-1], k) >= 0 {
			return fmt.Errorf("%w: changed key %#x after %#x", ErrKeyOrder, k, changed[i-1])
		}
	}
	return nil
}

// hashedKeyBuilders keeps Builders for Build and Root.
var hashedKeyBuilders = sync.Pool{New: func() any { return NewBuilder(HashedKeyLen) }}

// Build is Builder.Build over 32-byte keys, with a pooled Builder.
func Build(leaves Cursor, store func(path, branch []byte)) (stacktrie.Hash, error) {
	b := hashedKeyBuilders.Get().(*Builder)
	defer hashedKeyBuilders.Put(b)
	return b.Build(leaves, store)
}

// Root is Builder.Root over 32-byte keys, with a pooled Builder.
func Root(branches, leaves Cursor, changed [][]byte, store func(path, branch []byte)) (stacktrie.Hash, error) {
	b := hashedKeyBuilders.Get().(*Builder)
	defer hashedKeyBuilders.Put(b)
	return b.Root(branches, leaves, changed, store)
}

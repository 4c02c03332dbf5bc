package incremental

// This file is the entry points: the Builder, which owns a stacktrie.Trie
// and every buffer so that a reused one allocates nothing, and Build and
// Root over 32-byte keys with pooled Builders.

import (
	"fmt"
	"sync"

	"github.com/stacktrie/stacktrie"
)

// HashedKeyLen is the key length Build and Root take: 32 bytes, the
// Keccak-256 hashed keys of state and storage tries.
const HashedKeyLen = 32

// A Builder computes roots with Build over keys of one length,
// and keeps its trie and buffers from one call to the next: after a first
// call over data of some shape, it allocates nothing. It is not safe for
// concurrent use.
type Builder struct {
	keyLen int
	trie   *stacktrie.Trie
	asm    assembler
	leaves leafReader
}

// NewBuilder returns a Builder for keys of keyLen bytes. It panics if
// keyLen is below 1.
func NewBuilder(keyLen int) *Builder {
	if keyLen < 1 {
		panic(fmt.Sprintf("incremental: NewBuilder(%d): keys need at least one byte", keyLen))
	}
	b := &Builder{keyLen: keyLen}
	b.trie = stacktrie.New(b.asm.onNode)
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
	b.trie.Reset()
	b.asm.reset(store, nil)
	r := &b.leaves
	r.reset(leaves, b.keyLen)
	for err := r.seekPacked(nil); r.ok || err != nil; err = r.next() {
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

// hashedKeyBuilders keeps Builders for Build.
var hashedKeyBuilders = sync.Pool{New: func() any { return NewBuilder(HashedKeyLen) }}

// Build is Builder.Build over 32-byte keys, with a pooled Builder.
func Build(leaves Cursor, store func(path, branch []byte)) (stacktrie.Hash, error) {
	b := hashedKeyBuilders.Get().(*Builder)
	defer hashedKeyBuilders.Put(b)
	return b.Build(leaves, store)
}

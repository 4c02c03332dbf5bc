package derivesha

import "github.com/stacktrie/stacktrie"

// Stream computes the DeriveSha root of a list that grows one element at a
// time, such as the receipts of a block while it executes. Elements are
// appended in index order; the root equals DeriveSha of the same list.
//
// Only element 0 is held back, since its key sorts after those of elements 1
// to 127; every other element goes into the trie when it is appended.
type Stream struct {
	trie   *stacktrie.Trie
	first  []byte // element 0, while held back
	held   bool   // whether first is still to be inserted
	n      int
	hashed bool
}

// NewStream returns an empty Stream that hashes into t, which it resets; nil
// gives the Stream a trie of its own.
func NewStream(t *stacktrie.Trie) *Stream {
	if t == nil {
		t = stacktrie.New(nil)
	}
	t.Reset()
	return &Stream{trie: t}
}

// Append adds the next element, in its encoded form, and copies what it
// keeps. An empty element is counted but left out of the trie, as DeriveSha
// leaves it out. After Hash, Append fails with stacktrie.ErrFinalized until
// Reset.
func (s *Stream) Append(item []byte) error {
	if s.hashed {
		return stacktrie.ErrFinalized
	}
	if s.n == 0 {
		s.first = append(s.first[:0], item...)
		s.held = true
		s.n++
		return nil
	}
	if s.n == 128 {
		if err := s.release(); err != nil {
			return err
		}
	}
	if len(item) > 0 {
		var key [maxKeySize]byte
		if err := s.trie.Update(appendIndex(key[:0], s.n), item); err != nil {
			return err
		}
	}
	s.n++
	return nil
}

// Len returns the number of elements appended.
func (s *Stream) Len() int { return s.n }

// Hash returns the root of the elements appended so far and finalizes the
// Stream; it may be called again and returns the same root.
func (s *Stream) Hash() stacktrie.Hash {
	if !s.hashed {
		// Nothing else uses the trie, so the held element cannot be refused.
		_ = s.release()
		s.hashed = true
	}
	return s.trie.Hash()
}

// Reset empties the Stream and its trie, keeping their buffers.
func (s *Stream) Reset() {
	s.trie.Reset()
	s.held = false
	s.n = 0
	s.hashed = false
}

// release inserts the held element 0, whose key comes after element 127's.
func (s *Stream) release() error {
	if !s.held {
		return nil
	}
	if len(s.first) > 0 {
		if err := s.trie.Update([]byte{0x80}, s.first); err != nil {
			return err
		}
	}
	s.held = false
	return nil
}

package incremental

// This file lists the package's errors, so that callers find every
// sentinel they can test for in one place.

import "errors"

// Errors returned by Build, Root, and the Builder's methods of the same
// names, wrapped with the key or path at fault; test with errors.Is. Root
// calls store only when it succeeds; Build may have stored some branches
// before it fails.
var (
	// ErrKeyLength refuses a leaf key or a changed key whose length is not
	// the Builder's key length (32 bytes for Build and Root).
	ErrKeyLength = errors.New("incremental: key of the wrong length")
	// ErrKeyOrder refuses leaves or changed keys that are not strictly
	// ascending.
	ErrKeyOrder = errors.New("incremental: keys not in ascending order")
	// ErrEmptyValue refuses a leaf with an empty value: a trie holds none.
	ErrEmptyValue = errors.New("incremental: empty leaf value")
	// ErrBranchPath refuses a stored branch whose path holds a nibble above
	// 15, is as long as a key's nibbles or longer, or does not come after
	// the path before it.
	ErrBranchPath = errors.New("incremental: malformed stored branch path")
	// ErrBranchEncoding refuses bytes that are not a branch record as
	// Branch.AppendBinary writes it (see Branch.UnmarshalBinary).
	ErrBranchEncoding = errors.New("incremental: malformed branch encoding")
)

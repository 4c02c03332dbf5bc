package stacktrie

import (
	"bytes"
	"errors"
	"fmt"
)

// Errors returned by Update, UpdateBranch, Subtrie and the Subtrie decoders,
// and by Parallel's methods of the same names. They may be wrapped with
// context; test with errors.Is. A call refused with any of them changes
// nothing.
var (
	// ErrEmptyValue refuses an empty value: the trie has no way to store one.
	ErrEmptyValue = errors.New("stacktrie: empty value")
	// ErrKeyOrder refuses a key that is not greater than the previous key,
	// or a key or branch under a mounted branch.
	ErrKeyOrder = errors.New("stacktrie: key not in ascending order")
	// ErrFinalized refuses an Update after Hash, until Reset.
	ErrFinalized = errors.New("stacktrie: update after hash")
	// ErrStreamOpen refuses Parallel.HashAll while a stream begun with
	// Update is neither hashed nor reset.
	ErrStreamOpen = errors.New("stacktrie: a stream is open")
	// ErrInvalidBranch refuses a branch to mount whose path holds a nibble
	// above 15 or whose reference is neither a 32-byte hash nor the RLP list
	// of a node shorter than 32 bytes.
	ErrInvalidBranch = errors.New("stacktrie: invalid branch to mount")
	// ErrSubtrieEncoding refuses bytes that are not the binary form of a
	// Subtrie, as MarshalBinary writes it.
	ErrSubtrieEncoding = errors.New("stacktrie: malformed subtrie encoding")
)

// Errors returned by VerifyProof, wrapped with the index of the proof node at
// fault and what was wrong with it; test with errors.Is.
var (
	// ErrProofHash is a proof node whose Keccak-256 hash is not the
	// reference its parent (or, for the first node, the root) holds.
	ErrProofHash = errors.New("stacktrie: proof node does not match its hash")
	// ErrProofMissingNode is a proof that ends before the key's path does.
	ErrProofMissingNode = errors.New("stacktrie: proof node missing")
	// ErrProofMalformed is a proof node that is not a canonical trie node:
	// bad RLP, a list that is neither a leaf, an extension nor a branch, a
	// reference that is neither a hash nor a node under 32 bytes; or a proof
	// with nodes past the end of the key's path.
	ErrProofMalformed = errors.New("stacktrie: malformed proof node")
)

// Errors returned by VerifyRange and RangeVerifier.Verify, wrapped with the
// keys involved; a refused proof wraps ErrProofMissingNode or
// ErrProofMalformed instead. Test with errors.Is.
var (
	// ErrRangeInput is a range refused before its proof is read: keys and
	// values of different counts, keys not strictly ascending or one a
	// prefix of the next, an empty value, a key before the range's start,
	// or edges of different lengths.
	ErrRangeInput = errors.New("stacktrie: malformed range")
	// ErrRangeMismatch is a range whose pairs, with what the proof holds
	// around them, do not make the root: a pair missing, added or changed,
	// or a proof of other keys.
	ErrRangeMismatch = errors.New("stacktrie: range does not match the root")
	// ErrRangeMore is an empty range whose proof shows leaves at or after
	// its start.
	ErrRangeMore = errors.New("stacktrie: empty range with leaves after its start")
)

// errorWithKeys wraps err with the keys involved. It copies them, so that
// the caller's key does not escape and Update allocates only when it fails.
func errorWithKeys(err error, key, last []byte) error {
	if last == nil {
		return fmt.Errorf("%w: key %#x", err, bytes.Clone(key))
	}
	return fmt.Errorf("%w: key %#x after %#x", err, bytes.Clone(key), bytes.Clone(last))
}

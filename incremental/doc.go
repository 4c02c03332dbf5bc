// Package incremental computes a trie's new root after a block from the
// flat state and the branch nodes stored by the previous computation,
// without the trie in memory: it re-hashes leaves only under the keys that
// changed, and reuses the stored hash of every subtrie no change falls
// under, mounted with stacktrie's UpdateBranch.
//
// A stored branch is a record at the branch's nibble path (one nibble a
// byte), in the layout erigon stores intermediate hashes in, with the masks
// reth's trie uses (see Branch): which children exist, which children have
// stored branches below them, and the hashes of the children that are
// branches. Only branches with a hash or a tree bit are stored, and never
// the root. Build computes a root from scratch and gives every such record
// to a store function; Root computes the next root from the records, the
// new flat state and the keys that changed, and gives the records to
// write and the paths to delete.
//
// Keys have one fixed length: 32 bytes for Build and Root, the hashed keys
// of state and storage tries; a Builder takes any length. PrefixCursor and
// PrefixStore run them over one owner's trie among many in shared tables,
// as a node's database holds every account's storage trie.
package incremental

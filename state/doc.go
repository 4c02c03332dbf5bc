// Package state computes Ethereum state roots from go-ethereum's flat state:
// accounts in ascending order of their hashed addresses, each followed by its
// storage slots in ascending order of their hashed keys, as go-ethereum's
// snapshot holds them.
//
// Account reads and writes an account in its two encodings: the consensus
// RLP that the state trie's leaves hold, and go-ethereum's slim RLP, which
// leaves out an empty storage root and an empty code hash.
//
// A Builder takes the flat stream and returns the state root. It hashes the
// storage tries of different accounts, the parts of one large storage trie,
// and the parts of the account trie on several goroutines at once, with
// memory bounded by the number of workers, not by the state's size; it
// reports every account whose stored storage root differs from the one its
// slots give, and can report every node for a database, keyed by owner and
// path as go-ethereum's path scheme keys them. A state already held in
// memory goes to Builder.HashAll at once, whose workers read it in place.
//
// An Updater computes the state root block by block instead, from tables a
// node keeps: the flat accounts and slots, and the branch records of the
// account trie and of every storage trie (see package incremental). After
// a block it re-hashes only the changed prefixes of each storage trie the
// block touched, then of the account trie, whose leaves take the storage
// roots just worked out.
package state

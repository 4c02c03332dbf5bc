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
// path as go-ethereum's path scheme keys them.
package state

// Command trieroot computes Ethereum Merkle-Patricia trie roots from files and
// checks them against the roots that real Ethereum data claims.
//
// Usage:
//
//	trieroot kv [flags] [FILE|-]       root of KEY VALUE hex pairs, one pair a line
//	trieroot list [flags] [FILE|-]     DeriveSha root of hex items, one a line
//	trieroot payload [flags] FILE|-    rebuild an execution payload's block header and check its hash
//	trieroot state [flags] FILE|-      check a `geth dump` state dump's storage and state roots
//	trieroot geth [flags] DATADIR      check a go-ethereum database's flat state against its trie, in place
//
// Flags may come before or after the file; "-" or no file reads standard
// input where the command allows it. Hex may be written with or without 0x.
// In kv and list input, blank lines and lines starting with # are skipped.
//
// kv reads pairs in ascending key order, or in any order with --sort;
// --secure hashes each key with Keccak-256 first, as Ethereum's state and
// storage tries do, and implies --sort. list keys item i by the RLP encoding
// of i, as block headers' transactions, receipts and withdrawals roots do.
//
// payload reads a block's execution payload as JSON: a beacon-API block
// (snake_case, the payload at message.body.execution_payload, signed or
// not, alone or in a GET /eth/v2/beacon/blocks response), or an engine-API
// ExecutionPayload V1 to V3 (camelCase), alone, as engine_newPayload's
// params or JSON-RPC request, or as an engine_getPayload response. It
// computes the transactions and withdrawals roots and the requests hash,
// rebuilds the header of Paris to Prague blocks, and checks its hash against
// the payload's blockHash. The fork follows from the fields present, with
// execution requests marking Prague; a payload field of a later fork is an
// error. From Cancun on the header holds the parent beacon block root: it
// comes from the beacon block, from newPayload's params, or from
// --parent-beacon-root. --fork prague reads a bare V3 payload as Prague's,
// with no requests.
//
// state reads a state dump as go-ethereum writes it, recomputes each
// account's storage root from its storage, builds the state trie and checks
// its root against the dump's. It tells the two forms apart by their start:
// `geth dump --iterative` writes one JSON account a line, in hashed-key
// order, and a root line, and memory grows with the largest account, not
// with the dump; --sort takes such lines in any order, holding every
// account's key and leaf (about 150 bytes an account) to sort them.
// `geth dump` writes one JSON object, {"root", "accounts"}, the accounts
// filed by address (or by pre(HASH) without a preimage): it is read whole
// into memory, as geth builds it whole, and its accounts are sorted by
// hashed key. geth writes storage slots by their keys, not hashed, and
// leaves out those it has no preimage for, so that such an account's
// storage root does not check; an account dumped with no slot at all
// (--nostorage, or no preimages) is counted as unchecked.
//
// geth opens a go-ethereum node's database read-only, where it lies: the
// data directory (its geth/chaindata) or the chaindata folder itself, in
// pebble as go-ethereum writes it, and refuses one that a running node
// holds. It finds the trie scheme as go-ethereum does, streams the flat
// state (the snapshot: accounts, each followed by its storage slots) through
// state.Builder on every core, and compares the root with the one the trie
// holds: the hash of the account trie's root node (path scheme) or the
// snapshot's root (hash scheme). It prints the counts, every account whose
// slots do not give the storage root it holds, the root, the trie's root,
// whether they match, and the throughput. When the roots differ it walks the
// stored account trie beside the flat accounts and names the first accounts
// whose leaf differs, are missing from the flat state, or from the trie.
//
// Common flags: --json prints the result as one JSON object; --quiet prints
// only the root (kv, list) or nothing (payload, state). kv, list and state
// also take --nodes FILE, which writes every node a database would store as
// a "path hash blob" line (path in nibbles, one hex digit each, "-" for the
// root), and --proof KEY, repeatable, which prints the Merkle proof of KEY
// and the value it proves: for kv a key as the input writes it (hashed too
// with --secure), for list an index, for state an address or its hash.
// kv and state take --workers N, which hashes on N cores (0 for all): the
// same root and nodes, faster where keys spread over the key space, as
// hashed keys do. geth takes --workers too, all cores by default.
//
// On a terminal, reading an input that takes more than a second shows a
// progress bar on standard error.
//
// Exit status: 0 when all is well, 1 when the input is wrong or a root or
// hash differs from the one the input claims (for geth, the trie's), 2 for
// a wrong command line.
// An error is one line on standard error, "file:line: what is wrong" where
// it has a place.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

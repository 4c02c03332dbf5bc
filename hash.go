package stacktrie

import (
	"encoding/hex"
	"fmt"
)

// Hash is a 32-byte Keccak-256 digest: a trie root or the hash of a node.
type Hash [32]byte

// EmptyRoot is the root of a trie without keys: keccak256(rlp("")).
var EmptyRoot = Hash{
	0x56, 0xe8, 0x1f, 0x17, 0x1b, 0xcc, 0x55, 0xa6, 0xff, 0x83, 0x45, 0xe6, 0x92, 0xc0, 0xf8, 0x6e,
	0x5b, 0x48, 0xe0, 0x1b, 0x99, 0x6c, 0xad, 0xc0, 0x01, 0x62, 0x2f, 0xb5, 0xe3, 0x63, 0xb4, 0x21,
}

// String returns the hash as 0x-prefixed lowercase hex.
func (h Hash) String() string {
	var buf [2 + 2*len(h)]byte
	buf[0], buf[1] = '0', 'x'
	hex.Encode(buf[2:], h[:])
	return string(buf[:])
}

// Format makes %x and %X print the bytes as hex (with 0x under the '#' flag),
// as they do for a byte array, while %v, %s and %q print String(). Width,
// precision and flags apply as they do to those.
func (h Hash) Format(s fmt.State, verb rune) {
	switch verb {
	case 'x', 'X':
		fmt.Fprintf(s, fmt.FormatString(s, verb), h[:])
	case 'v', 's', 'q':
		fmt.Fprintf(s, fmt.FormatString(s, verb), h.String())
	default:
		fmt.Fprintf(s, "%%!%c(stacktrie.Hash=%s)", verb, h.String())
	}
}

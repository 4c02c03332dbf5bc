package incremental

// This file reads the node blobs a stacktrie.Trie reports, which are
// canonical RLP, just far enough to tell a branch's children apart: empty,
// a 32-byte hash, or a node embedded in its parent. It never panics, even
// on bytes no trie would write.

import "github.com/stacktrie/stacktrie/internal/rlp"

// splitItem reads the RLP item at the start of b, with the module's one
// strict reader: whether it is a list, its payload, and the bytes after
// it; ok is false if b does not start with a whole, canonical item.
func splitItem(b []byte) (list bool, payload, rest []byte, ok bool) {
	list, payload, rest, err := rlp.Split(b)
	return list, payload, rest, err == nil
}

// isExtension reports whether a two-item node, whose first item is path,
// is an extension rather than a leaf: the hex-prefix flag's leaf bit.
func isExtension(path []byte) bool {
	return len(path) > 0 && path[0]>>4&0x2 == 0
}

// appendCompactNibbles appends the nibbles of a hex-prefix encoded path,
// one a byte: those after the flag nibble, and its padding if the path is
// even.
func appendCompactNibbles(dst, compact []byte) []byte {
	if len(compact) == 0 {
		return dst
	}
	if compact[0]>>4&0x1 != 0 {
		dst = append(dst, compact[0]&0x0f)
	}
	for _, c := range compact[1:] {
		dst = append(dst, c>>4, c&0x0f)
	}
	return dst
}

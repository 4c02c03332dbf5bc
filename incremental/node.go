package incremental

// This file reads the node blobs a stacktrie.Trie reports, which are
// canonical RLP, just far enough to tell a branch's children apart: empty,
// a 32-byte hash, or a node embedded in its parent. It never panics, even
// on bytes no trie would write.

const (
	rlpString = 0x80
	rlpList   = 0xc0
	// rlpShort is the longest payload whose size fits in the header byte.
	rlpShort = 55
)

// splitItem reads the RLP item at the start of b: whether it is a list,
// its payload, and the bytes after it; ok is false if b does not start
// with a whole item.
func splitItem(b []byte) (list bool, payload, rest []byte, ok bool) {
	if len(b) == 0 {
		return false, nil, nil, false
	}
	h := b[0]
	var header, size int
	switch {
	case h < rlpString:
		return false, b[:1], b[1:], true
	case h <= rlpString+rlpShort:
		header, size, ok = 1, int(h-rlpString), true
	case h < rlpList:
		header, size, ok = longItem(b, int(h-rlpString-rlpShort))
	case h <= rlpList+rlpShort:
		list, header, size, ok = true, 1, int(h-rlpList), true
	default:
		list = true
		header, size, ok = longItem(b, int(h-rlpList-rlpShort))
	}
	if !ok || size > len(b)-header {
		return false, nil, nil, false
	}
	return list, b[header : header+size], b[header+size:], true
}

// longItem reads the header of an item whose size takes n bytes after the
// first: the header's length and the payload's size.
func longItem(b []byte, n int) (header, size int, ok bool) {
	if n > len(b)-1 || n > 4 {
		return 0, 0, false
	}
	for _, c := range b[1 : 1+n] {
		size = size<<8 | int(c)
	}
	return 1 + n, size, true
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

package reftrie

// rlpString encodes b as an RLP string.
func rlpString(b []byte) []byte {
	if len(b) == 1 && b[0] < 0x80 {
		return []byte{b[0]}
	}
	return append(rlpHeader(0x80, len(b)), b...)
}

// rlpList encodes already-encoded items as an RLP list.
func rlpList(items ...[]byte) []byte {
	var payload []byte
	for _, it := range items {
		payload = append(payload, it...)
	}
	return append(rlpHeader(0xc0, len(payload)), payload...)
}

// rlpHeader returns the prefix for a payload of length n; base is 0x80 for
// strings and 0xc0 for lists. Payloads over 55 bytes carry their length as a
// big-endian number whose own size goes in the first byte (base+55+size).
func rlpHeader(base byte, n int) []byte {
	if n <= 55 {
		return []byte{base + byte(n)}
	}
	var be []byte
	for x := n; x > 0; x >>= 8 {
		be = append([]byte{byte(x)}, be...)
	}
	return append([]byte{base + 55 + byte(len(be))}, be...)
}

// hexPrefix packs a nibble path into bytes (Yellow Paper appendix C). The
// flag nibble is 2 for a leaf, 0 for an extension, plus 1 when the count is
// odd; an odd path puts its first nibble beside the flag, an even one pads
// the flag byte with a zero nibble.
func hexPrefix(nibbles []byte, leaf bool) []byte {
	flag := byte(0)
	if leaf {
		flag = 2
	}
	var out []byte
	if len(nibbles)%2 == 1 {
		out = append(out, (flag+1)<<4|nibbles[0])
		nibbles = nibbles[1:]
	} else {
		out = append(out, flag<<4)
	}
	for i := 0; i < len(nibbles); i += 2 {
		out = append(out, nibbles[i]<<4|nibbles[i+1])
	}
	return out
}

// KeyNibbles splits each byte of key into two nibbles, high nibble first.
func KeyNibbles(key []byte) []byte {
	out := make([]byte, 0, 2*len(key))
	for _, b := range key {
		out = append(out, b>>4, b&0x0f)
	}
	return out
}

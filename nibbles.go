package stacktrie

// A key takes three forms in this package:
//
//   - packed: bytes as the caller gives them, two nibbles a byte, high
//     nibble first. Keys are kept packed; so is the nibble path of a mounted
//     branch (packNibbles), whose last byte is then half used.
//   - one nibble a byte (0 to 15): the paths NodeFunc reports and
//     UpdateBranch takes, and ProofSet's targets (appendNibbles).
//   - hex-prefix (compact): how a leaf or extension encodes its share of the
//     path, a flag nibble first (encoder.go writes it, decode.go reads it).
//
// nibble reads a packed key by nibble index, so that the spine works on
// packed keys without converting them.

// nibble returns the i-th nibble of the packed key, high nibble first.
func nibble(key []byte, i int) byte {
	b := key[i>>1]
	if i&1 == 0 {
		return b >> 4
	}
	return b & 0x0f
}

// appendNibbles appends the nibbles of the packed key, one a byte.
func appendNibbles(dst, key []byte) []byte {
	for _, b := range key {
		dst = append(dst, b>>4, b&0x0f)
	}
	return dst
}

// appendNibblePrefix appends the first n nibbles of the packed key, one a byte.
func appendNibblePrefix(dst, key []byte, n int) []byte {
	dst = appendNibbles(dst, key[:n/2])
	if n&1 == 1 {
		dst = append(dst, key[n/2]>>4)
	}
	return dst
}

// packNibbles appends nibbles, one a byte, packed two to a byte.
func packNibbles(dst, nibbles []byte) []byte {
	for i := 0; i < len(nibbles); i += 2 {
		b := nibbles[i] << 4
		if i+1 < len(nibbles) {
			b |= nibbles[i+1]
		}
		dst = append(dst, b)
	}
	return dst
}

package incremental

// This file compares keys, which are bytes, with nibble paths, which hold
// a nibble a byte, without spelling keys out: the walker does it for every
// leaf it reads.

// keyNibble returns nibble i of key.
func keyNibble(key []byte, i int) byte {
	if i&1 == 0 {
		return key[i/2] >> 4
	}
	return key[i/2] & 0x0f
}

// comparePrefix compares the first len(path) nibbles of key with path: 0
// when key starts with path, -1 when key sorts before every key that does,
// +1 when after. key must hold at least len(path) nibbles.
func comparePrefix(key, path []byte) int {
	for i, n := range path {
		if k := keyNibble(key, i); k != n {
			if k < n {
				return -1
			}
			return 1
		}
	}
	return 0
}

// appendPacked appends path packed two nibbles a byte, an odd last nibble
// in the high half: the least key that starts with path.
func appendPacked(dst, path []byte) []byte {
	for i := 0; i+1 < len(path); i += 2 {
		dst = append(dst, path[i]<<4|path[i+1])
	}
	if len(path)&1 == 1 {
		dst = append(dst, path[len(path)-1]<<4)
	}
	return dst
}

// validPath reports whether path is a branch path among keys of keyLen
// bytes: nibbles only, and shorter than a key's nibbles.
func validPath(path []byte, keyLen int) bool {
	if len(path) >= 2*keyLen {
		return false
	}
	var high byte // the bits above a nibble's, of any byte
	for _, n := range path {
		high |= n
	}
	return high <= 0x0f
}

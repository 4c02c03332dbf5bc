package stacktrie

// This file keeps each Trie's small buffers on cache lines of their own.
// Tries built side by side on different cores write their buffers at every
// update. Two small buffers of different Tries that share a 64-byte line
// make the line move between the cores at every write: two Tries made one
// after the other, then built at once on two goroutines, took as long as
// building them one after the other, or longer (BenchmarkTwoTries).
//
// Go's allocator puts a byte slice, which has no header, in the smallest
// size class that holds it, and starts every object of a class at a
// multiple of the class's size from a page boundary; every multiple of 64
// bytes up to 512 is a class, every class from 512 bytes to 32 KiB is a
// multiple of 64, and a larger object gets pages of its own. So a buffer
// whose capacity is a whole number of lines shares its lines with nothing
// else. TestBuffersOnOwnLines checks that this still holds.

// cacheLine is the size of a cache line on the CPUs this package runs on.
const cacheLine = 64

// wholeLines rounds n up to whole cache lines.
func wholeLines(n int) int {
	return (n + cacheLine - 1) &^ (cacheLine - 1)
}

// readSpare is the capacity setOwnLines leaves past a buffer's contents:
// room for putLeafItems to read a key's or a value's last bytes as one
// 32-byte word.
const readSpare = 32

// setOwnLines copies src over the contents of *buf, which it reslices to
// src's length; when src and readSpare more bytes do not fit, *buf is
// replaced by a buffer of whole cache lines of its own, at least twice as
// large. It works in place, so that the common case stores a length, not a
// whole slice: Update copies a key and a value at every pair, and storing
// both slices back whole cost Insert100K's keys 3% more instructions (make
// instructions). A hashed key, or a value of one word, is copied as two
// 16-byte words without memmove's call.
func setOwnLines(buf *[]byte, src []byte) {
	if len(src)+readSpare > cap(*buf) {
		*buf = make([]byte, 0, wholeLines(max(len(src)+readSpare, 2*cap(*buf))))
	}
	*buf = (*buf)[:len(src)]
	if len(src) == 32 {
		copy32(*buf, src)
		return
	}
	copy(*buf, src)
}

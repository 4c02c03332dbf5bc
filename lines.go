package stacktrie

// This file keeps each Trie's small buffers on cache lines of their own.
// Tries built side by side on different cores (Parallel, the state package's
// workers) write their buffers at every update. Two small buffers of
// different Tries that share a 64-byte line make the line move between the
// cores at every write: two Tries built at once, each on its own goroutine,
// took longer than the same two built one after the other. The runtime's
// allocator puts a byte slice in the smallest size class that holds it and
// starts every object of a class at a multiple of the class's size from a
// page boundary; every multiple of 64 bytes up to 512 is a class, and every
// class from 512 bytes up is a multiple of 64. So a buffer whose capacity is
// a whole number of lines shares its lines with nothing else.

// cacheLine is the size of a cache line on the CPUs this package runs on.
const cacheLine = 64

// wholeLines rounds n up to whole cache lines.
func wholeLines(n int) int {
	return (n + cacheLine - 1) &^ (cacheLine - 1)
}

// appendOwnLines appends src to dst like append, but grows dst into whole
// cache lines of its own.
func appendOwnLines(dst, src []byte) []byte {
	if n := len(dst) + len(src); n > cap(dst) {
		grown := make([]byte, len(dst), wholeLines(max(n, 2*cap(dst))))
		copy(grown, dst)
		dst = grown
	}
	return append(dst, src...)
}

package stacktrie

import (
	"reflect"
	"testing"
	"unsafe"
)

// TestBuffersOnOwnLines checks what lines.go relies on: the buffers a Trie
// writes at every update start on a cache line and end on one, whatever the
// size of the keys and values they hold, so that no other object shares
// their lines.
func TestBuffersOnOwnLines(t *testing.T) {
	onOwnLines := func(name string, b []byte) {
		t.Helper()
		if start := uintptr(unsafe.Pointer(unsafe.SliceData(b))); start%cacheLine != 0 || cap(b)%cacheLine != 0 {
			t.Fatalf("%s of %d bytes: starts at line offset %d, capacity %d", name, len(b), start%cacheLine, cap(b))
		}
	}
	for size := 1; size <= 1100; size++ {
		tr := New(nil)
		key := make([]byte, size)
		if err := tr.Update(key, key); err != nil {
			t.Fatal(err)
		}
		onOwnLines("key", tr.last.key)
		onOwnLines("value", tr.last.value)
		// A key that the next one extends leaves its value in a frame.
		if err := tr.Update(append(key, 1), key); err != nil {
			t.Fatal(err)
		}
		f := tr.frames[len(tr.frames)-1]
		if !f.hasValue || len(f.value) != size {
			t.Fatalf("the frame holds no value of %d bytes", size)
		}
		onOwnLines("frame value", f.value)
	}
}

// TestSpongesApart checks that the sponges of hashers made one after the
// other, as two Tries make them, share no cache line: x/crypto's sponge is
// not a whole number of lines, and only the neighbour newHasher allocates
// after it keeps the next sponge off its last line.
func TestSpongesApart(t *testing.T) {
	lines := func(h hasher) (first, last uintptr) {
		start := reflect.ValueOf(h.state).Pointer()
		return start / cacheLine, (start + reflect.TypeOf(h.state).Elem().Size() - 1) / cacheLine
	}
	for range 100 {
		a, b := newHasher(), newHasher()
		aFirst, aLast := lines(a)
		bFirst, bLast := lines(b)
		if aFirst <= bLast && bFirst <= aLast {
			t.Fatalf("sponges on lines %d-%d and %d-%d", aFirst, aLast, bFirst, bLast)
		}
	}
}

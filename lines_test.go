package stacktrie

import (
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

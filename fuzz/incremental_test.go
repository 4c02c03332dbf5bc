package fuzz

import (
	"bytes"
	"testing"

	"github.com/stacktrie/stacktrie/incremental"
	"github.com/stacktrie/stacktrie/internal/reftrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

// FuzzIncremental runs blocks of changes drawn from the input on a flat
// state of keys of one length (1 to 4 bytes, from the first input byte,
// so that nodes are dense, short and often embedded): after each block,
// incremental's Root over the stored branches must give the reference
// trie's root, and the store, updated with what Root stored, must hold
// exactly what Build gives for the new leaves.
//
// Each change is an op byte, a key, and for a write a value length byte
// and the value. The op byte's low bits say: write, delete, delete every
// key under the key's first nibble, or end the block. At most maxBlocks
// blocks run, so that no input takes long.
func FuzzIncremental(f *testing.F) {
	f.Add([]byte{1, 0, 0x12, 3, 'a', 'b', 'c', 0, 0x13, 1, 'x', 3, 0, 0x12, 2, 0x12, 3})
	f.Add([]byte{2, 0, 0x12, 0x34, 40, 0, 0x12, 0x35, 40, 0, 0x22, 0x35, 1, 7, 3, 2, 0x10, 0, 3, 0, 0x12, 0x36, 2, 1, 2})
	f.Add([]byte{4, 0, 1, 2, 3, 4, 33, 0, 1, 2, 3, 5, 33, 0, 1, 2, 4, 5, 33, 3, 1, 1, 2, 3, 5})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		keyLen := 1 + int(data[0]%4)
		data = data[1:]
		builder := incremental.NewBuilder(keyLen)
		state := map[string][]byte{}
		leaves, branches := &incremental.Table{}, &incremental.Table{}
		for blocks := 0; len(data) > 0 && blocks < maxBlocks; blocks++ {
			var changes map[string][]byte
			changes, data = decodeBlock(data, keyLen, state)
			changed := testgen.ApplyChanges(state, changes, leaves.Put)
			root, err := builder.Root(branches, leaves, changed, branches.Write)
			if err != nil {
				t.Fatal(err)
			}
			ref := reftrie.New()
			for k, v := range state {
				ref.Put([]byte(k), v)
			}
			if want := ref.Root(); root != want {
				t.Fatalf("root %x, reference %x", root, want)
			}
			built := map[string][]byte{}
			if _, err := incremental.NewBuilder(keyLen).Build(leaves, func(path, branch []byte) {
				built[string(path)] = bytes.Clone(branch)
			}); err != nil {
				t.Fatal(err)
			}
			if branches.Len() != len(built) {
				t.Fatalf("%d branches stored, Build gives %d", branches.Len(), len(built))
			}
			for path, record := range branches.All() {
				if !bytes.Equal(built[string(path)], record) {
					t.Fatalf("branch at %x: stored %x, Build gives %x", path, record, built[string(path)])
				}
			}
		}
	})
}

// maxBlocks bounds the blocks of one FuzzIncremental input.
const maxBlocks = 32

// decodeBlock reads one block's changes off data and returns the rest.
func decodeBlock(data []byte, keyLen int, state map[string][]byte) (map[string][]byte, []byte) {
	changes := map[string][]byte{}
	for len(data) > 0 {
		op := data[0] % 4
		data = data[1:]
		if op == 3 || len(data) < keyLen {
			return changes, data
		}
		key := data[:keyLen]
		data = data[keyLen:]
		switch op {
		case 0:
			n := 1
			if len(data) > 0 {
				n, data = 1+int(data[0]%48), data[1:]
			}
			value := bytes.Repeat([]byte{key[0] ^ byte(n)}, n)
			changes[string(key)] = value
		case 1:
			changes[string(key)] = nil
		case 2:
			for k := range state {
				if k[0]>>4 == key[0]>>4 {
					changes[k] = nil
				}
			}
		}
	}
	return changes, data
}

// FuzzBranchUnmarshal gives arbitrary bytes to Branch.UnmarshalBinary: it
// must never panic, and what it accepts must encode back to the input.
func FuzzBranchUnmarshal(f *testing.F) {
	f.Add([]byte{0, 3, 0, 0, 0, 1, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa,
		0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa})
	f.Add([]byte{0, 3, 0, 1, 0, 0})
	f.Add([]byte{0xff, 0xff, 0, 1, 0, 0, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		var b incremental.Branch
		if err := b.UnmarshalBinary(data); err != nil {
			return
		}
		back, err := b.MarshalBinary()
		if err != nil || !bytes.Equal(back, data) {
			t.Fatalf("%x decodes to %+v, which encodes to %x (%v)", data, b, back, err)
		}
	})
}

package incremental

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/testgen"
)

// masks encodes three masks as the first six bytes of a record.
func masks(state, tree, hash uint16) []byte {
	b := binary.BigEndian.AppendUint16(nil, state)
	b = binary.BigEndian.AppendUint16(b, tree)
	return binary.BigEndian.AppendUint16(b, hash)
}

func TestBranchRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(testgen.Seed(t), 1))
	for range 1000 {
		var b Branch
		b.StateMask = uint16(r.Uint32())
		b.HashMask = b.StateMask & uint16(r.Uint32())
		b.TreeMask = b.StateMask & uint16(r.Uint32())
		for m := b.HashMask; m != 0; m &= m - 1 {
			i := 0
			for m>>i&1 == 0 {
				i++
			}
			for j := range b.Hashes[i] {
				b.Hashes[i][j] = byte(r.Uint32())
			}
		}
		enc, err := b.MarshalBinary()
		if checkMasks(b.StateMask, b.TreeMask, b.HashMask) != nil {
			assert.ErrorIs(t, err, ErrBranchEncoding, "masks %+v", b)
			continue
		}
		require.NoError(t, err)
		require.Len(t, enc, b.EncodedLen())
		var back Branch
		back.Hashes[0] = stacktrie.Hash{0xff} // stale content must be cleared
		require.NoError(t, back.UnmarshalBinary(enc))
		assert.Equal(t, b, back)
	}
}

func TestBranchLayout(t *testing.T) {
	b := Branch{StateMask: 0b1000_0000_0010_0001, TreeMask: 0b1, HashMask: 0b1000_0000_0000_0001}
	b.Hashes[0] = stacktrie.Hash{0xaa}
	b.Hashes[5] = stacktrie.Hash{0xbb} // not in the hash mask: not written
	b.Hashes[15] = stacktrie.Hash{0xcc}
	enc, err := b.AppendBinary([]byte{0x01})
	require.NoError(t, err)
	want := append([]byte{0x01, 0x80, 0x21, 0x00, 0x01, 0x80, 0x01}, b.Hashes[0][:]...)
	want = append(want, b.Hashes[15][:]...)
	assert.Equal(t, want, enc, "masks big-endian state, tree, hash; then the hashes in nibble order")
}

func TestBranchUnmarshalRefuses(t *testing.T) {
	hash := bytes.Repeat([]byte{7}, 32)
	valid := append(masks(0b11, 0, 0b01), hash...)
	tests := []struct {
		name string
		data []byte
	}{
		{"nil", nil},
		{"under the masks", valid[:5]},
		{"a hash cut short", valid[:len(valid)-1]},
		{"a byte after the hashes", append(bytes.Clone(valid), 0)},
		{"a hash missing", masks(0b11, 0, 0b11)},
		{"hashes without hash bits", append(masks(0b11, 0b01, 0), hash...)},
		{"one child", append(masks(0b01, 0, 0b01), hash...)},
		{"no child", masks(0, 0, 0)},
		{"hash bit outside state", append(masks(0b110, 0, 0b001), hash...)},
		{"tree bit outside state", masks(0b11, 0b100, 0)},
		{"neither tree nor hash bit", masks(0b11, 0, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := Branch{StateMask: 1, HashMask: 2}
			before := b
			err := b.UnmarshalBinary(tt.data)
			assert.ErrorIs(t, err, ErrBranchEncoding)
			assert.Equal(t, before, b, "a refused encoding changes nothing")
		})
	}
	var b Branch
	require.NoError(t, b.UnmarshalBinary(valid), "the valid form the cases are cut from")
	assert.Equal(t, stacktrie.Hash(hash), b.Hashes[0])
}

func TestBranchAppendRefusesInvalid(t *testing.T) {
	b := Branch{StateMask: 0b11, HashMask: 0b100}
	dst := []byte{9}
	got, err := b.AppendBinary(dst)
	assert.ErrorIs(t, err, ErrBranchEncoding)
	assert.Equal(t, []byte{9}, got)
}

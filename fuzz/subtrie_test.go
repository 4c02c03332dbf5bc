package fuzz

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/internal/reftrie"
)

// subtrieForm is the binary form of a Subtrie as MarshalBinary documents it,
// read here on its own terms: a form byte (0 empty, 1 a pair, 2 a branch)
// and, for a pair or a branch, two fields (key and value, or path and
// reference), each a uvarint length and that many bytes, and nothing after.
type subtrieForm struct {
	form          byte
	first, second []byte
	minimal       bool // every length in its shortest uvarint form
}

// readSubtrieForm parses data; ok is false if it does not have the form.
func readSubtrieForm(data []byte) (f subtrieForm, ok bool) {
	if len(data) == 0 || data[0] > 2 {
		return f, false
	}
	f.form, f.minimal = data[0], true
	rest := data[1:]
	if f.form == 0 {
		return f, len(rest) == 0
	}
	var fields [2][]byte
	for i := range fields {
		n, size := binary.Uvarint(rest)
		if size <= 0 || n > uint64(len(rest)-size) {
			return f, false
		}
		if size != len(binary.AppendUvarint(nil, n)) {
			f.minimal = false
		}
		fields[i] = rest[size : size+int(n)]
		rest = rest[size+int(n):]
	}
	f.first, f.second = fields[0], fields[1]
	return f, len(rest) == 0
}

// validBranch says whether a branch may be mounted, as ErrInvalidBranch
// documents it: every nibble of the path at most 15, and the reference a
// 32-byte hash or the RLP list of a node under 32 bytes (a one-byte list
// header that counts the bytes after it).
func validBranch(path, ref []byte) bool {
	for _, n := range path {
		if n > 15 {
			return false
		}
	}
	switch {
	case len(ref) == 32:
		return true
	case len(ref) == 0 || len(ref) > 32:
		return false
	}
	return ref[0] >= 0xc0 && int(ref[0])-0xc0 == len(ref)-1
}

// FuzzSubtrieUnmarshal decodes arbitrary bytes as a Subtrie. It must never
// panic; it must refuse exactly the bytes that are not a Subtrie's binary
// form (ErrSubtrieEncoding), that hold a pair without a value (also
// ErrSubtrieEncoding) or a branch that cannot be mounted (ErrInvalidBranch);
// what it accepts must be the fields the bytes hold, MarshalBinary must give
// the same bytes back, and Mount must take it. A length written in more
// bytes than needed (0x81 0x00 for 1) is not the binary form: refused.
func FuzzSubtrieUnmarshal(f *testing.F) {
	hash := bytes.Repeat([]byte{0xab}, 32)
	f.Add([]byte{})
	f.Add([]byte{0})
	f.Add([]byte{0, 0})
	f.Add([]byte{1, 1, 'k', 1, 'v'})
	f.Add([]byte{1, 0, 1, 'v'})
	f.Add([]byte{1, 1, 'k', 0})
	f.Add([]byte{1, 1, 'k', 1, 'v', 0})
	f.Add([]byte{1, 5, 'k'})
	f.Add([]byte{1, 0x81, 0x00, 'k', 1, 'v'})
	f.Add(append([]byte{2, 2, 3, 15, 32}, hash...))
	f.Add(append([]byte{2, 0, 32}, hash...))
	f.Add(append([]byte{2, 1, 16, 32}, hash...))
	f.Add([]byte{2, 1, 0, 4, 0xc3, 0x80, 0x80, 0x80})
	f.Add([]byte{2, 1, 0, 4, 0xc4, 0x80, 0x80, 0x80})
	f.Add([]byte{3, 1, 'k', 1, 'v'})
	f.Fuzz(func(t *testing.T, data []byte) {
		var s stacktrie.Subtrie
		err := s.UnmarshalBinary(data)
		form, ok := readSubtrieForm(data)
		var want error
		switch {
		case !ok || !form.minimal:
			want = stacktrie.ErrSubtrieEncoding
		case form.form == 1 && len(form.second) == 0:
			want = stacktrie.ErrSubtrieEncoding
		case form.form == 2 && !validBranch(form.first, form.second):
			want = stacktrie.ErrInvalidBranch
		}
		if want != nil {
			if !errors.Is(err, want) {
				t.Fatalf("%x: got %v, want %v", data, err, want)
			}
			return
		}
		if err != nil {
			t.Fatalf("%x: %v", data, err)
		}

		var fields stacktrie.Subtrie
		switch form.form {
		case 1:
			fields = stacktrie.Subtrie{Key: form.first, Value: form.second}
		case 2:
			fields = stacktrie.Subtrie{Path: form.first, Ref: form.second}
		}
		if !bytes.Equal(s.Key, fields.Key) || (s.Key == nil) != (fields.Key == nil) || !bytes.Equal(s.Value, fields.Value) ||
			!bytes.Equal(s.Path, fields.Path) || (s.Ref == nil) != (fields.Ref == nil) || !bytes.Equal(s.Ref, fields.Ref) {
			t.Fatalf("%x decodes to %+v, want %+v", data, s, fields)
		}
		if s.IsEmpty() != (form.form == 0) {
			t.Fatalf("%x: IsEmpty %t for form %d", data, s.IsEmpty(), form.form)
		}

		back, err := s.MarshalBinary()
		if err != nil {
			t.Fatalf("%+v: MarshalBinary: %v", s, err)
		}
		if !bytes.Equal(back, data) {
			t.Fatalf("%x decodes to %+v, which encodes to %x", data, s, back)
		}

		// Mount takes what UnmarshalBinary accepts. Alone in a trie, a pair
		// gives the reference trie's root; a branch at the root is the root.
		tr := stacktrie.New(nil)
		if err := s.Mount(tr); err != nil {
			t.Fatalf("%+v: Mount: %v", s, err)
		}
		root := tr.Hash()
		switch {
		case form.form == 0 && root != stacktrie.EmptyRoot:
			t.Fatalf("empty subtrie mounted: root %v", root)
		case form.form == 1:
			ref := reftrie.New()
			ref.Put(s.Key, s.Value)
			if want := stacktrie.Hash(ref.Root()); root != want {
				t.Fatalf("%+v mounted: root %v, want %v", s, root, want)
			}
		case form.form == 2 && len(s.Path) == 0 && len(s.Ref) == 32 && !bytes.Equal(root[:], s.Ref):
			t.Fatalf("%+v mounted at the root: root %v", s, root)
		case form.form == 2 && len(s.Path) == 0 && len(s.Ref) < 32 && root != keccak(s.Ref):
			t.Fatalf("%+v mounted at the root: root %v, want the hash of its RLP", s, root)
		}
	})
}

package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/state"
)

// TestStateStreamMemory: `trieroot state` over `geth dump --iterative`
// lines holds one account at a time, so the live heap does not grow with
// the dump; with --sort it keeps about 150 bytes an account, which the same
// measure sees.
func TestStateStreamMemory(t *testing.T) {
	const accounts = 100_000
	dump := iterativeDump(accounts)
	grew := func(args ...string) uint64 {
		in := &heapSampler{r: bytes.NewReader(dump), every: 1 << 20}
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		base := m.HeapAlloc
		var stdout, stderr bytes.Buffer
		require.Equal(t, 0, run(append(args, "-"), in, &stdout, &stderr), stderr.String())
		require.Contains(t, stdout.String(), fmt.Sprint(accounts))
		return max(in.peak, base) - base
	}
	const bound = 4 << 20 // a quarter of what 100k accounts of 150 bytes need
	assert.Less(t, grew("state"), uint64(bound), "live heap grew while streaming")
	assert.Greater(t, grew("state", "--sort"), uint64(bound), "the measure misses what --sort keeps")
}

// iterativeDump returns n accounts without code or storage as `geth dump
// --iterative` lines, in hashed-key order, after the line of their root.
func iterativeDump(n int) []byte {
	type account struct{ key, address [32]byte }
	all := make([]account, n)
	for i := range all {
		binary.BigEndian.PutUint64(all[i].address[12:], uint64(i)+1)
		all[i].key = keccak256(all[i].address[12:])
	}
	slices.SortFunc(all, func(a, b account) int { return bytes.Compare(a.key[:], b.key[:]) })
	tr := stacktrie.New(nil)
	for i, a := range all {
		acc := state.Account{Nonce: uint64(i), Root: stacktrie.EmptyRoot, CodeHash: state.EmptyCodeHash}
		acc.Balance.SetUint64(uint64(i) + 1)
		if err := tr.Update(a.key[:], acc.AppendRLP(nil)); err != nil {
			panic(err)
		}
	}
	var b bytes.Buffer
	root := tr.Hash()
	fmt.Fprintf(&b, `{"root":"%s"}`+"\n", hex0x(root[:]))
	for i, a := range all {
		fmt.Fprintf(&b, `{"balance":"%d","nonce":%d,"root":"0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421","codeHash":"0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470","address":"%s","key":"%s"}`+"\n",
			i+1, i, hex0x(a.address[12:]), hex0x(a.key[:]))
	}
	return b.Bytes()
}

// heapSampler reads r and, every so many bytes, collects garbage and keeps
// the highest live heap it sees.
type heapSampler struct {
	r           io.Reader
	every, read int
	peak        uint64
}

func (s *heapSampler) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if s.read += n; s.read >= s.every {
		s.read = 0
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		s.peak = max(s.peak, m.HeapAlloc)
	}
	return n, err
}

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
		base := liveHeap()
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
	var lines bytes.Buffer
	for i, a := range all {
		acc := state.Account{Nonce: uint64(i), Root: stacktrie.EmptyRoot, CodeHash: state.EmptyCodeHash}
		acc.Balance.SetUint64(uint64(i) + 1)
		if err := tr.Update(a.key[:], acc.AppendRLP(nil)); err != nil {
			panic(err)
		}
		fmt.Fprintf(&lines, `{"balance":"%s","nonce":%d,"root":"%s","codeHash":"%s","address":"%s","key":"%s"}`+"\n",
			acc.Balance.Dec(), acc.Nonce, hex0x(acc.Root[:]), hex0x(acc.CodeHash[:]), hex0x(a.address[12:]), hex0x(a.key[:]))
	}
	root := tr.Hash()
	return append(fmt.Appendf(nil, `{"root":"%s"}`+"\n", hex0x(root[:])), lines.Bytes()...)
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
		s.peak = max(s.peak, liveHeap())
	}
	return n, err
}

// liveHeap collects garbage and returns the bytes of heap still in use.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

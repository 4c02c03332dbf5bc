package incremental

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRecordsSortByPath sorts random paths, many of them prefixes of one
// another or sharing their first fifteen nibbles, and checks the order
// against bytes.Compare's, and that each path keeps its record.
func TestRecordsSortByPath(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 50 {
		var recs records
		var paths [][]byte
		for range 300 {
			path := make([]byte, r.IntN(20))
			for i := range path {
				path[i] = byte(r.IntN(3)) * 7 // 0, 7 and 14: ties and zero padding
			}
			if len(path) >= keyNibbles && r.IntN(2) == 0 {
				copy(path, make([]byte, keyNibbles)) // long paths that part after the key's nibbles
			}
			if slices.ContainsFunc(paths, func(p []byte) bool { return bytes.Equal(p, path) }) {
				continue
			}
			paths = append(paths, path)
			recs.add(path, append([]byte("record of "), path...))
		}
		recs.sortByPath()
		slices.SortFunc(paths, bytes.Compare)
		require.Equal(t, len(paths), recs.len())
		for i, want := range paths {
			require.Equal(t, want, recs.path(i), "path %d", i)
			require.Equal(t, append([]byte("record of "), want...), recs.record(i))
		}
	}
}

package incremental

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDroppedBuilderEndsItsGoroutine checks that the goroutine Root starts
// ends once its Builder is unreachable.
func TestDroppedBuilderEndsItsGoroutine(t *testing.T) {
	runtime.GC()
	before := runtime.NumGoroutine()
	b := NewBuilder(HashedKeyLen)
	_, err := b.Root(&Table{}, &Table{}, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, before+1, runtime.NumGoroutine(), "Root feeds the trie from a goroutine")
	b = nil
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	assert.Equal(t, before, runtime.NumGoroutine())
}

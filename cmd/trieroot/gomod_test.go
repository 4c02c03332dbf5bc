package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInstallable keeps `go install github.com/stacktrie/stacktrie/cmd/trieroot@version`
// working: it refuses a module whose go.mod has replace or exclude
// directives. The local stacktrie module is put in place by go.work, which
// go install ignores.
func TestInstallable(t *testing.T) {
	gomod, err := os.ReadFile("go.mod")
	require.NoError(t, err)
	for i, line := range lines(string(gomod)) {
		fields := strings.Fields(line)
		if len(fields) > 0 {
			assert.NotContains(t, []string{"replace", "exclude"}, fields[0], "go.mod:%d: %s", i+1, line)
		}
	}
	work, err := os.ReadFile("go.work")
	require.NoError(t, err)
	assert.Contains(t, string(work), "replace github.com/stacktrie/stacktrie => ../..")
}

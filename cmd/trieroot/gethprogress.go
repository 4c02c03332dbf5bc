package main

import (
	"encoding/binary"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/stacktrie/stacktrie"
)

// keySpaceSteps is the resolution of the progress through the key space.
const keySpaceSteps = 1 << 16

// keySpaceBar shows how far a walk over hashed keys has gone: hashes are
// spread evenly, so the last one's place in the key space is the share
// done, and with it the time left.
type keySpaceBar struct {
	bar *progressbar.ProgressBar
}

func newKeySpaceBar(w io.Writer, delay time.Duration) *keySpaceBar {
	bar := progressbar.NewOptions64(keySpaceSteps,
		progressbar.OptionSetWriter(&delayedWriter{w: w, from: time.Now().Add(delay)}),
		progressbar.OptionSetDescription("accounts"),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionClearOnFinish(),
	)
	return &keySpaceBar{bar: bar}
}

// update moves the bar to the place of hash.
func (k *keySpaceBar) update(hash stacktrie.Hash) {
	k.bar.Set64(int64(binary.BigEndian.Uint64(hash[:8]) / (1 << 64 / keySpaceSteps)))
}

// finish removes the bar, if it shows.
func (k *keySpaceBar) finish() {
	k.bar.Finish()
}

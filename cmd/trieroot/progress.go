package main

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progressPolicy says whether a progress bar may be drawn, and after how
// long: a bar appears only once reading an input has taken delay.
type progressPolicy struct {
	enabled bool
	delay   time.Duration
}

// isTerminal reports whether w is a terminal, where a progress bar makes
// sense; not a pipe, a file or a test's buffer.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressReader passes reads through and counts them on a progress bar:
// bytes read of the total where the size is known (with rate and time
// left), or a running count where it is not. The bar draws from the start,
// so that its rate and times are right, but it shows only after the delay.
type progressReader struct {
	r   io.Reader
	bar *progressbar.ProgressBar
}

func newProgressReader(r io.Reader, size int64, label string, w io.Writer, delay time.Duration) *progressReader {
	bar := progressbar.NewOptions64(size,
		progressbar.OptionSetWriter(&delayedWriter{w: w, from: time.Now().Add(delay)}),
		progressbar.OptionSetDescription(label),
		progressbar.OptionShowBytes(true),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionClearOnFinish(),
	)
	return &progressReader{r: r, bar: bar}
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.bar.Add(n)
	return n, err
}

// finish removes the bar, if it shows, and stops it.
func (p *progressReader) finish() {
	p.bar.Finish()
}

// delayedWriter drops what is written to it before a time, and passes on
// what comes after.
type delayedWriter struct {
	w    io.Writer
	from time.Time
}

func (d *delayedWriter) Write(b []byte) (int, error) {
	if time.Now().Before(d.from) {
		return len(b), nil
	}
	return d.w.Write(b)
}

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// inputError is something wrong with the input, at a line of it or, when
// line is 0, with the input as a whole. It prints as "name:line: what".
type inputError struct {
	name string
	line int
	err  error
}

func (e *inputError) Error() string {
	if e.line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.name, e.line, e.err)
	}
	return fmt.Sprintf("%s: %v", e.name, e.err)
}

func (e *inputError) Unwrap() error { return e.err }

// input is an open input file, or standard input, read through a progress
// meter.
type input struct {
	name   string // the path, or "stdin", for messages
	r      *bufio.Reader
	file   *os.File // nil for standard input
	meter  *progressReader
	line   int    // the number of the line last returned by nextLine
	buf    []byte // the line being assembled when it exceeds r's buffer
	closed bool
}

// openInput opens path, or standard input for "-", and shows progress on
// stderr as e's policy says.
func (e *env) openInput(path string, quiet bool) (*input, error) {
	in := &input{name: path}
	var r io.Reader
	size := int64(-1)
	if path == "-" {
		in.name = "stdin"
		r = e.stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		if info, err := f.Stat(); err == nil && info.Mode().IsRegular() {
			size = info.Size()
		}
		in.file, r = f, f
	}
	if e.progress.enabled && !quiet {
		in.meter = newProgressReader(r, size, in.name, e.stderr, e.progress.delay)
		r = in.meter
	}
	in.r = bufio.NewReaderSize(r, 64<<10)
	return in, nil
}

// Close ends the progress bar and closes the file; it may be called again.
func (in *input) Close() error {
	if in.closed {
		return nil
	}
	in.closed = true
	if in.meter != nil {
		in.meter.finish()
	}
	if in.file != nil {
		return in.file.Close()
	}
	return nil
}

// errorf returns an inputError at the line last read.
func (in *input) errorf(format string, args ...any) error {
	return &inputError{name: in.name, line: in.line, err: fmt.Errorf(format, args...)}
}

// readAll reads the rest of the input.
func (in *input) readAll() ([]byte, error) {
	data, err := io.ReadAll(in.r)
	if err != nil {
		return nil, &inputError{name: in.name, err: err}
	}
	return data, nil
}

// nextLine returns the next line without its line ending, and io.EOF after
// the last. Lines may be of any length. The slice is valid until the next
// call.
func (in *input) nextLine() ([]byte, error) {
	in.buf = in.buf[:0]
	for {
		chunk, err := in.r.ReadSlice('\n')
		switch {
		case err == nil:
			in.line++
			if len(in.buf) > 0 {
				in.buf = append(in.buf, chunk...)
				chunk = in.buf
			}
			return trimLineEnd(chunk), nil
		case errors.Is(err, bufio.ErrBufferFull):
			in.buf = append(in.buf, chunk...)
		case errors.Is(err, io.EOF):
			in.buf = append(in.buf, chunk...)
			if len(in.buf) == 0 {
				return nil, io.EOF
			}
			in.line++
			return trimLineEnd(in.buf), nil
		default:
			return nil, &inputError{name: in.name, line: in.line + 1, err: err}
		}
	}
}

func trimLineEnd(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r"))
}

// eachLine calls f with each line that skip does not pass over, in order,
// until the input ends or f fails.
func (in *input) eachLine(skip func([]byte) bool, f func(line []byte) error) error {
	for {
		line, err := in.nextLine()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if skip(line) {
			continue
		}
		if err := f(line); err != nil {
			return err
		}
	}
}

// isBlank reports whether a line holds nothing but white space.
func isBlank(line []byte) bool {
	return len(bytes.TrimSpace(line)) == 0
}

// isBlankOrComment reports whether a kv or list line holds no data.
func isBlankOrComment(line []byte) bool {
	line = bytes.TrimSpace(line)
	return len(line) == 0 || line[0] == '#'
}

// errorAt returns an inputError at the given line.
func (in *input) errorAt(line int, format string, args ...any) error {
	return &inputError{name: in.name, line: line, err: fmt.Errorf(format, args...)}
}

//go:build unix

package main

import (
	"errors"
	"io"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// lockHolder returns the process that holds pebble's lock file at path, or
// 0 if none does. Pebble, and so geth, locks it with fcntl, which lets
// another process see the holder without taking the lock.
func lockHolder(path string) (int, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	lock := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart}
	if err := unix.FcntlFlock(f.Fd(), unix.F_GETLK, &lock); err != nil {
		return 0, err
	}
	if lock.Type == unix.F_UNLCK {
		return 0, nil
	}
	return int(lock.Pid), nil
}

// isLockBusy reports whether err is fcntl's refusal of a held lock.
func isLockBusy(err error) bool {
	return errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EACCES)
}

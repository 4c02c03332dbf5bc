//go:build !unix

package main

// lockHolder cannot name the holder of the lock here; pebble's own refusal
// to lock the database says it is in use.
func lockHolder(string) (int, error) { return 0, nil }

// isLockBusy reports whether err is the refusal of a held lock; pebble's
// message says so where the system's error cannot be told apart.
func isLockBusy(err error) bool { return false }

//go:build unix

package main

import "syscall"

// mkfifo makes a named pipe at path: a file that is not a regular one,
// in the test's own folder (never /dev/null: code that renamed over a
// non-regular file would replace the machine's, as root).
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }

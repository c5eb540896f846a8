//go:build unix

package testenv

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time (user and system, every thread) this process has
// used so far, and whether it is known. On a shared machine a launch's CPU
// time is disturbed less by other work than its wall time, so the
// simulator's benchmarks report both.
func CPUTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

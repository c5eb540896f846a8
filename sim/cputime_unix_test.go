//go:build unix

package sim_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system, every thread) this process has
// used so far. On a shared machine a launch's CPU time is disturbed less by
// other work than its wall time, so the benchmarks report both.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

//go:build !unix

package sim_test

import "time"

// cpuTime is unknown here; the benchmarks then report wall time only.
func cpuTime() (time.Duration, bool) { return 0, false }

//go:build !unix

package testenv

import "time"

// CPUTime is unknown here; benchmarks then report wall time only.
func CPUTime() (time.Duration, bool) { return 0, false }

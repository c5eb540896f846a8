package sim

import (
	"bytes"
	"os"
	"testing"
)

// TestCalibrationCopies holds each embedded microbenchmark copy to its
// recorded run: the constants are the recorded runs', never an edited
// file's.
func TestCalibrationCopies(t *testing.T) {
	for _, c := range []struct{ embedded, recorded string }{
		{"h200-atomics.csv", atomicsRecorded},
		{"h200-dram.csv", dramRecorded},
		{"h200-mechanisms.csv", mechanismsRecorded},
		{"h200-dispatch.csv", dispatchRecorded},
		{"h200-contention.csv", contentionRecorded},
		{"h200-l2reuse.csv", "../evidence/timemodel-l2reuse-h200-2026-12-04/l2reuse.csv"},
		{"h200-l2store.csv", "../evidence/timemodel-l2store-h200-2026-12-04/l2store.csv"},
		// The H100's, one call (scripts/evidence/timemodel-calib.sh).
		{"h100.csv", "../evidence/timemodel-calib-h100-2026-12-07/microbench/microbench.csv"},
		{"h100-mechanisms.csv", "../evidence/timemodel-calib-h100-2026-12-07/micro-mechanisms/mechanisms.csv"},
		{"h100-atomics.csv", "../evidence/timemodel-calib-h100-2026-12-07/micro-atomics/atomics.csv"},
		{"h100-dram.csv", "../evidence/timemodel-calib-h100-2026-12-07/micro-dram/dram.csv"},
		{"h100-dispatch.csv", "../evidence/timemodel-calib-h100-2026-12-07/dispatch/dispatch.csv"},
		{"h100-contention.csv", "../evidence/timemodel-calib-h100-2026-12-07/contention/contention.csv"},
		{"h100-l2reuse.csv", "../evidence/timemodel-l2reuse-h100-2026-12-07/l2reuse.csv"}, // with ncu's rows
		{"h100-l2store.csv", "../evidence/timemodel-calib-h100-2026-12-07/l2store/l2store.csv"},
		{"h100-copyinflight.csv", "../evidence/timemodel-copyinflight-h100-2026-12-07/copyinflight.csv"},
		{"h100-l2warm.csv", "../evidence/timemodel-l2warm-waves-h100-2026-12-07/l2warm.csv"},
	} {
		t.Run(c.embedded, func(t *testing.T) {
			want, err := os.ReadFile(c.recorded)
			if err != nil {
				t.Fatal(err)
			}
			got, err := calibFS.ReadFile("calibration/" + c.embedded)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("sim/calibration/%s is not %s: copy it", c.embedded, c.recorded)
			}
		})
	}
}

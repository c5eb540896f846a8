package chart

import (
	"fmt"
	"strconv"

	"github.com/warplab/warplab/table"
)

// CounterRow is one kernel on one matrix (Kernel as a reader should see
// its name: "thread per row"), with the simulator's global-load
// counters next to a hardware profiler's. It is how the simulator earns
// trust: where the counting rules hold, the two must agree to the sector.
type CounterRow struct {
	Matrix, Kernel          string
	SimRequests, SimSectors int64 // simulator counters (modeled)
	HWRequests, HWSectors   int64 // the profiler's, e.g. Nsight Compute's l1tex__t_{requests,sectors}_pipe_lsu_mem_global_op_ld.sum
	Note                    string
}

// Agreement says how the simulator's counts compare with the hardware's:
// "exact" when requests and sectors both match, else the sectors'
// difference relative to the hardware ("+6.8%"), with "requests differ"
// when they do.
func Agreement(simReq, simSec, hwReq, hwSec int64) string {
	if simReq == hwReq && simSec == hwSec {
		return "exact"
	}
	s := "n/a"
	if hwSec > 0 {
		s = strconv.FormatFloat(100*float64(simSec-hwSec)/float64(hwSec), 'f', 1, 64) + "%"
		if simSec >= hwSec {
			s = "+" + s
		}
	}
	if simReq != hwReq {
		s += ", requests differ"
	}
	return s
}

// Thousands prints n with thousands separators (1,048,576), as the lesson
// tables print counts (table.Count), so that a reader can compare them at
// a glance.
func Thousands(n int64) string { return table.Count(n) }

// Line is the row as one sentence, "even thread per row: simulator
// 819,200 / 18,202,594, ncu 819,200 / 18,202,594: exact", which a notebook
// prints beside the table (plots.SimVsHardware) so that its checks can read
// the numbers.
func (r CounterRow) Line() string {
	return fmt.Sprintf("%s %s: simulator %s / %s, ncu %s / %s: %s", r.Matrix, r.Kernel,
		Thousands(r.SimRequests), Thousands(r.SimSectors), Thousands(r.HWRequests), Thousands(r.HWSectors),
		Agreement(r.SimRequests, r.SimSectors, r.HWRequests, r.HWSectors))
}

package plots

import (
	"fmt"

	"github.com/warplab/warplab/lessons/spmv"
)

// SpMVVsNCU pairs each simulated run of res with Nsight Compute's count for
// the same matrix and kernel (spmv.NCUSeed, spmv.NCUSuiteSparse), as rows for
// SimVsHardware; runs with no recorded count are left out. note says how the
// kernels were compiled ("as compiled (-O3)", "#pragma unroll 1").
func SpMVVsNCU(res *spmv.Result, hw []spmv.NCUCount, note string) []CounterRow {
	var rows []CounterRow
	for _, r := range res.Runs {
		c, ok := spmv.FindNCU(hw, r.Matrix, r.Kernel)
		if !ok || r.Requests == nil || r.Sectors == nil {
			continue
		}
		rows = append(rows, CounterRow{Matrix: r.Matrix, Kernel: r.Kernel, SimRequests: *r.Requests, SimSectors: *r.Sectors,
			HWRequests: c.Requests, HWSectors: c.Sectors, Note: note})
	}
	return rows
}

// Line is the row as one sentence, "even thread per row: simulator
// 819,200 / 18,202,594, ncu 819,200 / 18,202,594: exact", which a notebook
// prints beside the table so that its checks can read the numbers.
func (r CounterRow) Line() string {
	return fmt.Sprintf("%s %s: simulator %s / %s, ncu %s / %s: %s", r.Matrix, spmv.KernelLabel(r.Kernel),
		Thousands(r.SimRequests), Thousands(r.SimSectors), Thousands(r.HWRequests), Thousands(r.HWSectors),
		Agreement(r.SimRequests, r.SimSectors, r.HWRequests, r.HWSectors))
}

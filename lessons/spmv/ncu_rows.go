package spmv

import (
	"github.com/warplab/warplab/plots/chart"
)

// VsNCU pairs each simulated run of res with Nsight Compute's count for the
// same matrix and kernel (NCUSeed, NCUSuiteSparse), as rows for
// plots.SimVsHardware, kernels named as the tables name them (KernelLabel:
// "stream probe (floor)"); runs with no recorded count are left out. note
// says how the kernels were compiled ("as compiled (-O3)", "#pragma unroll
// 1").
func VsNCU(res *Result, hw []NCUCount, note string) []chart.CounterRow {
	var rows []chart.CounterRow
	for _, r := range res.Runs {
		c, ok := FindNCU(hw, r.Matrix, r.Kernel)
		if !ok || r.Requests == nil || r.Sectors == nil {
			continue
		}
		rows = append(rows, chart.CounterRow{Matrix: r.Matrix, Kernel: KernelLabel(r.Kernel), SimRequests: *r.Requests, SimSectors: *r.Sectors,
			HWRequests: c.Requests, HWSectors: c.Sectors, Note: note})
	}
	return rows
}

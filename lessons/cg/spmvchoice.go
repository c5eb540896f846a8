package cg

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/sim"
)

// VectorChoice is one row of the table behind stage 9's SpMV: one launch
// of a CSR SpMV on the simulator, with the counters that decide the group
// width W.
type VectorChoice struct {
	Kernel string `json:"kernel"`
	W      int    `json:"w"` // lanes a row
	// LaneUse is the share of lane slots that did work at the vals load
	// (active lanes ÷ 32 × requests): a row of 27 entries fills 27 of
	// W·⌈27/W⌉ slots.
	LaneUse float64 `json:"lane_use"`
	// Requests and Sectors are summed over the global loads; SectorsPerRequest
	// is their ratio, ExcessiveShare the counters' excessive share.
	Requests          int64   `json:"requests"`
	Sectors           int64   `json:"sectors"`
	SectorsPerRequest float64 `json:"sectors_per_request"`
	ExcessiveShare    float64 `json:"excessive_share"`
	// WarpInstructions are the warp-level instructions issued; DRAMBytes
	// the modeled DRAM traffic (read plus write).
	WarpInstructions int64 `json:"warp_instructions"`
	DRAMBytes        int64 `json:"dram_bytes"`
	// ModeledSeconds is the time model's GPU time of the launch (modeled).
	ModeledSeconds float64 `json:"modeled_seconds"`
	Bound          string  `json:"bound"`
}

// CompareVectorWidths launches stage 5's spmvCsrSubwarp (8 lanes a row)
// and stage 9's spmvCsrVector<W> for W = 1 … 32 once each on HPCCG's
// matrix at grid on dev (the simulator: counters need it) and returns their
// counters, the evidence for stage 9's default W. Every kernel multiplies
// the same x, and the caller's device keeps nothing.
func CompareVectorWidths(dev *gpuext.Device, g Grid) ([]VectorChoice, error) {
	if dev == nil || dev.Kind() != gpuext.Sim {
		return nil, fmt.Errorf("cg: CompareVectorWidths needs the simulator (its counters)")
	}
	p, err := Generate(g, GenOptions{})
	if err != nil {
		return nil, err
	}
	a, n := p.A, p.A.Rows
	m := Module()
	var bufs []interface{ Free() error }
	defer func() {
		for _, b := range bufs {
			_ = b.Free()
		}
	}()
	up32 := func(name string, v []int32) (*gpuext.Buffer[int32], error) {
		b, err := gpuext.Upload(dev, name, v)
		if err == nil {
			bufs = append(bufs, b)
		}
		return b, err
	}
	up64 := func(name string, v []float64) (*gpuext.Buffer[float64], error) {
		b, err := gpuext.Upload(dev, name, v)
		if err == nil {
			bufs = append(bufs, b)
		}
		return b, err
	}
	rowPtr, err := up32("rowPtr", a.RowPtr)
	if err != nil {
		return nil, err
	}
	cols, err := up32("cols", a.ColIdx)
	if err != nil {
		return nil, err
	}
	vals, err := up64("vals", a.Val)
	if err != nil {
		return nil, err
	}
	x, err := up64("x", p.B) // any x: the counters do not depend on its values
	if err != nil {
		return nil, err
	}
	y, err := up64("y", make([]float64, n))
	if err != nil {
		return nil, err
	}
	st, err := up64("state", []float64{0, 1, 0, 0, 0, 0})
	if err != nil {
		return nil, err
	}
	dot, err := up64("dot", make([]float64, spmvMaxBlocks))
	if err != nil {
		return nil, err
	}
	row := func(kernel string, w int, l *gpuext.Launch) VectorChoice {
		s := l.Stats
		c := spmvCounters(s)
		v := VectorChoice{Kernel: kernel, W: w, Requests: c.Requests, Sectors: c.Sectors, ExcessiveShare: c.ExcessiveShare,
			WarpInstructions: s.WarpInstructions, DRAMBytes: s.DRAMReadBytes + s.DRAMWriteBytes,
			ModeledSeconds: s.Time.GPUSeconds, Bound: s.Time.Bound}
		v.SectorsPerRequest = ratio(c.Sectors, c.Requests)
		var active, slots int64
		for _, site := range s.Sites {
			if site.Space == sim.SpaceGlobal && site.Op == sim.OpLoad && arraysOf(kernel)[siteInstr(site.Label)] == "vals" {
				active += site.ActiveLanes
				slots += 32 * site.Requests
			}
		}
		if slots > 0 {
			v.LaneUse = float64(active) / float64(slots)
		}
		return v
	}
	var out []VectorChoice
	l, err := dev.Launch(context.Background(), m.MustKernel(kSpMVSubwarp), gpuext.Config{Grid: (n*8 + 255) / 256, Block: 256}, int32(n), int32(8), rowPtr, cols, vals, x, y)
	if err != nil {
		return nil, err
	}
	out = append(out, row(kSpMVSubwarp, 8, l))
	for _, w := range []int{1, 2, 4, 8, 16, 32} {
		k := csrVectorKernel(w)
		l, err := dev.Launch(context.Background(), m.MustKernel(k), gpuext.Config{Grid: spmvBlocks(n, w), Block: dotThreads}, int32(n), rowPtr, cols, vals, x, y, st, dot)
		if err != nil {
			return nil, err
		}
		out = append(out, row(k, w, l))
	}
	return out, nil
}

// arraysOf is loadArrays without its error (a kernel without names maps
// nothing).
func arraysOf(kernel string) map[string]string {
	m, _ := loadArrays(kernel)
	return m
}

// siteInstr is the PTX instruction of a site label.
func siteInstr(label string) string {
	_, instr := siteParts(label)
	return instr
}

// VectorChoiceTable formats CompareVectorWidths' rows as a text table.
func VectorChoiceTable(rows []VectorChoice) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kernel\tW\tlane use\tsectors/request\texcessive\twarp instructions\tmodeled µs\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%.2f\t%.1f%%\t%d\t%.2f\t\n", r.Kernel, r.W, 100*r.LaneUse, r.SectorsPerRequest,
			100*r.ExcessiveShare, r.WarpInstructions, 1e6*r.ModeledSeconds)
	}
	tw.Flush()
	return b.String()
}

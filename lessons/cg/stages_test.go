package cg

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/testenv"
)

// The simulator tests run at 8³ (512 rows): all five GPU stages take about
// four seconds on two cores. 16³ and 20³ are for the command line and the
// notebook (about 30 and 60 seconds).
const testGrid = 8

// wantCounts are the copies and launches of a stage, counted by hand from
// cgLoop for `it` iterations on n rows (see each case).
type wantCounts struct {
	h2dCalls, d2hCalls, d2dCalls int
	h2dBytes, d2hBytes, d2dBytes int64
	launches                     int
	setupH2D                     int
}

func expectedCounts(stage, n, nnz, it int) wantCounts {
	vb := int64(8 * n)
	matrix := 3
	switch stage {
	case 1:
		// Before the loop one SpMV, then one per iteration; each uploads
		// p and downloads Ap. Nothing else touches the device.
		c := 1 + it
		return wantCounts{h2dCalls: c, h2dBytes: int64(c) * vb, d2hCalls: c, d2hBytes: int64(c) * vb, launches: c, setupH2D: matrix}
	case 2:
		// Each wrapper uploads its distinct input vectors and downloads
		// its output (ddot: a scalar).
		//   before: waxpby(x,x→p) 1 up; spmv 1 up; waxpby(b,Ap→r) 2 up; ddot(r,r) 1 up, 1 scalar down
		//   k = 1:  waxpby(r,r→p) 1; spmv 1; ddot(p,Ap) 2; waxpby(x,p→x) 2; waxpby(r,Ap→r) 2
		//   k ≥ 2:  ddot(r,r) 1; waxpby(r,p→p) 2; spmv 1; ddot(p,Ap) 2; 2; 2
		up := 5 + 8 + 10*(it-1)
		vecDown := 3 + 4*it        // p, Ap, r before; p, Ap, x, r per iteration
		scalarDown := 1 + 2*it - 1 // one r·r before, p·Ap every iteration, r·r from k = 2
		launches := 5 + 6 + 8*(it-1)
		return wantCounts{h2dCalls: up, h2dBytes: int64(up) * vb, d2hCalls: vecDown + scalarDown,
			d2hBytes: int64(vecDown)*vb + int64(scalarDown)*8, launches: launches, setupH2D: matrix}
	default:
		// Resident: r·r comes down before the loop and from k = 2, then x
		// once. Launches: 5 before (waxpby, spmv, waxpby, 2 ddot), 7 at
		// k = 1 (waxpby, spmv, 2 ddot, divide, 2 waxpby), 10 after (2
		// ddot, divide, waxpby, spmv, 2 ddot, divide, 2 waxpby). Stage 3
		// copies r·r to oldrtrans from k = 2; stages 4 and 5 swap.
		c := wantCounts{d2hCalls: it + 1, d2hBytes: int64(it)*8 + vb, launches: 5 + 7 + 10*(it-1), setupH2D: matrix + 2}
		if stage >= 6 {
			// Stage 7 (pipelined) launches stage 6's kernels; with
			// max_iter ending the loop it queues nothing beyond it.
			// Fused: 5 before as stage 5; k = 1: waxpby, spmv, ddotPartial,
			// ddotFinalDivide, updateXRDot; k ≥ 2: ddotFinalDivide (r·r's
			// partials came from updateXRDot), waxpby, spmv, ddotPartial,
			// ddotFinalDivide, updateXRDot.
			c.launches = 5 + 5 + 6*(it-1)
		}
		if stage == 3 {
			c.d2dCalls, c.d2dBytes = it-1, int64(8*(it-1))
		}
		if stage >= 9 {
			// The host out of the loop, max_iter ending it: 4 launches
			// before (waxpby, spmv, waxpby, ddotPartial), 3 per iteration
			// (cgBetaUpdateP, the SpMV, cgAlphaUpdateXR), replayed it
			// times. Down: the state's first two words after every batch
			// of DefaultCheckEvery but the last, then the whole state, the
			// history (max_iter − 1 entries) and x once. Setup uploads the
			// starting state too.
			replays := max(it, 1)
			checks := (replays+DefaultCheckEvery-1)/DefaultCheckEvery - 1
			c = wantCounts{d2hCalls: checks + 3, d2hBytes: int64(16*checks) + 8*stLen + int64(8*it) + vb,
				launches: 4 + 3*it, setupH2D: matrix + 3}
		}
		return c
	}
}

func TestStagesOnSimulator(t *testing.T) {
	dev := openSim(t)
	p, err := Generate(Cube(testGrid), GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n, nnz := p.A.Rows, p.A.NNZ()
	ref, err := RunStage(nil, p, 0, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res := map[int]*StageResult{0: ref}
	for s := 1; s < Stages; s++ {
		r, err := RunStage(dev, p, s, RunOptions{})
		if err != nil {
			t.Fatalf("stage %d: %v", s, err)
		}
		res[s] = r
		t.Run(StageName(s), func(t *testing.T) {
			if r.Stage != s || r.Backend != "sim" || r.Rows != n || r.NNZ != nnz || r.TimeKind != gpuext.Modeled || !strings.Contains(r.Device, "modeled") {
				t.Errorf("header: stage %d backend %q rows %d nnz %d kind %q device %q", r.Stage, r.Backend, r.Rows, r.NNZ, r.TimeKind, r.Device)
			}
			it := r.Iterations
			if it != 149 || len(r.Residuals) != it {
				t.Fatalf("%d iterations, %d residuals", it, len(r.Residuals))
			}
			// Numerics.
			c := CompareResiduals(ref, r)
			if s == 1 && !c.Identical {
				t.Errorf("stage 1 runs HPCCG's SpMV bits on the device and the rest on the CPU: want a bit-identical history, got %v", c)
			}
			if !c.WithinTolerance || c.EarlyIters < 5 {
				t.Errorf("vs stage 0: %v", c)
			}
			if r.InitialResidual != ref.InitialResidual {
				t.Errorf("initial residual %v, stage 0 %v", r.InitialResidual, ref.InitialResidual)
			}
			if r.FinalResidual > 1e-30*r.InitialResidual || r.TrueResidual > 1e-10 || r.MaxErr > 1e-13 {
				t.Errorf("final %g, true %g, max err %g", r.FinalResidual, r.TrueResidual, r.MaxErr)
			}
			// Copies and launches, exactly.
			w := expectedCounts(s, n, nnz, it)
			tr := r.Transfers
			if tr.H2DCalls != w.h2dCalls || tr.H2DBytes != w.h2dBytes || tr.D2HCalls != w.d2hCalls || tr.D2HBytes != w.d2hBytes ||
				tr.D2DCalls != w.d2dCalls || tr.D2DBytes != w.d2dBytes || r.Launches != w.launches {
				t.Errorf("transfers %+v, launches %d; want %+v", tr, r.Launches, w)
			}
			setupBytes, setupCalls := int64(4*(n+1)+12*nnz), w.setupH2D
			if s == 8 || s == 10 { // matrix-free: b and x0 only (and stage 10's state)
				setupBytes, setupCalls = 0, w.setupH2D-3
			}
			if s >= 3 {
				setupBytes += int64(16 * n)
			}
			if s >= 9 {
				setupBytes += 8 * stLen
			}
			if r.Setup.H2DCalls != setupCalls || r.Setup.H2DBytes != setupBytes || r.Setup.D2HCalls != 0 {
				t.Errorf("setup %+v, want %d calls, %d bytes", r.Setup, setupCalls, setupBytes)
			}
			// Modeled PCIe time from the model's latency and bandwidth.
			m := dev.Model()
			wantSec := float64(tr.H2DCalls+tr.D2HCalls)*m.PCIeLatency + float64(tr.H2DBytes+tr.D2HBytes)/m.PCIeBandwidth
			if s != 3 && math.Abs(tr.Seconds-wantSec) > 1e-9*wantSec || tr.TimeKind != gpuext.Modeled {
				t.Errorf("transfer time %v (%s), want %v modeled", tr.Seconds, tr.TimeKind, wantSec)
			}
			// Kernels: calls, launches, where, modeled times.
			calls := map[string]int{KernelSpMV: 1 + it, KernelWaxpby: 2 + 3*it, KernelDdot: 2 * it, KernelDivide: 2*it - 1}
			nKernels := map[bool]int{true: 4, false: 3}[s >= 3]
			if s >= 6 {
				// updateXRDot is one waxpby call for two updates; the
				// divides ride in ddotFinalDivide.
				calls[KernelWaxpby], nKernels = 2+2*it, 3
			}
			if s >= 9 {
				// cgBetaUpdateP and cgAlphaUpdateXR are waxpby calls; the
				// one ddot is the partials of r·r before the loop.
				calls = map[string]int{KernelSpMV: 1 + it, KernelWaxpby: 2 + 2*it, KernelDdot: 1}
			}
			launches := 0
			for _, k := range r.Kernels {
				if k.Calls != calls[k.Name] {
					t.Errorf("%s: %d calls, want %d", k.Name, k.Calls, calls[k.Name])
				}
				onDev := k.Name == KernelSpMV || s >= 2
				if onDev != (k.Where == WhereSim) || onDev != (k.TimeKind == gpuext.Modeled) || k.Seconds <= 0 {
					t.Errorf("%s: where %q kind %q seconds %v", k.Name, k.Where, k.TimeKind, k.Seconds)
				}
				launches += k.Launches
			}
			if launches != r.Launches || len(r.Kernels) != nKernels {
				t.Errorf("kernel launches sum to %d of %d; %d kernels", launches, r.Launches, len(r.Kernels))
			}
			b := r.Breakdown()
			if math.Abs(b.Kernel+b.Transfer+b.Overhead-b.Total) > 1e-12 || b.Overhead != float64(r.Launches)*m.LaunchOverhead {
				t.Errorf("breakdown %+v does not add up (launches %d)", b, r.Launches)
			}
			if r.SpMV == nil || r.SpMV.Sectors < r.SpMV.IdealSectors || r.SpMV.IdealSectors == 0 {
				t.Errorf("SpMV counters %+v", r.SpMV)
			}
			if (r.SpMVBefore != nil) != (s >= 5 && s <= 7) {
				t.Errorf("thread-per-row counters beside the coalesced SpMV: %v", r.SpMVBefore)
			}
			// Bandwidth and the time account, modeled.
			bw, a := r.Bandwidth, r.Account
			if bw == nil || bw.TimeKind != gpuext.Modeled || bw.CopyGBps <= 0 || bw.CopyElems < n ||
				math.Abs(bw.BytesPerIter*float64(it)/r.WallSeconds/1e9/bw.CopyGBps-bw.Fraction) > 1e-12*bw.Fraction {
				t.Errorf("bandwidth %+v", bw)
			}
			if a == nil || math.Abs(a.KernelSeconds+a.LaunchSeconds+a.CopySeconds-(r.WallSeconds-cpuSeconds(r))) > 1e-12 || a.LaunchSeconds != b.Overhead {
				t.Errorf("time account %+v does not add up to %v", a, r.WallSeconds)
			}
		})
	}
	// Stages 2–4 run the same kernels in the same order; only where the
	// scalars live and how r·r is kept differ, and those move no bits.
	for _, s := range []int{3, 4} {
		if !equalBits(res[s].Residuals, res[2].Residuals) || !equalBits(res[s].X, res[2].X) {
			t.Errorf("stage %d differs in bits from stage 2", s)
		}
	}
	// Stage 6 fuses kernels without reordering any arithmetic.
	if !equalBits(res[6].Residuals, res[5].Residuals) || !equalBits(res[6].X, res[5].X) {
		t.Errorf("stage 6 differs in bits from stage 5")
	}
	// Stage 7 queues stage 6's kernels in another order on the host only.
	if !equalBits(res[7].Residuals, res[6].Residuals) || !equalBits(res[7].X, res[6].X) ||
		res[7].FinalResidual != res[6].FinalResidual || res[7].Speculative != nil {
		t.Errorf("stage 7 differs from stage 6 (final %v, %v; speculative %+v)", res[7].FinalResidual, res[6].FinalResidual, res[7].Speculative)
	}
	// Bytes per iteration, counted from the kernels (8-byte doubles, 4-byte
	// indices). Stage 5 per iteration from k = 2: SpMV reads rowPtr, cols,
	// vals, p and writes Ap; ddot r·r reads r (8n) and two 256-entry
	// partial passes; p = r + beta·p 24n + 8; p·Ap 16n; x and r updates
	// 24n + 8 each; two divides 24 bytes. Stage 6 saves the extra read of r
	// (8n) and the ddotFinal/cgDivide round trips through memory.
	spmvBytes := float64(4*(n+1) + 12*nnz + 16*n)
	it := float64(res[5].Iterations)
	perIter5 := res[5].Bandwidth.BytesPerIter * it
	perIter6 := res[6].Bandwidth.BytesPerIter * it
	if perIter5 < it*(spmvBytes+float64(96*n)) || perIter5-perIter6 < (it-1)*float64(8*n) {
		t.Errorf("bytes over the solve: stage 5 %.0f, stage 6 %.0f; want ≥ %.0f and a saving of ≥ 8n per iteration", perIter5, perIter6, it*(spmvBytes+float64(96*n)))
	}
	// Stage 8 sums each row in stored order, as the thread-per-row SpMV of
	// stages 2–4 does, and its fused, pipelined kernels move no bits: stage
	// 4's history and x exactly.
	if !equalBits(res[8].Residuals, res[4].Residuals) || !equalBits(res[8].X, res[4].X) || res[8].FinalResidual != res[4].FinalResidual {
		t.Errorf("stage 8 differs in bits from stage 4 (final %v, %v)", res[8].FinalResidual, res[4].FinalResidual)
	}
	// Stage 8 reads p and writes Ap in its SpMV and no matrix: over the
	// solve's it+1 SpMVs it saves the CSR arrays' bytes exactly.
	perIter7 := res[7].Bandwidth.BytesPerIter * it
	perIter8 := res[8].Bandwidth.BytesPerIter * it
	if want := (it + 1) * float64(4*(n+1)+12*nnz); math.Abs(perIter7-perIter8-want) > 1e-6*want {
		t.Errorf("bytes over the solve: stage 7 %.0f, stage 8 %.0f; want a difference of %.0f", perIter7, perIter8, want)
	}
	if sp := res[8].SpMV; sp == nil || sp.Kernel != kSpMVStencil27 || sp.ExcessiveShare > 0.2 {
		t.Errorf("stage 8 SpMV counters %+v: want spmvStencil27, coalesced", sp)
	}
	if !equalBits(res[1].X, ref.X) {
		t.Errorf("stage 1's x differs from stage 0's")
	}
	// Stage 5: the coalesced SpMV wastes fewer sectors. The thread-per-row
	// kernel's share is the article's ~72% (ncu at 100³).
	before, after := res[4].SpMV, res[5].SpMV
	if before.Kernel != kSpMVThreadPerRow || after.Kernel != kSpMVSubwarp || before.ExcessiveShare < 0.6 || after.ExcessiveShare > before.ExcessiveShare/2 {
		t.Errorf("excessive sectors: %s %.3f, %s %.3f", before.Kernel, before.ExcessiveShare, after.Kernel, after.ExcessiveShare)
	}
	// Each load site names its array; cols and rowPtr are 4-byte loads.
	for _, c := range []*SpMVCounters{before, after} {
		for _, site := range c.Sites {
			wantBytes := map[string]int{"rowPtr": 4, "cols": 4, "vals": 8, "x": 8}[site.Array]
			if wantBytes == 0 || site.Bytes != wantBytes {
				t.Errorf("%s site %q: array %q, %d bytes", c.Kernel, site.Label, site.Array, site.Bytes)
			}
		}
	}
	// The resident stages move almost nothing over PCIe.
	if res[4].Transfers.Seconds >= res[2].Transfers.Seconds/10 || res[3].Transfers.D2DCalls != res[4].Transfers.D2DCalls+148 {
		t.Errorf("modeled copy time: stage 2 %v, stage 4 %v", res[2].Transfers.Seconds, res[4].Transfers.Seconds)
	}
}

func TestRunStageBadInput(t *testing.T) {
	dev := openSim(t)
	p := testenv.Must(Generate(Cube(3), GenOptions{}))(t)
	tests := []struct {
		name  string
		dev   bool
		stage int
		opt   RunOptions
	}{
		{"stage -1", true, -1, RunOptions{}},
		{"stage 11", true, 11, RunOptions{}},
		{"negative check interval", true, 9, RunOptions{CheckEvery: -1}},
		{"no device", false, 3, RunOptions{}},
		{"block 100", true, 1, RunOptions{BlockSize: 100}},
		{"threads per row 3", true, 5, RunOptions{ThreadsPerRow: 3}},
		{"threads per row 64", true, 5, RunOptions{ThreadsPerRow: 64}},
		{"negative max iter", true, 2, RunOptions{MaxIter: -1}},
		{"NaN tolerance", true, 2, RunOptions{Tolerance: math.NaN()}},
	}
	for _, tt := range tests {
		d := dev
		if !tt.dev {
			d = nil
		}
		if r, err := RunStage(d, p, tt.stage, tt.opt); err == nil || r != nil || !strings.HasPrefix(err.Error(), "cg: ") {
			t.Errorf("%s: %v, %v", tt.name, r, err)
		}
	}
	if _, err := RunStage(dev, nil, 1, RunOptions{}); err == nil {
		t.Errorf("nil problem accepted")
	}
}

// TestStageMaxIter: a short run is a prefix of the full one on the device
// too, and its accounting follows the same formulas.
func TestStageMaxIter(t *testing.T) {
	dev := openSim(t)
	p := testenv.Must(Generate(Grid{4, 5, 6}, GenOptions{}))(t)
	full, err := RunStage(dev, p, 4, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, mi := range []int{1, 2, 10} {
		r, err := RunStage(dev, p, 4, RunOptions{MaxIter: mi})
		if err != nil {
			t.Fatal(err)
		}
		if r.Iterations != mi-1 || !equalBits(r.Residuals, full.Residuals[:mi-1]) {
			t.Errorf("max_iter %d: %d iterations, not a prefix", mi, r.Iterations)
		}
		if mi > 1 {
			w := expectedCounts(4, p.A.Rows, p.A.NNZ(), mi-1)
			if r.Launches != w.launches || r.Transfers.D2HCalls != w.d2hCalls {
				t.Errorf("max_iter %d: launches %d, D2H %d; want %d, %d", mi, r.Launches, r.Transfers.D2HCalls, w.launches, w.d2hCalls)
			}
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		o   Options
		msg string
	}{
		{Options{Stages: []int{11}}, "stage 11"},
		{Options{Stages: []int{-1}}, "stage -1"},
		{Options{Grid: Grid{NX: -1, NY: 4, NZ: 4}}, "at least 1"},
		{Options{Run: RunOptions{ThreadsPerRow: 3}}, "power of two"},
		{Options{Run: RunOptions{MaxIter: -1}}, "negative"},
	}
	for _, tt := range tests {
		err := tt.o.Validate()
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%+v: %v; want an error containing %q", tt.o, err, tt.msg)
		}
		if _, err := Run(context.Background(), nil, tt.o); err == nil {
			t.Errorf("%+v: Run ran", tt.o)
		}
	}
	if _, err := Run(context.Background(), nil, Options{Grid: Cube(4), Stages: []int{0, 1}}); err == nil || !strings.Contains(err.Error(), "need a device") {
		t.Errorf("stage 1 without a device: %v", err)
	}
	if err := (Options{Grid: Cube(8), Stages: []int{0, 5}}).Validate(); err != nil {
		t.Errorf("valid options: %v", err)
	}
}

func TestRunReportJSON(t *testing.T) {
	dev := testenv.Must(gpuext.Open("sim"))(t)
	defer dev.Close()
	var stages []string
	rep, err := Run(context.Background(), dev, Options{Grid: Grid{4, 5, 6},
		Progress: func(stage string, done, total int) {
			stages = append(stages, stage)
			if total != Stages || done != len(stages)-1 {
				t.Errorf("progress %q %d/%d", stage, done, total)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(stages) != Stages {
		t.Errorf("progress told %d stages, want %d", len(stages), Stages)
	}
	if !rep.OK() {
		t.Errorf("failures: %v", rep.Failures)
	}
	var out bytes.Buffer
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"HPCCG CG on a", "== Stage 0 (cpu-serial)", "== Stage 5 (coalesced-spmv)", "Summary", "bit-identical", "excessive", "modeled"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Lesson   string `json:"lesson"`
		Grid     [3]int `json:"grid"`
		Stages   []map[string]any
		Failures []string `json:"failures"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Lesson != "cg" || doc.Grid != [3]int{4, 5, 6} || len(doc.Stages) != Stages || doc.Failures == nil {
		t.Fatalf("report %+v", doc)
	}
	for i, s := range doc.Stages {
		for _, k := range []string{"kernels", "transfers", "iterations", "final_residual", "true_residual", "launches", "wall_seconds", "time_kind"} {
			if _, ok := s[k]; !ok {
				t.Errorf("stage %d lacks %q", i, k)
			}
		}
		if int(s["stage"].(float64)) != i || s["iterations"].(float64) != 149 {
			t.Errorf("stage entry %d: stage %v, iterations %v", i, s["stage"], s["iterations"])
		}
		if i > 0 && s["vs_stage0"] == nil {
			t.Errorf("stage %d has no comparison with stage 0", i)
		}
	}
}

// cpuSeconds is the measured host time of the operations a stage runs on
// the CPU, the part of a modeled wall time the time account leaves out.
func cpuSeconds(r *StageResult) float64 {
	var s float64
	for _, k := range r.Kernels {
		if k.Where == WhereCPU {
			s += k.Seconds
		}
	}
	return s
}

package cg

import (
	"math"
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
)

func TestRecordedFiles(t *testing.T) {
	files, err := RecordedFiles()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[recordedRun] == nil {
		t.Fatalf("recorded files %d, want %s", len(files), recordedRun)
	}
}

func TestRecorded(t *testing.T) {
	rs, err := Recorded()
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != RecordedStages {
		t.Fatalf("%d stages, want %d", len(rs), RecordedStages)
	}
	names := []string{"cpu-serial", "spmv-on-gpu", "naive-port", "gpu-resident", "scalar-swap", "coalesced-spmv", "fused", "pipelined", "matrix-free"}
	for i, r := range rs {
		if r.Stage != i || r.Name != names[i] {
			t.Errorf("rs[%d] is stage %d %q, want %d %q", i, r.Stage, r.Name, i, names[i])
		}
		if r.TimeKind != gpuext.Measured {
			t.Errorf("stage %d time kind %q, want measured", i, r.TimeKind)
		}
		if !strings.Contains(r.Device, "NVIDIA H200") || !strings.Contains(r.Device, "driver 580.159.04") {
			t.Errorf("stage %d device %q: want the GPU and driver named", i, r.Device)
		}
		if !strings.HasPrefix(r.Date, "2026-11-30T") {
			t.Errorf("stage %d date %q, want 2026-11-30T…", i, r.Date)
		}
		if r.Grid != [3]int{100, 100, 100} || r.Rows != 1_000_000 || r.Iterations != 149 || len(r.Residuals) != 149 {
			t.Errorf("stage %d: grid %v, %d rows, %d iterations, %d residuals; want 100³, 1e6, 149, 149",
				i, r.Grid, r.Rows, r.Iterations, len(r.Residuals))
		}
		if i > 0 && r.VsStage0 == nil {
			t.Errorf("stage %d has no comparison with stage 0", i)
		}
	}
	if rs[0].Backend != "cpu" || !strings.Contains(rs[0].Device, "host CPU") {
		t.Errorf("stage 0: backend %q, device %q; want the host CPU named", rs[0].Backend, rs[0].Device)
	}

	// The goal: 149 iterations at 100³ in at most 25 ms, met by stage 8 only.
	if w := rs[8].WallSeconds; w >= 0.025 || w <= 0 {
		t.Errorf("stage 8 total %.2f ms, want in (0, 25)", 1e3*w)
	}
	for s := 1; s < 8; s++ {
		if rs[s].WallSeconds < 0.025 {
			t.Errorf("stage %d total %.2f ms: under the goal, the lesson's story says only stage 8 is", s, 1e3*rs[s].WallSeconds)
		}
	}
	// The naive port is slower than stage 1, the resident stages faster than both.
	if !(rs[2].WallSeconds > rs[1].WallSeconds && rs[3].WallSeconds < rs[1].WallSeconds/10) {
		t.Errorf("stage 1 %.1f ms, 2 %.1f ms, 3 %.1f ms: want 2 slowest, 3 ten times faster than 1",
			1e3*rs[1].WallSeconds, 1e3*rs[2].WallSeconds, 1e3*rs[3].WallSeconds)
	}

	// Numerics. Stage 1 runs HPCCG's SpMV bits: its history is stage 0's.
	// Stage 8's stencil SpMV equals the thread-per-row CSR SpMV bit for bit,
	// so its history is stage 4's (tree ddot, thread-per-row SpMV).
	sameBits := func(a, b []float64) bool {
		if len(a) != len(b) {
			return false
		}
		for k := range a {
			if math.Float64bits(a[k]) != math.Float64bits(b[k]) {
				return false
			}
		}
		return true
	}
	if !sameBits(rs[1].Residuals, rs[0].Residuals) || !rs[1].VsStage0.Identical {
		t.Error("stage 1's residual history is not stage 0's bit for bit")
	}
	if !sameBits(rs[8].Residuals, rs[4].Residuals) {
		t.Error("stage 8's residual history is not stage 4's bit for bit")
	}
	if sameBits(rs[5].Residuals, rs[4].Residuals) {
		t.Error("stage 5 (re-associated row sums) has stage 4's bits: the comparison cannot fail")
	}
	for s := 2; s < RecordedStages; s++ {
		if c := rs[s].VsStage0; c.Identical || !c.WithinTolerance {
			t.Errorf("stage %d vs stage 0: %v; want different bits within tolerance", s, c)
		}
	}

	// A few exact values, as the report printed them.
	exact := []struct {
		what      string
		got, want float64
	}{
		{"‖b‖", rs[0].InitialResidual, 2647.2340281886677},
		{"stage 0 final residual", rs[0].FinalResidual, 7.9948951104807975e-21},
		{"stage 0 wall seconds", rs[0].WallSeconds, 7.141365963},
		{"stage 8 wall seconds", rs[8].WallSeconds, 0.017532718},
		{"stage 2 H2D bytes", float64(rs[2].Transfers.H2DBytes), 11_944_000_000},
	}
	for _, c := range exact {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	if rs[0].NNZ != 26_463_592 || rs[8].Launches != 898 || rs[4].Launches != 1492 {
		t.Errorf("nnz %d, stage 8 launches %d, stage 4 launches %d; want 26463592, 898, 1492", rs[0].NNZ, rs[8].Launches, rs[4].Launches)
	}

	// Each call is independent.
	rs[0].Residuals[0] = -1
	again, err := Recorded()
	if err != nil {
		t.Fatal(err)
	}
	if again[0].Residuals[0] != 2647.2340281886677 {
		t.Error("Recorded shares its results between calls")
	}
}

func TestRecordedSummaryHTML(t *testing.T) {
	rs, err := Recorded()
	if err != nil {
		t.Fatal(err)
	}
	h := MeasuredSummaryHTML(rs, RecordedLabel())
	for _, want := range []string{
		"measured on an NVIDIA H200, driver 580.159.04, 2026-11-30",
		"<td>8</td><td>matrix-free</td><td>17.5</td>",
		"<td>1</td><td>spmv-on-gpu</td><td>1168.9</td>",
		"<td>bit-identical</td>", // stage 1
		"within tolerance (≤ 5.5e-11 early)",
		"407.3× faster", // stage 8: 7141.4 / 17.5
		"3.8× faster",   // stage 2: 7141.4 / 1862.6
	} {
		if !strings.Contains(h, want) {
			t.Errorf("summary HTML lacks %q:\n%s", want, h)
		}
	}
	if n := strings.Count(h, "<tr>"); n != RecordedStages+1 {
		t.Errorf("%d rows, want %d", n, RecordedStages+1)
	}
}

func TestRecordedCopyCostOnly(t *testing.T) {
	rs, err := Recorded()
	if err != nil {
		t.Fatal(err)
	}
	cs := CopyCostOnly(rs)
	for i, r := range cs {
		orig := rs[i]
		b := r.Breakdown()
		switch {
		case i <= 2:
			if r.Transfers.Seconds != orig.Transfers.Seconds {
				t.Errorf("stage %d: copies changed from %v to %v; its copies move vectors", i, orig.Transfers.Seconds, r.Transfers.Seconds)
			}
		default:
			if r.Transfers.Seconds != orig.Account.CopySeconds || r.Transfers.Seconds >= orig.Transfers.Seconds {
				t.Errorf("stage %d: copies %v, want the account's %v (< host-timed %v)", i, r.Transfers.Seconds, orig.Account.CopySeconds, orig.Transfers.Seconds)
			}
			if sum := b.Kernel + b.Transfer + b.Overhead; math.Abs(sum-b.Total) > 1e-12 {
				t.Errorf("stage %d: kernels + copies + rest = %v, want the total %v", i, sum, b.Total)
			}
		}
	}
	if rs[5].Transfers.Seconds != 0.024842803999999996 {
		t.Errorf("CopyCostOnly changed its input: stage 5 copies %v", rs[5].Transfers.Seconds)
	}
}

package spmv

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/sparse"
)

// ptxModule is the lesson's module without its Go mirrors: the simulator
// runs every kernel from spmv.ptx.
func ptxModule() *gpuext.Module {
	m := Module()
	m.Mirrors = nil
	return m
}

// irregularMatrix has random row lengths (0 to 70, some rows empty) with
// small-integer values, so that float32 sums are exact in any order and the
// mirror's and the PTX's outputs must agree bit for bit.
func irregularMatrix(rows int) *Matrix {
	r := rand.New(rand.NewPCG(3, 7))
	csr := &sparse.CSR{Rows: rows, Cols: rows, RowPtr: make([]int32, rows+1)}
	for i := range rows {
		n := r.IntN(71)
		if i%9 == 4 {
			n = 0
		}
		start := r.IntN(rows - n + 1)
		for j := range n {
			csr.ColIdx = append(csr.ColIdx, int32(start+j))
			csr.Val = append(csr.Val, float32(r.IntN(9)-4))
		}
		csr.RowPtr[i+1] = int32(len(csr.Val))
	}
	return newMatrix("irregular", csr, csr.NNZ())
}

// execWith is Exec with the module given.
func execWith(t *testing.T, dev *gpuext.Device, mod *gpuext.Module, kernel string, m *Matrix, probeBlocks int) ([]float32, *gpuext.Launch) {
	t.Helper()
	d, err := uploadMatrix(dev, m)
	if err != nil {
		t.Fatal(err)
	}
	defer d.free()
	out := d.y
	var l *gpuext.Launch
	if kernel == KernelProbe {
		partials, err := gpuext.Alloc[float32](dev, "partials", probeBlocks*ThreadsPerBlock)
		if err != nil {
			t.Fatal(err)
		}
		defer partials.Free()
		out = partials
		l, err = launchProbe(context.Background(), dev, mod, d, partials, probeBlocks, m.CSR.NNZ())
		if err != nil {
			t.Fatal(err)
		}
	} else {
		l, err = launchRowKernel(context.Background(), dev, mod, kernel, d, m.CSR.Rows)
		if err != nil {
			t.Fatal(err)
		}
	}
	got := make([]float32, out.Len())
	if err := out.Download(got); err != nil {
		t.Fatal(err)
	}
	return got, l
}

// TestPTXSideBySide runs every spmv kernel from its PTX and from its Go
// mirror on the seed matrices and an irregular one: outputs must be
// bit-identical and right against the float64 reference; the counters are
// compared and every difference is reported (the mirror's hand pairing vs
// the executed PTX).
func TestPTXSideBySide(t *testing.T) {
	seeds, err := SeedMatrices(1024)
	if err != nil {
		t.Fatal(err)
	}
	ms := append(seeds, irregularMatrix(1000))
	dev := openSim(t)
	mirror, fromPTX := Module(), ptxModule()
	var report strings.Builder
	fmt.Fprintf(&report, "%-10s %-28s %-22s %-22s %-22s %-22s %s\n", "matrix", "kernel", "ld req (ptx/mirror)", "ld sectors", "st req", "warp instr", "modeled µs (bound)")
	for _, m := range ms {
		for _, k := range KernelNames() {
			got, lp := execWith(t, dev, fromPTX, k, m, 16)
			want, lm := execWith(t, dev, mirror, k, m, 16)
			if lp.Path != "ptx" || lm.Path != "mirror" {
				t.Fatalf("%s: paths %q, %q", k, lp.Path, lm.Path)
			}
			if msg := Check(m, k, got); msg != "" {
				t.Errorf("%s on %s from PTX: %s", k, m.Name, msg)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("%s on %s: PTX output[%d] = %v, mirror %v", k, m.Name, i, got[i], want[i])
					break
				}
			}
			sp, sm := lp.Stats, lm.Stats
			fmt.Fprintf(&report, "%-10s %-28s %10d/%-10d %10d/%-10d %10d/%-10d %10d/%-10d %.2f (%s)/%.2f (%s)\n", m.Name, k,
				sp.GlobalLoad.Requests, sm.GlobalLoad.Requests, sp.GlobalLoad.Sectors, sm.GlobalLoad.Sectors,
				sp.GlobalStore.Requests, sm.GlobalStore.Requests, sp.WarpInstructions, sm.WarpInstructions,
				sp.Time.Seconds*1e6, sp.Time.Bound, sm.Time.Seconds*1e6, sm.Time.Bound)
			if sp.GlobalLoad != sm.GlobalLoad || sp.GlobalStore != sm.GlobalStore {
				t.Errorf("%s on %s: PTX global load %+v store %+v, mirror %+v %+v", k, m.Name, sp.GlobalLoad, sp.GlobalStore, sm.GlobalLoad, sm.GlobalStore)
			}
			if sp.L1Wavefronts != sm.L1Wavefronts || sp.L2Sectors != sm.L2Sectors || sp.DRAMReadBytes != sm.DRAMReadBytes || sp.DRAMWriteBytes != sm.DRAMWriteBytes {
				t.Errorf("%s on %s: PTX L1 wavefronts %d L2 sectors %d DRAM %d/%d, mirror %d %d %d/%d", k, m.Name,
					sp.L1Wavefronts, sp.L2Sectors, sp.DRAMReadBytes, sp.DRAMWriteBytes, sm.L1Wavefronts, sm.L2Sectors, sm.DRAMReadBytes, sm.DRAMWriteBytes)
			}
			var slotsP, slotsM, laneP, laneM int64
			for _, s := range sp.Sites {
				slotsP += s.LaneSlots
				laneP += s.ActiveLanes
			}
			for _, s := range sm.Sites {
				slotsM += s.LaneSlots
				laneM += s.ActiveLanes
			}
			if slotsP != slotsM || laneP != laneM {
				t.Errorf("%s on %s: lane slots %d (active %d), mirror %d (%d)", k, m.Name, slotsP, laneP, slotsM, laneM)
			}
		}
	}
	t.Logf("PTX vs mirror counters:\n%s", report.String())
}

// TestPTXSeedKernelsSites: from PTX the sites are the .cu lines with their
// text.
func TestPTXSeedKernelsSites(t *testing.T) {
	seeds, err := SeedMatrices(512)
	if err != nil {
		t.Fatal(err)
	}
	dev := openSim(t)
	_, l := execWith(t, dev, ptxModule(), KernelThreadPerRowUnroll1, seeds[0], 1)
	var labels []string
	for _, s := range l.Stats.Sites {
		labels = append(labels, s.Label)
	}
	joined := strings.Join(labels, "\n")
	for _, want := range []string{"spmv.cu:88", "spmv.cu:90"} {
		if !strings.Contains(joined, want) {
			t.Errorf("sites %q lack %s", labels, want)
		}
	}
	_ = sim.Dim1
}

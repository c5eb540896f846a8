package sim

import (
	"fmt"
	"sort"

	"github.com/warplab/warplab/sim/timing"
)

// The DRAM constants (issue 27, milestone 3), derived from the DRAM
// microbenchmark (scripts/evidence/timemodel/dram.cu, recorded on the H200
// as evidence/timemodel-micro-dram-h200-2026-12-04, whose dram.csv is
// embedded as sim/calibration/<key>-dram.csv, a byte-for-byte copy
// TestDRAMCalibrationCopy holds to the recorded file). None is set from a
// sweep or lesson run.

// dramFile is the embedded copy of model key's DRAM run.
func dramFile(key string) string { return key + "-dram" }

// dramChaseSteps and shflChainSteps are dram.cu's walk and shuffle chain
// lengths (steps a launch).
const (
	dramChaseSteps = 256
	shflChainSteps = 4096
	scatterSteps   = 64
)

// applyDRAM sets the DRAM constants from rows; a constant whose rows are
// missing or implausible stays as it was (0 or empty: not used).
//
//   - DRAMGranuleBytes: 32 × dram_stride_read at s = 32 bytes over the
//     same at s = 64, in sectors a second (one float a touched sector:
//     touching every other sector takes as long as touching every one, so
//     each touched sector moves 64 bytes), rounded to a whole number of
//     sectors;
//   - DRAMLoaded: dram_chase_v4 at w = 16, 32 and 64 warps per SM (walks
//     over 277 MB to 1.1 GB, 4.6 to 18 times the L2, so nearly every step
//     is a DRAM miss), each less the launch's share of a step
//     (dram_chase_1step / 256): the latency, and the throughput the walk
//     moved, w × 32 lanes × 16 bytes × SMs / latency;
//   - ShflCycles: shfl_chain, a dependent shfl.down + add step, less the
//     launch's share and the add's WarpCPI (timemodel_deps.go);
//   - DRAMScatterLatency, L2ScatterLatency: dram_scatter and l2_scatter at
//     one warp per SM (every lane walking its own chain of random lines:
//     a request of 32 lines, from DRAM over 4 GiB and from L2 over 16
//     MiB), less the launch's share of a step.
func applyDRAM(m Model, rows []MicrobenchRow) Model {
	var s32, s64, launch, shfl, shfl1, dscat, lscat float64
	v4 := map[int]float64{}
	for _, r := range rows {
		switch r.Name {
		case "dram_stride_read":
			switch r.Param {
			case "s=32 B":
				s32 = r.Value
			case "s=64 B":
				s64 = r.Value
			}
		case "dram_chase_1step":
			launch = r.Value
		case "shfl_chain":
			shfl = r.Value
		case "dram_scatter":
			if r.Param == "w=1" {
				dscat = r.Value
			}
		case "l2_scatter":
			if r.Param == "w=1" {
				lscat = r.Value
			}
		case "shfl_chain_1step":
			shfl1 = r.Value
		case "dram_chase_v4":
			if w, ok := paramInt(r.Param, "w"); ok && r.Value > 0 {
				v4[w] = r.Value
			}
		}
	}
	if s32 > 0 && s64 > 0 {
		if g := 32 * float64(int(s32/s64+0.5)); g >= 32 && g <= 256 {
			m.DRAMGranuleBytes = g
		}
	}
	// ShflCycles: a shfl.down + add step of shfl_chain less the launch's
	// share of a step (shfl_chain_1step / 4096) and the add (WarpCPI).
	if c := shfl - shfl1/shflChainSteps - m.WarpCPI; shfl > 0 && c > 1 && c < 1000 {
		m.ShflCycles = c
	}
	// DRAMScatterLatency, L2ScatterLatency: dram_scatter and l2_scatter
	// at one warp per SM (a lane a random line; the idle GPU's gather),
	// less the launch's share of a step (dram_chase_1step / 64 steps).
	if launch > 0 && dscat > 0 && lscat > 0 {
		d, l := (dscat-launch/scatterSteps)*1e-9, (lscat-launch/scatterSteps)*1e-9
		if d > m.DRAMLatency/2 && l > m.L2Latency/2 && d < 1e-5 && l < d {
			m.DRAMScatterLatency, m.L2ScatterLatency = d, l
		}
	}
	var curve []timing.LoadedLatency
	for _, w := range []int{16, 32, 64} {
		ns, ok := v4[w]
		if !ok {
			continue
		}
		lat := (ns - launch/dramChaseSteps) * 1e-9
		if lat <= m.DRAMLatency/2 {
			continue
		}
		curve = append(curve, timing.LoadedLatency{Rate: float64(w*32*16*m.SMs) / lat, Seconds: lat})
	}
	sort.Slice(curve, func(i, j int) bool { return curve[i].Rate < curve[j].Rate })
	if len(curve) > 0 {
		m.DRAMLoaded = curve
	}
	return m
}

// dramSource names a DRAM constant's rows and the embedded file they come
// from, or says the model has none.
func dramSource(m Model, constant string) string {
	c := calibrations()[dramFile(m.Key)]
	if c == nil || c.err != nil {
		return "none: no DRAM microbenchmark for this model (a sector a miss; the idle pointer-chase latency)"
	}
	at := fmt.Sprintf("%s; %s", c.file, c.device)
	switch constant {
	case "DRAMScatterLatency", "L2ScatterLatency":
		if m.DRAMScatterLatency <= 0 {
			return "none: a gather's round waits as a coalesced one (" + at + ")"
		}
		return fmt.Sprintf("measured: dram_scatter and l2_scatter at one warp per SM (every lane walking its own chain of random 128-byte lines, a request of 32 lines; 4 GiB with fresh lines each launch, and 16 MiB in L2), less the launch's share of a step (dram_chase_1step / 64): %.0f and %.0f ns, against the coalesced walk's %.0f and %.0f; a round whose missing request was a gather (more than four lines to L2, spread over more than twice as many: random lines, not a short-row walk's adjacent ones) waits these (the DRAM one less DRAMLatency on top of the loaded latency) (%s)",
			m.DRAMScatterLatency*1e9, m.L2ScatterLatency*1e9, m.DRAMLatency*1e9, m.L2Latency*1e9, at)
	case "ShflCycles":
		if m.ShflCycles <= 0 {
			return "none (" + at + ")"
		}
		return "measured: shfl_chain (one warp, 4,096 dependent shfl.down + add steps: 36.4 cycles a step) less the launch's share of a step (shfl_chain_1step / 4,096) and the add's WarpCPI; a basic block whose dependences wait on shuffles longer than its instructions at WarpCPI adds the difference to the warp's path (sim's depStalls) (" + at + ")"
	case "DRAMGranuleBytes":
		if m.DRAMGranuleBytes <= 32 {
			return "none: a sector (" + at + ")"
		}
		return "measured: 32 × dram_stride_read at 32 bytes apart over the same at 64 (one float loaded a touched sector over 4 GiB: every other sector takes as long as every one); Nsight Compute's dram__bytes_read in the same run (ncu-stride.csv) reads 64 bytes a touched sector at 64, 128 and 256 bytes apart (" + at + ")"
	}
	return "measured: dram_chase_v4 at 16, 32 and 64 warps per SM (random 512-byte blocks of 4 GiB, one coalesced float4 request in flight a warp), less the launch's share of a step: " +
		loadedCurve(m.DRAMLoaded) + "; from the idle pointer chase (DRAMLatency at 0 TB/s) linearly to the first point (" + at + ")"
}

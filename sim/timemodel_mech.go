package sim

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/warplab/warplab/internal/stats"
	"github.com/warplab/warplab/sim/timing"
)

// The mechanisms' constants (issue 27, milestone 3): shared-memory
// wavefronts, barriers and the achieved-bandwidth curves, each derived from
// a row set of the mechanisms microbenchmark
// (scripts/evidence/timemodel/mechanisms.cu, recorded on the H200 as
// evidence/timemodel-micro-mechanisms-h200-2026-12-04 and embedded as
// sim/calibration/<key>-mechanisms.csv, a byte-for-byte copy that
// TestMechanismsCalibrationCopy holds to the recorded file). None is set
// from a lesson run.

// mechanismsFile is the embedded copy of model key's mechanisms run.
func mechanismsFile(key string) string { return key + "-mechanisms" }

// applyMechanisms sets the constants the mechanisms microbenchmark's rows
// give: every derivation below names its rows. A constant whose rows are
// missing or implausible stays as model.go has it.
func applyMechanisms(m Model, rows []MicrobenchRow) Model {
	get := func(name string) []MicrobenchRow {
		var out []MicrobenchRow
		for _, r := range rows {
			if r.Name == name {
				out = append(out, r)
			}
		}
		return out
	}
	// SharedWavesPerCycle: the median of sh_ld_rate and sh_st_rate over
	// k = 1..32 (wavefronts an SM serves a cycle at 64 warps per SM).
	var rates []float64
	for _, r := range append(get("sh_ld_rate"), get("sh_st_rate")...) {
		rates = append(rates, r.Value)
	}
	if v := stats.Median(rates); v > 0.1 && v < 8 {
		m.SharedWavesPerCycle = v
	}
	// SharedWaveCycles: the slope of sh_ld_lat (one warp's dependent chain
	// of k-way conflicted loads, cycles a load) against k.
	lat := map[int]float64{}
	var xs, ys []float64
	for _, r := range get("sh_ld_lat") {
		if k, ok := paramInt(r.Param, "k"); ok {
			lat[k] = r.Value
			xs, ys = append(xs, float64(k)), append(ys, r.Value)
		}
	}
	if slope, _, ok := fitLine(xs, ys); ok && slope > 0 && slope < 64 {
		m.SharedWaveCycles = slope
	}
	// SharedLoadCycles: sh_ld_lat at k = 1, a conflict-free shared load's
	// latency to a dependent instruction (timemodel_deps.go).
	if l1, ok := lat[1]; ok && l1 > 1 && l1 < 1000 {
		m.SharedLoadCycles = l1
	}
	// BarrierCycles, BarrierCyclesPerWarp: sh_st_bar's conflict-free
	// passes (k = 1) at w warps are two barriers, the store's and the
	// load's w wavefronts each at SharedWavesPerCycle, and the load's
	// latency (the pass's next store waits for it: sh_ld_lat at k = 1);
	// what is left, halved, is one barrier at w warps, and a line through
	// those gives the two constants.
	xs, ys = xs[:0], ys[:0]
	if l1, ok := lat[1]; ok && m.SharedWavesPerCycle > 0 {
		for _, r := range get("sh_st_bar") {
			k, ok1 := paramInt(r.Param, "k")
			w, ok2 := paramInt(r.Param, "w")
			if !ok1 || !ok2 || k != 1 {
				continue
			}
			xs = append(xs, float64(w))
			ys = append(ys, (r.Value-2*float64(w)/m.SharedWavesPerCycle-l1)/2)
		}
	}
	if slope, icept, ok := fitLine(xs, ys); ok && slope >= 0 && icept > 0 {
		m.BarrierCycles, m.BarrierCyclesPerWarp = icept, slope
	}
	// RegistersPerSM: the device's report.
	for _, r := range get("device_regs_per_sm") {
		if r.Value >= 1024 && r.Value <= 1<<20 {
			m.RegistersPerSM = int(r.Value)
		}
	}
	m.L2Loaded = l2Loaded(m.SMs, rows)
	return m
}

// l2Loaded is the L2's loaded-latency curve (timing.Constants.L2Loaded)
// read off bw_l2 at u = 2, one float4 in flight a thread on a warm 8 MiB
// buffer at 1 to 64 warps per SM (inflightCurves): at each point the
// GPU's rate and, by Little's law, the latency its bytes in flight imply
// (the SMs × bytes in flight per SM ÷ the rate; 181 ns at 1 warp per SM,
// 687 ns at 64 on the H200). The same rows as L2Inflight, read the way
// DRAMLoaded reads dram_chase_v4: a latency at a throughput, which a warm
// launch's rounds wait at the throughput it reaches (timing.warmTime),
// not a bandwidth cap on its bytes. Nil without the rows.
func l2Loaded(sms int, rows []MicrobenchRow) []timing.LoadedLatency {
	_, l2 := inflightCurves(rows)
	var c []timing.LoadedLatency
	for _, p := range l2 {
		c = append(c, timing.LoadedLatency{Rate: p.Rate, Seconds: float64(sms) * p.BytesPerSM / p.Rate})
	}
	return c
}

// inflightCurves reads the achieved-bandwidth curves (timing.Constants'
// DRAMInflight and L2Inflight) off bw_dram and bw_l2 at u = 2, one float4
// (16 bytes) in flight per thread: ptxas kept the kernel to 32 registers
// (__launch_bounds__(256, 8)) and reused the first load's registers for
// the second, so u = 2, 4 and 8 ran one load in flight (their rates agree
// within 3%); the u = 1 rows had the step loop unrolled by ptxas, with an
// unknown number in flight, and are not used.
//
// The model does not take them as bandwidth caps (applyMechanisms leaves
// the curves empty; since the twenty-sixth pass it reads bw_l2's rows as
// the L2's loaded latency instead, l2Loaded):
// with the bytes in flight the PTX's load rounds give, they took the
// check's 2^23 probes and CG 100³'s subwarp SpMV 8-50% too slow
// (docs/timemodel.md, "Mechanisms"). Not because ptxas keeps more loads
// in flight than the PTX: ptxas 11.8's SASS for sm_90 has both loops at
// the PTX's 3 loads a pass in 2 rounds. Why those kernels sustain more
// than the curve at their bytes in flight is open (the curve's loads are
// coalesced float4; theirs gather).
func inflightCurves(rows []MicrobenchRow) (dram, l2 []timing.InflightRate) {
	curve := func(name string) []timing.InflightRate {
		var c []timing.InflightRate
		for _, r := range rows {
			if r.Name != name || !strings.HasSuffix(r.Param, " u=2") || !positive(r.Value) {
				continue
			}
			w, err := strconv.Atoi(strings.TrimSuffix(r.Param, " warps/SM u=2"))
			if err != nil || w <= 0 {
				continue
			}
			c = append(c, timing.InflightRate{BytesPerSM: float64(w) * 32 * 16, Rate: r.Value})
		}
		sort.Slice(c, func(i, j int) bool { return c[i].BytesPerSM < c[j].BytesPerSM })
		return c
	}
	return curve("bw_dram"), curve("bw_l2")
}

// paramInt reads key=N from a row's param ("w=8 k=32").
func paramInt(param, key string) (int, bool) {
	for _, f := range strings.Fields(param) {
		if v, ok := strings.CutPrefix(f, key+"="); ok {
			n, err := strconv.Atoi(v)
			return n, err == nil
		}
	}
	return 0, false
}

// loadedCurve prints a loaded-latency curve as its sources say it:
// "2.41 TB/s: 448 ns, ...".
func loadedCurve(c []timing.LoadedLatency) string {
	parts := make([]string, len(c))
	for i, p := range c {
		parts[i] = fmt.Sprintf("%.2f TB/s: %.0f ns", p.Rate/1e12, p.Seconds*1e9)
	}
	return strings.Join(parts, ", ")
}

// fitLine is the least-squares line y = slope·x + icept; ok is false with
// fewer than two distinct xs.
func fitLine(xs, ys []float64) (slope, icept float64, ok bool) {
	n := float64(len(xs))
	if len(xs) < 2 || len(xs) != len(ys) {
		return 0, 0, false
	}
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx += xs[i]
		sy += ys[i]
		sxx += xs[i] * xs[i]
		sxy += xs[i] * ys[i]
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0, 0, false
	}
	slope = (n*sxy - sx*sy) / d
	icept = (sy - slope*sx) / n
	return slope, icept, !math.IsNaN(slope) && !math.IsNaN(icept)
}

// mechanismSources says where each mechanism constant of m comes from.
func mechanismSources(m Model) map[string]string {
	c := calibrations()[mechanismsFile(m.Key)]
	if c == nil || c.err != nil {
		return defaultMechSources(m.Key)
	}
	at := fmt.Sprintf("%s; %s", c.file, c.device)
	curve := func(cv []timing.InflightRate) string {
		parts := make([]string, len(cv))
		for i, p := range cv {
			parts[i] = fmt.Sprintf("%.0f B: %.3g", p.BytesPerSM, p.Rate)
		}
		return strings.Join(parts, ", ")
	}
	dram, l2 := inflightCurves(c.rows)
	notUsed := "; measured and not used: with the bytes in flight the PTX's load rounds give, it took the check's 2^23 probes and CG 100³'s subwarp SpMV 8-50% too slow, for reasons not established (docs/timemodel.md, \"Mechanisms\")"
	return map[string]string{
		"SharedWavesPerCycle": "measured: the median of sh_ld_rate and sh_st_rate, k-way bank conflicts k = 1..32 at 64 warps per SM (0.995-0.999 wavefronts per SM per cycle for every k: a k-way conflict costs k wavefronts at the same rate) (" + at + ")",
		"SharedLoadCycles":    "measured: sh_ld_lat at k = 1 (one warp, a dependent chain of conflict-free shared loads: cycles a load); a basic block whose dependences wait on shared loads longer than its instructions at WarpCPI adds the difference to the warp's path (sim's depStalls); red_step (evidence/timemodel-micro-dram-h200-2026-12-04) checks it (" + at + ")",
		"SharedWaveCycles":    "measured: the slope of sh_ld_lat against k (one warp, a dependent chain of k-way conflicted loads: 28.7 cycles at k = 1, 90.7 at k = 32); sh_st_path, conflicted stores back to back, grows by the same 2 cycles a wavefront (" + at + ")",
		"BarrierCycles":       fmt.Sprintf("measured: sh_st_bar's conflict-free passes at 1..32 warps a block (store, bar.sync, load, bar.sync), less the two requests' wavefronts and the load's latency (sh_ld_lat k = 1), halved: %.1f + %.2f cycles a warp, a least-squares line; bar_slow: a slow warp's work adds to the pass the same at every block size (the barrier waits for the slowest warp) (%s)", m.BarrierCycles, m.BarrierCyclesPerWarp, at),
		"DRAMInflight":        "bw_dram at 1..64 warps per SM, one float4 .cg load in flight per thread (u = 2 rows), a fresh 128 MiB a launch; bytes in flight per SM: rate " + curve(dram) + " (" + at + ")" + notUsed,
		"L2Inflight":          "bw_l2 as bw_dram on a warm 8 MiB buffer: " + curve(l2) + " (" + at + ")" + notUsed,
		"L2Loaded":            "measured: bw_l2 at u = 2 (one float4 .cg load in flight a thread, a warm 8 MiB buffer, 1 to 64 warps per SM), each point's rate and the latency its bytes in flight imply by Little's law (SMs × bytes in flight per SM / rate): " + loadedCurve(m.L2Loaded) + "; a warm launch's L2 requests wait the latency at the L2 throughput it reaches, from the idle pointer chase (L2Latency at 0 TB/s) linearly to the first point (" + at + ")",
		"RegistersPerSM":      "measured: device_regs_per_sm (cudaDeviceProp.regsPerMultiprocessor) (" + at + ")",
		"RegAllocUnit":        "published: CUDA occupancy calculator, a warp's registers are allocated in units of 256 (compute capability 7.0 and later); the microbenchmark's occ_regs rows (14 to 231 registers a thread, 256 threads a block: 8, 6, 4, 3, 2, 2, 1, 1, 1 blocks per SM, API and counted alike) are what GPU.BlocksPerSM gives (TestOccupancyRegistersMicrobenchmark)",
	}
}

// defaultMechSources documents model.go's mechanism values for models
// without a recorded mechanisms run.
func defaultMechSources(key string) map[string]string {
	same := "the H200's value (evidence/timemodel-micro-mechanisms-h200-2026-12-04), assumed"
	if key == "h100" {
		same = "the H200's value (same SM; evidence/timemodel-micro-mechanisms-h200-2026-12-04)"
	}
	return map[string]string{
		"SharedWavesPerCycle": "published: 32 banks of 4 bytes a cycle, one wavefront a cycle; " + same,
		"SharedWaveCycles":    same,
		"SharedLoadCycles":    same,
		"BarrierCycles":       same,
		"DRAMInflight":        "none: the bound is bytes in flight over the miss latency (Little's law with the pointer-chase latency)",
		"L2Inflight":          "none: as DRAMInflight",
		"RegistersPerSM":      "published: 64 K 32-bit registers per SM",
		"RegAllocUnit":        "published: CUDA occupancy calculator, 256 registers a warp's unit (compute capability 7.0 and later)",
	}
}

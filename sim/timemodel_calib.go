package sim

import (
	"bufio"
	"bytes"
	"embed"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/warplab/warplab/sim/timing"
)

// calibFS holds the recorded microbenchmark runs the models take their
// time constants from (calibration/README.md).
//
//go:embed calibration
var calibFS embed.FS

// MicrobenchRow is one line of scripts/evidence/timemodel/microbench.cu's
// CSV: a measurement's name, parameter, value and unit.
type MicrobenchRow struct {
	Name, Param string
	Value       float64
	Unit, Note  string
}

// ParseMicrobench reads the microbenchmark CSV (header
// name,param,value,unit,note; '#' lines are comments, kept in comments).
// A malformed line is an error naming its line number.
func ParseMicrobench(data []byte) (rows []MicrobenchRow, comments []string, err error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	line := 0
	header := false
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		switch {
		case t == "":
			continue
		case strings.HasPrefix(t, "#"):
			comments = append(comments, strings.TrimSpace(strings.TrimPrefix(t, "#")))
			continue
		case !header:
			if t != "name,param,value,unit,note" {
				return nil, nil, fmt.Errorf("microbench line %d: header %q, want name,param,value,unit,note", line, t)
			}
			header = true
			continue
		}
		r, ferr := microbenchRow(strings.Split(t, ","))
		if ferr != nil {
			return nil, nil, fmt.Errorf("microbench line %d: %v", line, ferr)
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	if !header {
		return nil, nil, fmt.Errorf("microbench: no header line")
	}
	return rows, comments, nil
}

// microbenchRow reads one row's fields. The recorded 2026-12-01 run wrote
// some params with a comma in them, unquoted ("3 warm-ups, 10 runs"), and a
// recorded file is never edited, so the value is the first field after the
// name and param that parses as a number and has a unit after it; the
// fields between the name and the value are the param, and those after the
// unit the note.
func microbenchRow(f []string) (MicrobenchRow, error) {
	if len(f) < 4 {
		return MicrobenchRow{}, fmt.Errorf("%d fields, want 5", len(f))
	}
	for i := 2; i+1 < len(f); i++ {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			continue
		}
		return MicrobenchRow{Name: f[0], Param: strings.Join(f[1:i], ","), Value: v, Unit: f[i+1], Note: strings.Join(f[i+2:], ",")}, nil
	}
	return MicrobenchRow{}, fmt.Errorf("value %q (field 3) is not a number, nor is any later field followed by a unit", f[2])
}

// A calibRule maps one microbenchmark row to one constant of a Model.
type calibRule struct {
	constant    string // the Model field
	name, param string // the row (param "" matches any; the first match wins)
	unit        string
	set         func(m *Model, v float64) bool // reports false for an implausible value
}

func positive(v float64) bool { return v > 0 && v < 1e30 }

// paramInts is a microbenchmark row's parameter read by re, whose groups
// are all digits (`T=(\d+) b=(\d+)`): their values in order, or ok false
// where the parameter is not of that form (or a number overflows).
func paramInts(re *regexp.Regexp, param string) (v []int, ok bool) {
	p := re.FindStringSubmatch(param)
	if p == nil {
		return nil, false
	}
	v = make([]int, len(p)-1)
	for i, g := range p[1:] {
		n, err := strconv.Atoi(g)
		if err != nil {
			return nil, false
		}
		v[i] = n
	}
	return v, true
}

// calibRules says which measurement sets which constant; TimeConstants and
// docs/timemodel.md list the same.
var calibRules = []calibRule{
	{"ClockHz", "clock", "", "Hz", func(m *Model, v float64) bool { m.ClockHz = v; return v > 1e8 && v < 1e10 }},
	{"L1Latency", "chase_l1", "", "ns", func(m *Model, v float64) bool { m.L1Latency = v * 1e-9; return positive(v) }},
	{"L2Latency", "chase_l2", "", "ns", func(m *Model, v float64) bool { m.L2Latency = v * 1e-9; return positive(v) }},
	{"DRAMLatency", "chase_dram", "268435456B/stride128", "ns", func(m *Model, v float64) bool { m.DRAMLatency = v * 1e-9; return positive(v) }},
	{"LaunchOverhead", "launch_gpu_grid", "", "us", func(m *Model, v float64) bool { m.LaunchOverhead = v * 1e-6; return positive(v) }},
	{"IssuePerSMCycle", "issue_ffma8", "", "warp_instr/SM/cycle", func(m *Model, v float64) bool { m.IssuePerSMCycle = v; return v > 0.1 && v <= 8 }},
	{"WarpCPI", "issue_ffma1", "1 warps/SM", "warp_instr/SM/cycle", func(m *Model, v float64) bool { m.WarpCPI = 1 / v; return v > 0.01 && v <= 4 }},
	{"DRAMAchievable", "dram_copy", "", "B/s", func(m *Model, v float64) bool { m.DRAMAchievable = v; return v > 1e9 }},
	{"L2Bandwidth", "l2_read", "", "B/s", func(m *Model, v float64) bool { m.L2Bandwidth = v; return v > 1e9 }},
}

// calibration is a model's recorded microbenchmark, parsed.
type calibration struct {
	file   string
	device string // the CSV's first comment (GPU, SMs, driver API)
	rows   []MicrobenchRow
	err    error
}

// calibrations parses calibration/*.csv once; the result is never changed
// after, so sharing it is safe.
var calibrations = sync.OnceValue(func() map[string]*calibration {
	out := map[string]*calibration{}
	ents, _ := calibFS.ReadDir("calibration")
	for _, e := range ents {
		key, ok := strings.CutSuffix(e.Name(), ".csv")
		if !ok {
			continue
		}
		c := &calibration{file: "sim/calibration/" + e.Name()}
		data, err := calibFS.ReadFile("calibration/" + e.Name())
		if err == nil {
			var comments []string
			c.rows, comments, err = ParseMicrobench(data)
			if len(comments) > 0 {
				c.device = comments[0]
			}
		}
		c.err = err
		out[key] = c
	}
	return out
})

// microbenchRuns are the recorded microbenchmarks a model's constants
// come from, in the order they apply (a later run may read what an
// earlier set: applyL2Reuse reads DRAMGranuleBytes): each run's embedded
// file by model key and what sets the constants from its rows.
var microbenchRuns = []struct {
	file  func(key string) string
	apply func(Model, []MicrobenchRow) Model
}{
	{func(key string) string { return key }, applyCalibration},
	{mechanismsFile, applyMechanisms},
	{atomicsFile, applyAtomics},
	{dramFile, applyDRAM},
	{dispatchFile, applyDispatch},
	{contentionFile, applyContention},
	{l2reuseFile, applyL2Reuse},
	{l2storeFile, applyL2Store},
	{copyinflightFile, applyCopyInflight},
	{l2warmFile, applyL2Warm},
}

// calibrate returns m with the constants its recorded microbenchmarks set.
func calibrate(m Model) Model {
	for _, r := range microbenchRuns {
		if c := calibrations()[r.file(m.Key)]; c != nil && c.err == nil {
			m = r.apply(m, c.rows)
		}
	}
	return m
}

// microbenchSource is a constant's source from its own microbenchmark's
// embedded run (file, the calibration's key): none when the model has no
// such run or the run set nothing (set false), else measured with the
// run's file and device line.
func microbenchSource(file string, set bool, none string, measured func(file, device string) string) string {
	c := calibrations()[file]
	if c == nil || c.err != nil || !set {
		return none
	}
	return measured(c.file, c.device)
}

// applyCalibration sets each constant a rule names from the first row that
// matches it; a value outside the rule's plausible range leaves the
// constant as it was.
func applyCalibration(m Model, rows []MicrobenchRow) Model {
	for _, r := range calibRules {
		for _, row := range rows {
			if row.Name != r.name || (r.param != "" && row.Param != r.param) || row.Unit != r.unit {
				continue
			}
			saved := m
			if !r.set(&m, row.Value) {
				m = saved
			}
			break
		}
	}
	return m
}

// TimeConstant is one constant of the time model with where it comes from.
type TimeConstant struct {
	Name   string  `json:"name"`
	Value  float64 `json:"value"`
	Unit   string  `json:"unit"`
	Source string  `json:"source"`
}

// TimeConstants lists the time model's constants of m with their sources:
// a row of the model's recorded microbenchmark where one set it, else the
// documented source of the value in model.go.
func TimeConstants(m Model) []TimeConstant {
	c := calibrations()[m.Key]
	measured := func(constant string) (string, bool) {
		if c == nil || c.err != nil {
			return "", false
		}
		for _, r := range calibRules {
			if r.constant != constant {
				continue
			}
			for _, row := range c.rows {
				if row.Name == r.name && (r.param == "" || row.Param == r.param) && row.Unit == r.unit {
					probe := m
					if !r.set(&probe, row.Value) {
						return "", false
					}
					return fmt.Sprintf("measured: %s %s = %g %s (%s; %s)", row.Name, row.Param, row.Value, row.Unit, c.file, c.device), true
				}
			}
		}
		return "", false
	}
	src := func(constant string) string {
		if s, ok := measured(constant); ok {
			return s
		}
		return defaultSources[m.Key][constant]
	}
	mech := mechanismSources(m)
	return []TimeConstant{
		{"ClockHz", m.ClockHz, "Hz", src("ClockHz")},
		{"L1Latency", m.L1Latency, "s", src("L1Latency")},
		{"L2Latency", m.L2Latency, "s", src("L2Latency")},
		{"DRAMLatency", m.DRAMLatency, "s", src("DRAMLatency")},
		{"WarpCPI", m.WarpCPI, "cycles", src("WarpCPI")},
		{"IssuePerSMCycle", m.IssuePerSMCycle, "warp instr/SM/cycle", src("IssuePerSMCycle")},
		{"DRAMAchievable", m.DRAMAchievable, "B/s", src("DRAMAchievable")},
		{"L2Bandwidth", m.L2Bandwidth, "B/s", src("L2Bandwidth")},
		{"LaunchOverhead", m.LaunchOverhead, "s", dispatchSource(m, "LaunchOverhead", src("LaunchOverhead"))},
		{"BlockDispatch", m.BlockDispatch, "s", dispatchSource(m, "BlockDispatch", "")},
		{"MemoryLaunchSeconds", m.MemoryLaunchSeconds, "s", src("MemoryLaunchSeconds")},
		{"BlockSeconds", m.BlockSeconds, "s", blockcostSource(m)},
		{"WarpSlotRelease", b2f(m.WarpSlotRelease), "", warpSlotsSource(m)},
		{"L1InFlight", b2f(m.L1InFlight), "", lineWaitSource(m)},
		{"InStepBandwidth", b2f(m.InStepBandwidth), "", inStepSource(m)},
		{"TimedLaunch", m.TimedLaunch, "s", src("TimedLaunch")},
		{"TimedLaunchPerBuffer", m.TimedLaunchPerBuffer, "s", src("TimedLaunchPerBuffer")},
		{"TimedLaunchPerScalar", m.TimedLaunchPerScalar, "s", src("TimedLaunchPerScalar")},
		{"L1Bytes", float64(m.L1Bytes), "B", src("L1Bytes")},
		{"L1DataBytes", float64(m.L1DataBytes), "B", src("L1DataBytes")},
		{"L1MissFrom", m.L1MissFrom, "", src("L1Miss")},
		{"L1MissTo", m.L1MissTo, "", src("L1Miss")},
		{"L2LineShare", m.L2LineShare, "", src("L2LineShare")},
		{"IssueEfficiency", timing.IssueEfficiency, "", "1: the issue term uses the measured (or published) issue rate as it is; a warp's own stalls are in the latency term (docs/timemodel.md)"},
		{"SharedWavesPerCycle", m.SharedWavesPerCycle, "wavefronts/SM/cycle", mech["SharedWavesPerCycle"]},
		{"SharedWaveCycles", m.SharedWaveCycles, "cycles", mech["SharedWaveCycles"]},
		{"SharedLoadCycles", m.SharedLoadCycles, "cycles", mech["SharedLoadCycles"]},
		{"ShflCycles", m.ShflCycles, "cycles", dramSource(m, "ShflCycles")},
		{"BarrierCycles", m.BarrierCycles, "cycles", mech["BarrierCycles"]},
		{"BarrierCyclesPerWarp", m.BarrierCyclesPerWarp, "cycles/warp", mech["BarrierCycles"]},
		{"BarrierWarpCycles", m.BarrierWarpCycles, "cycles/warp", contentionSource(m)},
		{"DRAMInflightPoints", float64(len(m.DRAMInflight)), "points", mech["DRAMInflight"]},
		{"L2InflightPoints", float64(len(m.L2Inflight)), "points", mech["L2Inflight"]},
		{"L2LoadedPoints", float64(len(m.L2Loaded)), "points", mech["L2Loaded"]},
		{"RegistersPerSM", float64(m.RegistersPerSM), "registers", mech["RegistersPerSM"]},
		{"RegAllocUnit", float64(m.RegAllocUnit), "registers", mech["RegAllocUnit"]},
		{"AtomicWordSeconds", m.AtomicWordSeconds, "s", atomicSource(m, "measured: 1 / atom_g_same at 64 warps per SM (every lane of every warp on one word)")},
		{"AtomicSectorSeconds", m.AtomicSectorSeconds, "s", atomicSource(m, "measured: 1 / atom_g_words at w = 8 (eight lanes of each warp on one sector)")},
		{"AtomicLineSeconds", m.AtomicLineSeconds, "s", atomicSource(m, "measured: 32 / atom_g_lines at m = 1 (a word a lane, every warp on one line); a lane costs a 32nd")},
		{"AtomicUnitsPoints", float64(len(m.AtomicUnits)), "points", atomicSource(m, "measured: atom_g_lines at m lines over its rate at one, and atom_g_spread")},
		{"DRAMGranuleBytes", m.DRAMGranuleBytes, "B", dramSource(m, "DRAMGranuleBytes")},
		{"L2ReuseBytes", m.L2ReuseBytes, "B", l2reuseSource(m)},
		{"WarmCapacity", m.WarmCapacity(&m.GPU), "B", l2warmSource(m)},
		{"L2StoreLineSeconds", m.L2StoreLineSeconds, "s", l2storeSource(m)},
		{"DRAMWrite", m.DRAMWrite, "B/s", copyinflightSource(m)},
		{"DRAMOverlap", m.DRAMOverlap, "", copyinflightSource(m)},
		{"DRAMLoadedPoints", float64(len(m.DRAMLoaded)), "points", dramSource(m, "DRAMLoaded")},
		{"DRAMScatterLatency", m.DRAMScatterLatency, "s", dramSource(m, "DRAMScatterLatency")},
		{"L2ScatterLatency", m.L2ScatterLatency, "s", dramSource(m, "L2ScatterLatency")},
	}
}

// atomicSource names an atomics constant's rows and the embedded file
// they come from, or says the model has none.
func atomicSource(m Model, rows string) string {
	c := calibrations()[atomicsFile(m.Key)]
	if c == nil || c.err != nil || m.AtomicLineSeconds <= 0 {
		return "none: no atomics microbenchmark for this model (no atomics term)"
	}
	return fmt.Sprintf("%s (%s; %s)", rows, c.file, c.device)
}

// CalibrationFile is the embedded microbenchmark copy behind model key's
// constants ("" when it has none).
func CalibrationFile(key string) string {
	if c := calibrations()[key]; c != nil && c.err == nil {
		return c.file
	}
	return ""
}

// defaultSources documents the values in model.go, used until (or where)
// a recorded microbenchmark replaces them.
var defaultSources = map[string]map[string]string{
	"h200": {
		"MemoryLaunchSeconds":  "none: no H200 launch record times the copy kernels yet (warplab bench launch has timed them since 2026-12-07; the thirty-sixth pass's rule, docs/timemodel.md)",
		"L1Bytes":              "published: 256 KB of combined L1 data cache and shared memory per SM (NVIDIA H100 Tensor Core GPU Architecture whitepaper, 2022; the H200 has the same SM)",
		"L1DataBytes":          "published: all of it can be L1 when a kernel uses no shared memory (the carve-outs run from 0 to 228 KB of shared memory)",
		"L2LineShare":          "measured: evidence/timemodel-l2sectors-h200-2026-12-01 (a warm 16 MiB buffer read with ld.global.cg at 64 warps per SM, eight loads in flight a thread): lanes 128 bytes apart, one sector of each of 32 lines a request, are served at 1.30e11 sectors (and lines) a second, 4.17 TB/s of sectors, against 2.51e11 sectors a second at l2_read's 8.03 TB/s; 1.30/2.51 = 0.52. Two sectors a line (6.75 TB/s) and four (6.69 TB/s) are not line-bound",
		"L1Miss":               "read off the H200 microbenchmark evidence/timemodel-l1reuse-h200-2026-12-01 (rowsUnroll1 and rowsValColUnroll1, one wave, ncu L2 read sectors against the footprint): no re-read lost at ρ = 0.5 (measured 0.00-0.04 at 32 warps of one array), about half at ρ = 1 (0.45-0.59 one array at 64 warps, 0.19-0.62 two arrays at 32), nearly all at ρ = 2 (0.93-0.98); the line from 0.5 to 1.5 passes through those. sim.TestL1CapacityMicrobenchmark runs rowsUnroll1 on the simulator against the recorded shares",
		"ClockHz":              "published boost clock (1,980 MHz)",
		"L1Latency":            "estimate of the 2026-11-29 time model (40 ns), fitted then against the H200 runs in evidence/spmv-2p19-h200-2026-11-29; replaced by chase_l1 once recorded",
		"L2Latency":            "estimate of the 2026-11-29 time model (300 ns), as L1Latency; replaced by chase_l2 once recorded",
		"DRAMLatency":          "estimate of the 2026-11-29 time model (700 ns, a loaded latency), as L1Latency; replaced by chase_dram once recorded",
		"WarpCPI":              "published: dependent FP32/INT32 arithmetic takes 4 cycles on Volta and later SMs (Jia et al., Dissecting the NVIDIA Volta/Turing GPU architectures via microbenchmarking, 2018/2019); replaced by issue_ffma1 once recorded",
		"IssuePerSMCycle":      "published: 4 schedulers per SM, one warp instruction each per cycle",
		"DRAMAchievable":       "measured: CG's copy kernel, 3,587-3,591 GB/s (evidence/cg-50-h200-2026-11-30, bandwidth.copy_gbps); replaced by dram_copy once recorded",
		"L2Bandwidth":          "estimate of the 2026-11-29 time model (10 TB/s); replaced by l2_read once recorded",
		"LaunchOverhead":       "estimate of the 2026-11-29 time model (2 µs of GPU time per kernel); replaced by launch_gpu_grid once recorded, and by the dispatch run's intercept once that was",
		"TimedLaunch":          "measured: the median time per call of a kernel at the floor launched from Go through gpuext with the lessons' protocol (3 warm-ups, CUDA events around 10 runs; warplab bench launch, each a median of 101 timings) over every H200 record that times with the protocol, 20 records from four leases (evidence/timemodel-launchargs-2039-h200-2026-12-01, -2041-, timemodel-launchcurve-h200-2026-12-04, timemodel-launchmany-h200-2026-12-06): the empty kernel's 20 timings (3.88-6.36 µs) and the spin kernel's 30 at 0 to 1 µs of spin less a scalar's cost, 5.415 µs; internal/timecheck holds it to the records. The floor is the lease's: one lease's host ran in two modes (about 4.2 and 6.2 µs a call, 2026-12-06). Until 2026-12-06 it was the median of the newest day's empty-kernel timings alone (5.45 µs, 2026-12-04's five); until 2026-12-04 15:00 UTC the host loop's back-to-back interval (5.17 µs from the same records); until 2026-12-01 it was fitted on the training half of the check (5.27 µs), a fit that moved from 6.5 to 4.9 µs with the rule once repeats were recorded",
		"TimedLaunchPerBuffer": "measured: warplab bench launch times a kernel of six arguments (five buffers and a count) and one of six scalars with the lessons' protocol, each a median of 101 timings; per record (six arguments − empty − a scalar's cost) / 5, 0.259 µs, the median over the same 20 records (0.05-0.55 µs), so that the floor of a kernel of five buffers and a count is that kernel's own timing; the 2026-12-06 records also time the split kernels' fourteen arguments (eleven buffers, three counts). Until 2026-12-06 the newest day's median (0.384 µs, 2026-12-04); until 2026-12-04 15:00 UTC (six arguments − six scalars) / 5, 0.282 µs: a buffer's cost over a scalar's, taken as its whole cost",
		"TimedLaunchPerScalar": "measured: as TimedLaunchPerBuffer, (six scalars − the empty kernel) / 6 per record, 0.083 µs, the median over the same 20 records (−0.19 to 0.42 µs: the host's scatter; until 2026-12-06 the newest day's, 0.102 µs)",
	},
	"h100": {
		"MemoryLaunchSeconds":  "none: measured, not adopted: warplab timemodel floorcopy --model h100 on the H100's launch records (evidence/timemodel-sweep-0338-h100-2026-12-07, 2026-12-07 03:38 UTC; 2 of its 4 records time the warp copy over the empty kernel by more than 0.3 µs) gives the warp copy's GPU time 3.365 µs against the model's 2.108 µs, 1.257 µs by the thirty-sixth pass's rule; the H100's sweep went from 198 to 199 of 223 within 25% on one lease and from 199 to 198 on the other with it (docs/timemodel.md, \"Another GPU\"); with the rule corrected to the copy's own floor (its two buffers and count) and the six records of evidence/timemodel-launchcopy-h100-2026-12-07, 2 of 10 records and 1.664 µs, which took the sweep on both leases from 206 to 201 of 223, not adopted either; with the records of 2026-12-07's 08:01 and 08:38 calls, 4 of 15 records and 2.332 µs, which took the sweep on three leases from 210 to 202 of 223, not adopted; with the fourth sweep lease's (16:58), 6 of 18 records and 2.377 µs, which took the sweep on four leases from 217 to 210 of 223, not adopted",
		"L1Bytes":              "published: 256 KB of combined L1 and shared memory per SM (NVIDIA H100 whitepaper)",
		"L1DataBytes":          "published: carve-outs from 0 KB of shared memory",
		"L1Miss":               "the H200's curve (same SM)",
		"L2LineShare":          "the H200's share (same L2)",
		"ClockHz":              "published boost clock",
		"L1Latency":            "the H200's value (same SM)",
		"L2Latency":            "the H200's value (same SM and L2)",
		"DRAMLatency":          "the H200's value (HBM3 instead of HBM3e: assumed equal)",
		"WarpCPI":              "the H200's value (same SM)",
		"IssuePerSMCycle":      "published: 4 schedulers per SM",
		"DRAMAchievable":       "assumed 75% of the published 3.35 TB/s (the H200 reaches 75% of its 4.8 TB/s)",
		"L2Bandwidth":          "the H200's estimate",
		"LaunchOverhead":       "the H200's estimate",
		"TimedLaunch":          "the H200's measured value (a property of the host and gpuext, not of the GPU), assumed",
		"TimedLaunchPerBuffer": "the H200's measured value (a property of the host and gpuext), assumed",
		"TimedLaunchPerScalar": "the H200's measured value (a property of the host and gpuext), assumed",
	},
	"a100": {
		"MemoryLaunchSeconds":  "none: no A100 launch records",
		"L1Bytes":              "published: 192 KB of combined L1 and shared memory per SM (NVIDIA A100 Tensor Core GPU Architecture whitepaper, 2020)",
		"L1DataBytes":          "published: carve-outs from 0 KB of shared memory",
		"L1Miss":               "the H200's curve, assumed",
		"L2LineShare":          "the H200's share, assumed",
		"ClockHz":              "published boost clock",
		"L1Latency":            "the H200's estimate, assumed",
		"L2Latency":            "the H200's estimate, assumed",
		"DRAMLatency":          "the H200's estimate, assumed",
		"WarpCPI":              "published: 4-cycle dependent arithmetic",
		"IssuePerSMCycle":      "published: 4 schedulers per SM",
		"DRAMAchievable":       "assumed 85% of the published 1,935 GB/s",
		"L2Bandwidth":          "estimate (5.5 TB/s)",
		"LaunchOverhead":       "estimate (2.5 µs)",
		"TimedLaunch":          "the H200's measured value (a property of the host and gpuext, not of the GPU), assumed",
		"TimedLaunchPerBuffer": "the H200's measured value (a property of the host and gpuext), assumed",
		"TimedLaunchPerScalar": "the H200's measured value (a property of the host and gpuext), assumed",
	},
	"t4": {
		"MemoryLaunchSeconds":  "none: no T4 launch records; not measured here",
		"L1Bytes":              "published: 96 KB of combined L1 and shared memory per SM on Turing (NVIDIA Turing GPU Architecture whitepaper, 2018); not measured here",
		"L1DataBytes":          "published: the L1 takes 32 or 64 KB of it (shared memory 64 or 32 KB); not measured here",
		"L1Miss":               "the H200's curve, assumed; not measured here (no T4 to measure)",
		"L2LineShare":          "the H200's share, assumed; not measured here (no T4 to measure)",
		"ClockHz":              "published boost clock (1,590 MHz); not measured here (no T4 to measure)",
		"L1Latency":            "published microbenchmark figure: about 32 cycles (Jia et al., Dissecting the NVidia Turing T4 GPU via Microbenchmarking, arXiv:1903.07486, 2019); not measured here",
		"L2Latency":            "published microbenchmark figure: about 188 cycles (Jia et al. 2019, as L1Latency); not measured here",
		"DRAMLatency":          "assumed 500 ns: GDDR6 latency of the order Jia et al. 2019 report; not measured here",
		"WarpCPI":              "published: 4-cycle dependent arithmetic on Turing (Jia et al. 2019)",
		"IssuePerSMCycle":      "published: 4 schedulers per SM",
		"DRAMAchievable":       "assumed 80% of the published 320 GB/s; not measured here",
		"L2Bandwidth":          "estimate (1.3 TB/s); not measured here",
		"LaunchOverhead":       "estimate (3 µs); not measured here",
		"TimedLaunch":          "the H200's measured value (a property of the host and gpuext), assumed for Colab's host; not measured here",
		"TimedLaunchPerBuffer": "the H200's measured value, assumed for Colab's host; not measured here",
		"TimedLaunchPerScalar": "the H200's measured value, assumed for Colab's host; not measured here",
	},
}

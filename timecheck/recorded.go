package timecheck

import (
	"encoding/json"
	"fmt"
	"github.com/warplab/warplab/internal/launchrec"
	"github.com/warplab/warplab/sim"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/warplab/warplab/internal/ncu"
	"github.com/warplab/warplab/internal/stats"
)

// Run is one kernel run the check compares: what the lesson timed on the
// GPU (CUDA events, launches back to back, per call) and, once Simulate has
// run, what the simulator models for the same kernel and input.
type Run struct {
	Lesson string `json:"lesson"` // "spmv", "tiling", "cg" or "launch"
	Input  string `json:"input"`  // "even 2^19", "rajat01", "N=512", "50³"
	Kernel string `json:"kernel"` // the lesson's name for it ("thread_per_row", "matmulTiled", "stage 5 spmv")
	Config string `json:"config"` // what else the lesson set ("unroll 4, probe 1056 blocks")
	// Group names the runs on one input under one configuration: the pairs
	// whose faster kernel the model must pick.
	Group string `json:"group"`
	// Half is "train" or "test" (see Halves); "calibration" for a run that
	// sets a constant, left out of the summaries.
	Half string `json:"half"`

	Measured float64 `json:"measured_s"` // seconds per call, CUDA events (median over recorded repeats)
	// LaunchesPerCall is, for CG, the recorded solve's kernel launches per
	// call of the operation (2 for a ddot that launches its partial and
	// final kernels every call; fewer where a call skips a launch); 0
	// elsewhere.
	LaunchesPerCall float64  `json:"launches_per_call,omitempty"`
	NCU             float64  `json:"ncu_s,omitempty"` // Nsight Compute's gpu__time_duration, median, seconds (0: none recorded)
	Sources         []string `json:"sources"`         // evidence files, relative to the repository

	Modeled       float64 `json:"modeled_s,omitempty"`        // the simulator's time per call (what the lesson prints)
	ModeledKernel float64 `json:"modeled_kernel_s,omitempty"` // the kernel alone, cold caches (to compare with NCU)
	// ModeledGPU is the GPU's modeled time per launch in the timed protocol,
	// before the host's launch interval is applied (spmv and tiling runs;
	// 0 for CG, whose per-call times sum several launches).
	ModeledGPU float64 `json:"modeled_gpu_s,omitempty"`
	Bound      string  `json:"bound,omitempty"`
	Skipped    string  `json:"skipped,omitempty"` // why no modeled time
}

// Key identifies a run: lesson, input, configuration and kernel.
func (r Run) Key() string {
	return r.Lesson + "|" + r.Input + "|" + r.Config + "|" + r.Kernel
}

// Ratio is modeled over measured (0 when not modeled).
func (r Run) Ratio() float64 {
	if r.Modeled <= 0 || r.Measured <= 0 {
		return 0
	}
	return r.Modeled / r.Measured
}

// Halves names the split of the runs, fixed before anything was fitted:
// the training half is what the 2026-11-29 model was tuned on and the
// Day-37/lecture-4 promise (the seed pair at 2^19 rows, lecture 4 at
// N=512) plus CG at 50³; the test half is every other input (the
// SuiteSparse matrices, the seed pair at 2^23, lecture 4 at N=256, CG at
// 20³ and 100³), and any input recorded later.
const Halves = "train: spmv seed pair at 2^19, tiling N=512, CG 50³; test: everything else"

func halfOf(lesson, input string) string {
	switch {
	case lesson == "spmv" && strings.HasSuffix(input, " 2^19"),
		lesson == "tiling" && input == "N=512",
		lesson == "cg" && input == "50³":
		return "train"
	}
	return "test"
}

// lessonJSON is what the check reads of a lesson's --json output.
type lessonJSON struct {
	Lesson  string          `json:"lesson"`
	Backend string          `json:"backend"`
	Date    string          `json:"date"`
	Probe   int             `json:"probe_blocks"`
	Unroll  int             `json:"unroll"`
	Runs    json.RawMessage `json:"runs"`
	Options struct {
		N             int `json:"n"`
		Tile          int `json:"tile"`
		Coarse        int `json:"coarse"`
		TransposeTile int `json:"transpose_tile"`
	} `json:"options"`
	Matrices []struct {
		Name string `json:"name"`
		Rows int    `json:"rows"`
	} `json:"matrices"`
	Grid   []int `json:"grid"`
	Stages []struct {
		Stage   int    `json:"stage"`
		Backend string `json:"backend"`
		Kernels []struct {
			Name     string  `json:"name"`
			Seconds  float64 `json:"seconds"`
			Calls    int     `json:"calls"`
			Launches int     `json:"launches"`
			Where    string  `json:"where"`
			Timer    string  `json:"timer"`
		} `json:"kernels"`
	} `json:"stages"`
}

type spmvRun struct {
	Matrix     string  `json:"matrix"`
	Kernel     string  `json:"kernel"`
	CUDAKernel string  `json:"cuda_kernel"`
	Rows       int     `json:"rows"`
	TimeMs     float64 `json:"time_ms"`
	TimeKind   string  `json:"time_kind"`
}

type tilingRun struct {
	Kernel   string  `json:"kernel"`
	N        int     `json:"n"`
	Tile     int     `json:"tile"`
	Coarse   int     `json:"coarse"`
	TimeMs   float64 `json:"time_ms"`
	TimeKind string  `json:"time_kind"`
}

// CGKernelsSince is when stages 1–8's kernels last changed (commit
// 45eb1ef: stage 3's copy by cuMemcpyDtoD). cg.cu has only grown since:
// stages 9 and 10 were appended, so the cg.cu that the CG runs counted
// here compiled is the beginning of today's, byte for byte
// (TestCGRecordingsSource holds that).
// A CG run recorded before this date timed other kernels and does not
// count.
const CGKernelsSince = "2026-11-30T19:59:29Z"

// Recorded reads every recorded GPU run under root/evidence that a lesson
// times: each folder's lesson JSON files (spmv, tiling, cg; backend "gpu"),
// the Nsight Compute CSVs beside them, and the launch-overhead run. Runs
// of the same kernel, input and configuration in several files (repeats)
// are one run with the median of their measured times: a timing now and
// then takes several times as long as the others (lecture 4's matmulTiled
// at N=256: 11.2, 11.2, 12.1 and 43.3 µs over four recordings), and one
// such run should not decide what a student sees. For CG the lesson's whole
// runs count (cg.json, and cg-*.json for repeats), those recorded since
// CGKernelsSince: earlier ones timed earlier versions of the kernels
// (evidence/README.md, "Which CG runs hold"). Unreadable JSON is an error
// naming the file.
func Recorded(root string) ([]Run, error) {
	files, err := filepath.Glob(filepath.Join(root, "evidence", "*", "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	type acc struct {
		run  Run
		meas []float64 // one measured time per file that holds the run
		ncu  []float64
		cuda string
	}
	byKey := map[string]*acc{}
	var order []string
	add := func(r Run, src string) *acc {
		k := r.Key()
		a, ok := byKey[k]
		if !ok {
			a = &acc{run: r}
			byKey[k] = a
			order = append(order, k)
		}
		a.meas = append(a.meas, r.Measured)
		a.run.Sources = append(a.run.Sources, src)
		return a
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var j lessonJSON
		if err := json.Unmarshal(data, &j); err != nil {
			// Not every JSON under evidence is a lesson's; one that does
			// not parse as an object is skipped only if it is not one.
			if strings.Contains(string(data[:min(len(data), 200)]), `"lesson"`) {
				return nil, fmt.Errorf("timecheck: %s: %v", rel(root, f), err)
			}
			continue
		}
		if j.Backend != "gpu" {
			continue
		}
		src := rel(root, f)
		switch j.Lesson {
		case "spmv":
			var runs []spmvRun
			if err := json.Unmarshal(j.Runs, &runs); err != nil {
				return nil, fmt.Errorf("timecheck: %s: runs: %v", src, err)
			}
			rows := map[string]int{}
			for _, m := range j.Matrices {
				rows[m.Name] = m.Rows
			}
			config := fmt.Sprintf("unroll %d, probe %d blocks", j.Unroll, j.Probe)
			ncuDur := spmvNCU(root, f, runs)
			for i, r := range runs {
				if r.TimeKind != "measured" || r.TimeMs <= 0 {
					continue
				}
				input := r.Matrix
				if r.Matrix == "even" || r.Matrix == "skewed" {
					input = fmt.Sprintf("%s %s", r.Matrix, pow2(rows[r.Matrix]))
				}
				a := add(Run{Lesson: "spmv", Input: input, Kernel: r.Kernel, Config: config,
					Group: "spmv|" + input + "|" + config, Measured: r.TimeMs * 1e-3}, src)
				if ncuDur != nil && ncuDur[i] > 0 {
					a.ncu = append(a.ncu, ncuDur[i])
				}
			}
		case "tiling":
			var runs []tilingRun
			if err := json.Unmarshal(j.Runs, &runs); err != nil {
				return nil, fmt.Errorf("timecheck: %s: runs: %v", src, err)
			}
			ncuDur := tilingNCU(root, f, j.Options.N)
			for _, r := range runs {
				if r.TimeKind != "measured" || r.TimeMs <= 0 {
					continue
				}
				input := fmt.Sprintf("N=%d", r.N)
				config := fmt.Sprintf("tile %d, coarse %d, transpose tile %d", j.Options.Tile, j.Options.Coarse, j.Options.TransposeTile)
				a := add(Run{Lesson: "tiling", Input: input, Kernel: r.Kernel, Config: config,
					Group: "tiling|" + input + "|" + config, Measured: r.TimeMs * 1e-3}, src)
				if d := ncuDur[r.Kernel]; d > 0 {
					a.ncu = append(a.ncu, d)
				}
			}
		case "cg":
			base := filepath.Base(f)
			if (base != "cg.json" && !strings.HasPrefix(base, "cg-")) || len(j.Grid) != 3 || j.Date < CGKernelsSince {
				continue
			}
			g := gridName(j.Grid)
			for _, s := range j.Stages {
				if s.Backend != "gpu" {
					continue
				}
				for _, k := range s.Kernels {
					if k.Where != "gpu" || k.Timer != "cuda_event" || k.Calls == 0 || k.Seconds <= 0 {
						continue
					}
					config := fmt.Sprintf("stage %d", s.Stage)
					add(Run{Lesson: "cg", Input: g, Kernel: fmt.Sprintf("stage %d %s", s.Stage, k.Name), Config: config,
						Group: "cg|" + g + "|" + config, Measured: k.Seconds / float64(k.Calls),
						LaunchesPerCall: float64(k.Launches) / float64(k.Calls)}, src)
				}
			}
		}
	}
	lrs, err := launchRuns(root)
	if err != nil {
		return nil, err
	}
	for _, lr := range lrs {
		add(lr, lr.Sources[0])
		byKey[lr.Key()].run.Sources = lr.Sources
	}
	out := make([]Run, 0, len(order))
	for _, k := range order {
		a := byKey[k]
		r := a.run
		r.Measured = stats.Median(a.meas)
		if len(a.ncu) > 0 {
			r.NCU = stats.Median(a.ncu)
		}
		if r.Half == "" {
			r.Half = halfOf(r.Lesson, r.Input)
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool { return lessThan(out[i], out[j]) })
	return out, nil
}

// lessThan orders runs by lesson, input, configuration, then as recorded.
func lessThan(a, b Run) bool {
	if a.Lesson != b.Lesson {
		return lessonRank(a.Lesson) < lessonRank(b.Lesson)
	}
	if a.Input != b.Input {
		return a.Input < b.Input
	}
	return a.Config < b.Config
}

func lessonRank(l string) int {
	switch l {
	case "spmv":
		return 0
	case "tiling":
		return 1
	case "cg":
		return 2
	}
	return 3
}

// LaunchModel is the model whose GPU's launch records set the model's
// launch floor (TimedLaunch and its costs per argument): the H200's, whose
// lesson runs the check holds the model to. A record of `warplab bench
// launch` on another GPU (evidence/libs-floor-h100-2026-12-06, on an
// H100's host) is left out, however new.
const LaunchModel = "h200"

// ofModel says whether a GPU's name names model (sim.ModelNamed): the one
// test of which GPU's records and runs a model takes, for the launch
// floor (launchRuns), a lease's floor (LeaseFloors) and the sweep's cases
// (SweepOfModel).
func ofModel(model string) func(gpu string) bool {
	return func(gpu string) bool {
		m, ok := sim.ModelNamed(gpu)
		return ok && m.Key == model
	}
}

// Kernel names of the launch calibration runs, one per model constant
// they set (NewReport).
const (
	LaunchEmpty     = "emptyKernel"
	LaunchPerBuffer = "per buffer argument"
	LaunchPerScalar = "per scalar argument"
	// LaunchSpin prefixes the spin curve's runs: "spin 4000 ns" is the
	// time per call of a kernel that holds one thread 4 µs.
	LaunchSpin = "spin "
)

// launchRuns reads the records of Go's launch microbenchmark (`warplab
// bench launch`): evidence/launch-overhead-*/launch-overhead.txt and the
// timemodel runs' launch-go*.txt, those of LaunchModel's GPU (a record that names
// another GPU is left out). Each figure is a median over records: the
// host's launch interval moves from call to call and from lease to lease
// (4.06 to 5.98 µs over 2026-12-01's records; two modes, about 4.2 and 6.2
// µs, within one process on 2026-12-06's), so one record would not do.
// Every record that times with the lessons' protocol counts, whatever its
// day: the lessons' runs, the sweep's and the ones we hold out were each
// timed on a lease of its own, so the model's floor is a property of the
// H200's leases, not of the newest one (until 2026-12-06 only the newest
// day's records counted, which set the floor to the lease that recorded
// last). Records without the protocol (before 2026-12-01, 20:39 UTC) count
// only when no record has it, the newest day's alone (the date that ends
// the folder's name).
//
// It returns up to three calibration runs, left out of the summaries. The
// model predicts the lessons' protocol (3 warm-ups, CUDA events around 10
// runs), so where records time with that protocol the floor is
// theirs:
//   - LaunchEmpty, the model's TimedLaunch: the median of the protocol's
//     timings of kernels at the floor where the records have them: the
//     empty kernel's and, where a record times the spin curve, the spin
//     kernel's at spins of at most launchrec.FloorSpinNs less a scalar's cost (its
//     one argument; LaunchPerScalar's median). Each measures the host's
//     interval alone (the curve is flat to 3 µs of spin,
//     evidence/timemodel-launchcurve-h200-2026-12-04), and the interval is
//     bimodal within one process (about 4.2 or 6.2 µs on 2026-12-06's
//     host, evidence/timemodel-launchmany-h200-2026-12-06), so five
//     empty-kernel timings alone land in one mode or the other; until
//     2026-12-06 it was their median alone. Records without the protocol
//     (before 2026-12-01, 20:39 UTC): the median of back-to-back launches
//     by the host clock. The protocol costs more than the host's loop
//     (6.36 against 5.36 µs in one record): it is what the lessons time.
//   - LaunchPerBuffer and LaunchPerScalar, from the records that time with
//     the protocol a kernel of six arguments (five buffers and a count)
//     and one of six scalars: per record, a scalar's cost s = (six scalars
//     − empty) / 6 and a buffer's (six arguments − empty − s) / 5, so that
//     TimedLaunch + 5 buffers + 1 scalar gives the six-argument kernel's
//     own time (gpuext checks every buffer before it launches, and the
//     driver copies every argument); the model's TimedLaunchPerBuffer and
//     TimedLaunchPerScalar are their medians, taken as 0 when a median is
//     negative (a cost below the scatter). Before 2026-12-04, 15:00 UTC a buffer's
//     cost was (six arguments − six scalars) / 5, a buffer's cost over a
//     scalar's, which the floor then used as the whole cost: a
//     six-argument kernel's floor came out 1.3 µs under its own timing.
//   - LaunchSpin, one per spin time, from the records that also time the
//     spin kernel (launchbench's spin curve): its time per call, the
//     median over the records. Those past launchrec.FloorSpinNs set nothing (the
//     ones at or under it are in LaunchEmpty's pool): the check sets each
//     beside the model's time per call for a kernel of that time
//     (Constants.TimedCall), a test of how the model joins the host's
//     launch interval and the GPU's time.
func launchRuns(root string) ([]Run, error) {
	a, _ := filepath.Glob(filepath.Join(root, "evidence", "launch-overhead-*", "launch-overhead.txt"))
	b, _ := filepath.Glob(filepath.Join(root, "evidence", "*", "launch-go*.txt"))
	recs, err := readLaunchRecords(root, append(a, b...), ofModel(LaunchModel))
	if err != nil || len(recs) == 0 {
		return nil, err
	}
	date := func(f string) string {
		d := filepath.Base(filepath.Dir(f))
		if len(d) >= 10 {
			return d[len(d)-10:]
		}
		return d
	}
	newest := ""
	for _, r := range recs {
		newest = max(newest, date(r.file))
	}
	var us []float64
	var srcs, argSrcs, spinSrcs []string
	spin := map[int][]float64{} // spin ns -> µs per call, one a record
	for _, r := range recs {
		if date(r.file) == newest {
			us = append(us, r.HostLoop)
			srcs = append(srcs, rel(root, r.file))
		}
		if r.Protocol {
			argSrcs = append(argSrcs, rel(root, r.file))
		}
		if len(r.Spin) > 0 {
			for ns, v := range r.Spin {
				spin[ns] = append(spin[ns], v)
			}
			spinSrcs = append(spinSrcs, rel(root, r.file))
		}
	}
	calib := func(kernel, config string, us float64, srcs []string) Run {
		return Run{Lesson: "launch", Input: "empty kernel", Kernel: kernel, Config: config,
			Group: "launch", Half: "calibration", Measured: us * 1e-6, Sources: srcs}
	}
	out := []Run{calib(LaunchEmpty, "Go, back to back (host clock)", stats.Median(us), srcs)}
	if f, ok := floorOf(recs); ok {
		out[0] = calib(LaunchEmpty, "lessons' protocol: the empty kernel, and the spin kernel at most 1 µs less a scalar", f.TimedLaunch*1e6, argSrcs)
		out = append(out,
			calib(LaunchPerBuffer, "lessons' protocol, (six arguments − empty − a scalar) / 5", f.TimedLaunchPerBuffer*1e6, argSrcs),
			calib(LaunchPerScalar, "lessons' protocol, six scalars' cost over none / 6", f.TimedLaunchPerScalar*1e6, argSrcs))
	}
	nss := make([]int, 0, len(spin))
	for ns := range spin {
		nss = append(nss, ns)
	}
	sort.Ints(nss)
	for _, ns := range nss {
		out = append(out, calib(fmt.Sprintf("%s%d ns", LaunchSpin, ns), "lessons' protocol, one thread spinning that long on the GPU's timer", stats.Median(spin[ns]), spinSrcs))
	}
	return out, nil
}

// launchRecord is one `warplab bench launch` record and its file.
type launchRecord struct {
	launchrec.Record
	file string
}

// readLaunchRecords reads the given `warplab bench launch` records, those
// whose GPU gpu accepts (a record that names none is kept).
func readLaunchRecords(root string, files []string, gpu func(name string) bool) ([]launchRecord, error) {
	var recs []launchRecord
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		r, err := launchrec.ReadText(data)
		if err != nil {
			return nil, fmt.Errorf("timecheck: %s: %w", rel(root, f), err)
		}
		if r.GPU != "" && !gpu(r.GPU) {
			continue // another GPU's host
		}
		recs = append(recs, launchRecord{Record: r, file: f})
	}
	return recs, nil
}

// floorOf is launchrec.Floor of recs.
func floorOf(recs []launchRecord) (sim.HostFloor, bool) {
	rs := make([]launchrec.Record, len(recs))
	for i, r := range recs {
		rs[i] = r.Record
	}
	return launchrec.Floor(rs)
}

// LeaseFloors returns the host floor (floorOf) of each evidence folder
// that holds `warplab bench launch` records with the lessons' protocol
// (launch-go*.txt) of a GPU that model stands for (sim.ModelNamed: "h200"
// takes the H200's, "h100" an H100's), keyed by the folder relative to
// root: the floor of the lease that recorded the folder's runs. Since the
// thirty-fifth pass the sweep's cases recorded beside such records are
// modeled with them (SweepSimOptions.Floors) instead of the model's floor,
// the median over every H200 lease: the GPU's time is what the sweep
// judges, and the host's interval on a lease moves by more than the band
// between leases (docs/timemodel.md).
func LeaseFloors(root, model string) (map[string]sim.HostFloor, error) {
	files, _ := filepath.Glob(filepath.Join(root, "evidence", "*", "launch-go*.txt"))
	byDir := map[string][]string{}
	for _, f := range files {
		d := filepath.Dir(f)
		byDir[d] = append(byDir[d], f)
	}
	out := map[string]sim.HostFloor{}
	for d, fs := range byDir {
		recs, err := readLaunchRecords(root, fs, ofModel(model))
		if err != nil {
			return nil, err
		}
		if f, ok := floorOf(recs); ok {
			out[rel(root, d)] = f
		}
	}
	return out, nil
}

// spmvNCU returns ncu's median gpu__time_duration (seconds) for each of the
// lesson's runs, from an ncu CSV recorded with the same command: in the
// same folder, ncu-<matrix>.csv (one matrix) or ncu-unroll<u>.csv beside a
// lesson.json, or ncu-<base>.csv beside <base>.json. Launch groups match
// runs in order and by CUDA kernel name; nil when none matches.
func spmvNCU(root, jsonFile string, runs []spmvRun) []float64 {
	dir := filepath.Dir(jsonFile)
	base := strings.TrimSuffix(filepath.Base(jsonFile), ".json")
	var cands []string
	cands = append(cands, filepath.Join(dir, "ncu-"+base+".csv"))
	if base == "lesson" {
		cands = append(cands, filepath.Join(dir, "ncu-unroll4.csv"))
	}
	for _, c := range cands {
		ls, err := ncu.ReadFile(c)
		if err != nil {
			continue
		}
		groups := ncu.Groups(ls)
		if len(groups) != len(runs) {
			continue
		}
		out := make([]float64, len(runs))
		ok := true
		for i, g := range groups {
			if g[0].Kernel != runs[i].CUDAKernel {
				ok = false
				break
			}
			var d []float64
			for _, l := range g {
				if v, has := l.Metric(ncu.DurationNs); has {
					d = append(d, v*1e-9)
				}
			}
			if len(d) > 0 {
				out[i] = stats.Median(d)
			}
		}
		if ok {
			return out
		}
	}
	return nil
}

// tilingNCU returns ncu's median gpu__time_duration per kernel name from a
// CSV beside the JSON (ncu-<base>.csv) or in a tiling-ncu-<N>-* folder.
func tilingNCU(root, jsonFile string, n int) map[string]float64 {
	dir := filepath.Dir(jsonFile)
	base := strings.TrimSuffix(filepath.Base(jsonFile), ".json")
	cands := []string{filepath.Join(dir, "ncu-"+base+".csv")}
	more, _ := filepath.Glob(filepath.Join(root, "evidence", fmt.Sprintf("tiling-ncu-%d-*", n), "ncu.csv"))
	cands = append(cands, more...)
	for _, c := range cands {
		ls, err := ncu.ReadFile(c)
		if err != nil {
			continue
		}
		by := map[string][]float64{}
		for _, l := range ls {
			if v, ok := l.Metric(ncu.DurationNs); ok {
				by[l.Kernel] = append(by[l.Kernel], v*1e-9)
			}
		}
		if len(by) == 0 {
			continue
		}
		out := map[string]float64{}
		for k, v := range by {
			out[k] = stats.Median(v)
		}
		return out
	}
	return map[string]float64{}
}

func pow2(n int) string {
	if n > 0 && n&(n-1) == 0 {
		return fmt.Sprintf("2^%d", int(math.Log2(float64(n))))
	}
	return strconv.Itoa(n)
}

func gridName(g []int) string {
	if g[0] == g[1] && g[1] == g[2] {
		return fmt.Sprintf("%d³", g[0])
	}
	return fmt.Sprintf("%dx%dx%d", g[0], g[1], g[2])
}

func rel(root, f string) string {
	if r, err := filepath.Rel(root, f); err == nil {
		return filepath.ToSlash(r)
	}
	return f
}

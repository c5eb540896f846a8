// Package launchrec reads back what `warplab bench launch` records
// (internal/launchbench's Result.WriteText) and turns the records into the
// host's launch floor the simulator takes (sim.HostFloor): the median over
// records, since the host's interval moves from call to call. It sits
// below gpuext, so that package lab can read a floor for a device it opens.
package launchrec

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/warplab/warplab/internal/stats"
	"github.com/warplab/warplab/sim"
)

// Record is what a `warplab bench launch` text (launchbench.Result.WriteText) gives
// back of the host's launch floor, in microseconds.
type Record struct {
	GPU      string  // the device the record names
	HostLoop float64 // the empty kernel back to back, one sync at the end (host clock)
	// Protocol: the record times the empty kernel, six arguments and six
	// scalars with the lessons' protocol (since 2026-12-01, 20:39 UTC).
	Protocol             bool
	Empty, Args, Scalars float64
	Spin                 map[int]float64 // spin ns -> µs per call
	// WarpCopy and Copy are the protocol's copy kernels (one warp's 32
	// floats; 4,096 floats in 16 blocks), the only ones in the record that
	// touch memory; 0 in records before 2026-12-07.
	WarpCopy, Copy float64
}

var (
	gpuLine     = regexp.MustCompile(`(?m)^launch overhead on ([^,\n]+),`)
	loopLine    = regexp.MustCompile(`(?m)^launch overhead on .*\n\s*back to back, one sync at the end:\s*([0-9.]+) us per launch`)
	emptyLine   = regexp.MustCompile(`(?m)^\s*empty kernel, one block:\s*([0-9.]+) us per call`)
	argsLine    = regexp.MustCompile(`(?m)^\s*six arguments, one block:\s*([0-9.]+) us per call`)
	scalarsLine = regexp.MustCompile(`(?m)^\s*six scalar arguments, one block:\s*([0-9.]+) us per call`)
	spinLine    = regexp.MustCompile(`(?m)^\s*spin kernel,\s*([0-9]+) ns on the GPU:\s*([0-9.]+) us per call$`)
	anySpinLine = regexp.MustCompile(`(?m)^\s*spin kernel,.*$`)
	warpCopy    = regexp.MustCompile(`(?m)^\s*copy of 32 floats, one warp:\s*([0-9.]+) us per call`)
	copyLine    = regexp.MustCompile(`(?m)^\s*copy of 4096 floats, 16 blocks:\s*([0-9.]+) us per call`)
)

// ReadText parses a record as WriteText prints it.
func ReadText(data []byte) (Record, error) {
	num := func(re *regexp.Regexp) (float64, bool, error) {
		m := re.FindSubmatch(data)
		if m == nil {
			return 0, false, nil
		}
		v, err := strconv.ParseFloat(string(m[1]), 64)
		return v, true, err
	}
	var r Record
	if m := gpuLine.FindSubmatch(data); m != nil {
		r.GPU = string(m[1])
	}
	v, ok, err := num(loopLine)
	if err != nil {
		return Record{}, err
	}
	if !ok {
		return Record{}, errors.New("no \"launch overhead on ...\" block with a back-to-back line")
	}
	r.HostLoop = v
	empty, ok1, err1 := num(emptyLine)
	args, ok2, err2 := num(argsLine)
	scalars, ok3, err3 := num(scalarsLine)
	if err := errors.Join(err1, err2, err3); err != nil {
		return Record{}, err
	}
	switch {
	case ok1 && ok2 && ok3:
		r.Protocol, r.Empty, r.Args, r.Scalars = true, empty, args, scalars
	case ok1 || ok2 || ok3:
		return Record{}, errors.New("the lessons' protocol block lacks a line (empty kernel, six arguments and six scalar arguments, one block each)")
	}
	wc, okw, err1 := num(warpCopy)
	cp, okc, err2 := num(copyLine)
	if err := errors.Join(err1, err2); err != nil {
		return Record{}, err
	}
	if okw != okc {
		return Record{}, errors.New("the copy kernels' lines come in pairs (32 floats in one warp, 4096 floats in 16 blocks)")
	}
	r.WarpCopy, r.Copy = wc, cp
	ms := spinLine.FindAllSubmatch(data, -1)
	if all := anySpinLine.FindAll(data, -1); len(all) != len(ms) {
		return Record{}, fmt.Errorf("%d spin kernel lines, %d of them as warplab bench launch prints them (\"spin kernel, N ns on the GPU: T us per call\")", len(all), len(ms))
	}
	for _, m := range ms {
		ns, err1 := strconv.Atoi(string(m[1]))
		v, err2 := strconv.ParseFloat(string(m[2]), 64)
		if err := errors.Join(err1, err2); err != nil {
			return Record{}, fmt.Errorf("spin line %q: %v", m[0], err)
		}
		if r.Spin == nil {
			r.Spin = map[int]float64{}
		}
		r.Spin[ns] = v
	}
	return r, nil
}

// argCosts is what a buffer and a scalar argument add to a call on one
// record with the lessons' protocol: a scalar (six scalars − empty) / 6, a
// buffer (six arguments − empty − a scalar) / 5, the kernel of six
// arguments having five buffers and a count. Either may be negative (the
// host's scatter).
func (r Record) argCosts() (buffer, scalar float64) {
	scalar = (r.Scalars - r.Empty) / 6
	return (r.Args - r.Empty - scalar) / 5, scalar
}

// FloorSpinNs is the longest spin whose timings join the empty kernel's
// in Floor's pool: a third of the 3 µs to which the spin curve is flat
// (evidence/timemodel-launchcurve-h200-2026-12-04).
const FloorSpinNs = 1000

// Floor is the host floor of the records that time with the lessons'
// protocol (ok is false when none does), each figure a median over
// records, since the host's interval moves from call to call and has two
// modes within one process on some hosts: a scalar's cost the median of
// (six scalars − empty) / 6, a buffer's the median of (six arguments −
// empty − a scalar) / 5 (so that the floor of a kernel of five buffers and
// a count is that kernel's own timing; 0 where a median is negative), and
// the interval the median of the empty kernel's timings and the spin
// kernel's at spins of at most FloorSpinNs less a scalar's cost (its one
// argument). In seconds, as the simulator takes it.
func Floor(recs []Record) (f sim.HostFloor, ok bool) {
	var pool, perBuf, perScalar []float64
	for _, r := range recs {
		if !r.Protocol {
			continue
		}
		buf, s := r.argCosts()
		pool, perScalar = append(pool, r.Empty), append(perScalar, s)
		perBuf = append(perBuf, buf)
	}
	if len(perBuf) == 0 {
		return sim.HostFloor{}, false
	}
	scalar := max(0, stats.Median(perScalar))
	for _, r := range recs {
		for ns, v := range r.Spin {
			if ns <= FloorSpinNs {
				pool = append(pool, v-scalar)
			}
		}
	}
	return sim.HostFloor{TimedLaunch: stats.Median(pool) * 1e-6, TimedLaunchPerBuffer: max(0, stats.Median(perBuf)) * 1e-6, TimedLaunchPerScalar: scalar * 1e-6}, true
}

// FloorDir is the host floor (Floor) of the records dir/launch-go*.txt
// that name gpu ("" for any): the floor of the lease that recorded them.
func FloorDir(dir, gpu string) (sim.HostFloor, error) {
	recs, err := ReadDir(dir, func(g string) bool { return gpu == "" || g == gpu })
	if err != nil {
		return sim.HostFloor{}, err
	}
	f, ok := Floor(recs)
	if !ok {
		of := ""
		if gpu != "" {
			of = " of " + gpu
		}
		return sim.HostFloor{}, fmt.Errorf("launchrec: no warplab bench launch record%s with the lessons' protocol in %s (launch-go*.txt)", of, dir)
	}
	return f, nil
}

// FloorDirs is the host floor of several leases' records, one folder a
// lease: the median of the folders' floors (FloorDir), figure by figure
// (MedianFloor), as a run recorded on several leases is judged by the
// median of its recordings. One folder gives FloorDir's floor.
func FloorDirs(dirs []string, gpu string) (sim.HostFloor, error) {
	if len(dirs) == 0 {
		return sim.HostFloor{}, errors.New("launchrec: no folder of launch records")
	}
	fs := make([]sim.HostFloor, 0, len(dirs))
	for _, d := range dirs {
		f, err := FloorDir(d, gpu)
		if err != nil {
			return sim.HostFloor{}, err
		}
		fs = append(fs, f)
	}
	return MedianFloor(fs), nil
}

// MedianFloor is the median of several leases' floors, figure by figure
// (two leases: their mean). fs must not be empty.
func MedianFloor(fs []sim.HostFloor) sim.HostFloor {
	launch, buf, scalar := make([]float64, len(fs)), make([]float64, len(fs)), make([]float64, len(fs))
	for i, f := range fs {
		launch[i], buf[i], scalar[i] = f.TimedLaunch, f.TimedLaunchPerBuffer, f.TimedLaunchPerScalar
	}
	return sim.HostFloor{TimedLaunch: stats.Median(launch), TimedLaunchPerBuffer: stats.Median(buf), TimedLaunchPerScalar: stats.Median(scalar)}
}

// ReadDir reads the records dir/launch-go*.txt whose GPU keep accepts
// (nil: all), as `warplab timemodel sweep`'s script leaves them beside a
// pass.
func ReadDir(dir string, keep func(gpu string) bool) ([]Record, error) {
	files, _ := filepath.Glob(filepath.Join(dir, "launch-go*.txt"))
	var recs []Record
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		r, err := ReadText(data)
		if err != nil {
			return nil, fmt.Errorf("launchrec: %s: %w", f, err)
		}
		if keep == nil || keep(r.GPU) {
			recs = append(recs, r)
		}
	}
	return recs, nil
}

// CopyAboveFloor is how far a record's warp copy must be over its own
// floor, in microseconds, before its GPU time counts (WarpCopyGPU): below
// it the host sets the copy's time and its GPU time is not seen. Fixed
// with the rule (docs/timemodel.md, "At the floor, a kernel that touches
// memory") before any record had the copy lines.
const CopyAboveFloor = 0.3

// CurveSpinNs is the shortest spin on the spin curve's straight part,
// where a call takes its spin plus a fixed offset (the H100's lease of
// 2026-12-07: s + 2.15–2.18 µs from 3 µs).
const CurveSpinNs = 5000

// WarpCopyGPU is the GPU time of the warp copy (32 floats, one warp)
// over records that time it: a record's is its time a call less its spin
// curve's offset (the median of time − spin over spins of CurveSpinNs and
// more), where the copy is over its own floor on that record by more than
// CopyAboveFloor; the result is the median over those records, in
// seconds, and n how many there were (0: no record saw the copy's GPU
// time, and the result is 0). The copy's floor is the record's empty
// kernel plus its two buffers and a count at the record's costs (Floor's
// arithmetic on the one record): the rule as committed compared with the
// empty kernel alone, and on the first records with the copy lines (the
// H100's, 2026-12-07 03:38 UTC) the copy's arguments put its floor 0.4–1.2
// µs over it, so that rule counted host time as the GPU's; corrected
// before any further record (docs/timemodel.md, "Another GPU").
func WarpCopyGPU(recs []Record) (seconds float64, n int) {
	var gpu []float64
	for _, r := range recs {
		if r.WarpCopy <= 0 || !r.Protocol {
			continue
		}
		buffer, scalar := r.argCosts()
		if r.WarpCopy-(r.Empty+2*max(0, buffer)+max(0, scalar)) <= CopyAboveFloor {
			continue
		}
		var offs []float64
		for ns, v := range r.Spin {
			if ns >= CurveSpinNs {
				offs = append(offs, v-float64(ns)/1000)
			}
		}
		if len(offs) == 0 {
			continue
		}
		gpu = append(gpu, r.WarpCopy-stats.Median(offs))
	}
	if len(gpu) == 0 {
		return 0, 0
	}
	return stats.Median(gpu) * 1e-6, len(gpu)
}

package tiling

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"path"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/ncu"
)

// recordedFiles holds copies of the committed H200 evidence
// (evidence/tiling-512-h200-2026-11-29/ and
// evidence/tiling-ncu-256-h200-2026-11-29/), because a notebook on a machine
// without a GPU shows what a GPU measured, labeled with GPU, driver and date,
// instead of pretending to measure. go:embed cannot reach ../../evidence, so
// the copies are generated (go run ./internal/evidence/cmd/recorded) and
// checked (go test ./internal/evidence) from internal/evidence.Copies.
//
//go:embed recorded
var recordedFiles embed.FS

// The recorded evidence and its label. The lesson's JSON names the device
// but not the driver or the date; they are those of the run folders' READMEs
// (`nvidia-smi` in the same device call).
const (
	recordedRunFile = "tiling-512-h200-2026-11-29.json"
	recordedNCUFile = "tiling-ncu-256-h200-2026-11-29.csv"
	recordedGPU     = "NVIDIA H200"
	recordedDriver  = "580.159.04"
	recordedDate    = "2026-11-29"
	recordedNCUSize = 256
)

// Recorded returns the lesson as it ran on an NVIDIA H200 at N = 512
// (`warplab run tiling --backend gpu --n 512 --json`, driver 580.159.04,
// 2026-11-29): every kernel's measured time and its check against the CPU
// reference. Its Driver and Date fields say when and on what it was
// measured; nothing in it ran now, and it has no counters (on a GPU those
// come from Nsight Compute: HardwareCounters).
func Recorded() (*Result, error) {
	data, err := recordedFiles.ReadFile(path.Join("recorded", recordedRunFile))
	if err != nil {
		return nil, fmt.Errorf("tiling: recorded GPU run: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r Result
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("tiling: recorded GPU run %s: %w", recordedRunFile, err)
	}
	if r.Backend != gpuext.GPU || r.Device.Name != recordedGPU {
		return nil, fmt.Errorf("tiling: recorded run %s is backend %q on %q, not a GPU run on the %s", recordedRunFile, r.Backend, r.Device.Name, recordedGPU)
	}
	if len(r.Runs) == 0 {
		return nil, fmt.Errorf("tiling: recorded run %s has no kernel runs", recordedRunFile)
	}
	for _, k := range r.Runs {
		if k.TimeKind != gpuext.Measured || !(k.TimeMs > 0) {
			return nil, fmt.Errorf("tiling: recorded run %s: %s has time %v ms of kind %q, want a measured time", recordedRunFile, k.Kernel, k.TimeMs, k.TimeKind)
		}
	}
	if r.Driver == "" {
		r.Driver = recordedDriver
	}
	if r.Date == "" {
		r.Date = recordedDate
	}
	return &r, nil
}

// HWCounters is one kernel's memory counters as Nsight Compute measured them
// on a GPU: what the simulator's counts are held to. Shared-memory numbers
// are loads and stores together, as the lesson's KernelRun has them.
type HWCounters struct {
	Kernel        string
	N             int // matrix size of the profiled run
	LoadRequests  int64
	LoadSectors   int64
	StoreRequests int64
	StoreSectors  int64
	// SharedWavefronts and BankConflicts add ncu's shared-load and
	// shared-store metrics.
	SharedWavefronts int64
	BankConflicts    int64
	// Source names the instrument, GPU, driver, date and size, for a table
	// caption or a plot legend.
	Source string
}

// HardwareCounters returns, per kernel in launch order, the counters Nsight
// Compute read on an NVIDIA H200 (driver 580.159.04, 2026-11-29,
// `--clock-control none`) for `warplab run tiling --n 256 --no-demos
// --no-sweep`: the numbers a simulator run with the same options should
// reproduce (all do exactly except spmvCsrThread; see ncu_test.go). A kernel
// is launched several times (checked run, warm-ups, timed runs); every
// launch of a kernel must agree on every counter, or this is an error.
func HardwareCounters() ([]HWCounters, error) {
	data, err := recordedFiles.ReadFile(path.Join("recorded", recordedNCUFile))
	if err != nil {
		return nil, fmt.Errorf("tiling: recorded ncu counters: %w", err)
	}
	source := fmt.Sprintf("ncu, %s, driver %s, %s, N=%d", recordedGPU, recordedDriver, recordedDate, recordedNCUSize)
	return parseHWCounters(data, recordedNCUFile, recordedNCUSize, source)
}

// parseHWCounters reads ncu's CSV from data (named name in errors) into one
// HWCounters per kernel, in launch order, labeled with n and source.
func parseHWCounters(data []byte, name string, n int, source string) ([]HWCounters, error) {
	launches, err := ncu.Read(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("tiling: ncu counters %s: %w", name, err)
	}
	var out []HWCounters
	index := map[string]int{}
	for _, l := range launches {
		c, err := countersOf(l)
		if err != nil {
			return nil, fmt.Errorf("tiling: %s: %w", name, err)
		}
		c.N, c.Source = n, source
		i, seen := index[l.Kernel]
		if !seen {
			index[l.Kernel] = len(out)
			out = append(out, c)
			continue
		}
		if out[i] != c {
			return nil, fmt.Errorf("tiling: %s: launch %d of %s counts %+v, an earlier launch %+v; the launches of one kernel should count the same",
				name, l.ID, l.Kernel, c, out[i])
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("tiling: %s holds no kernel launches", name)
	}
	return out, nil
}

// countersOf reads one launch's counters; every metric must be present and
// a whole number.
func countersOf(l ncu.Launch) (HWCounters, error) {
	get := func(names ...string) (int64, error) {
		var s int64
		for _, n := range names {
			v, ok := l.Metric(n)
			if !ok {
				return 0, fmt.Errorf("launch %d of %s has no %s", l.ID, l.Kernel, n)
			}
			if v < 0 || v != float64(int64(v)) {
				return 0, fmt.Errorf("launch %d of %s: %s = %v is not a count", l.ID, l.Kernel, n, v)
			}
			s += int64(v)
		}
		return s, nil
	}
	c := HWCounters{Kernel: l.Kernel}
	for _, f := range []struct {
		dst   *int64
		names []string
	}{
		{&c.LoadRequests, []string{ncu.LoadRequests}},
		{&c.LoadSectors, []string{ncu.LoadSectors}},
		{&c.StoreRequests, []string{ncu.StoreRequests}},
		{&c.StoreSectors, []string{ncu.StoreSectors}},
		{&c.SharedWavefronts, []string{ncu.SharedLdWaves, ncu.SharedStWaves}},
		{&c.BankConflicts, []string{ncu.SharedLdConfl, ncu.SharedStConfl}},
	} {
		v, err := get(f.names...)
		if err != nil {
			return HWCounters{}, err
		}
		*f.dst = v
	}
	return c, nil
}

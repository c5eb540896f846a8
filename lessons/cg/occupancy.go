package cg

import (
	"bufio"
	"bytes"
	"embed"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/warplab/warplab/internal/ncu"
)

// Occupancy is issue 16 §4's measurement: the HPCCG article found the
// thread-per-row SpMV at 90.9% achieved occupancy but with only 0.06
// eligible warps per scheduler cycle, so raising occupancy was the wrong
// target. Nsight Compute reported the same two numbers for this lesson's
// kernels on the H200 (scripts/evidence/cg-occupancy.sh, recorded in
// evidence/cg-occupancy-100-h200-2026-12-01/); the simulator models no warp
// scheduler, so these numbers are only ever read from a recorded run.

// occupancyFS holds byte-for-byte copies of the run's three CSVs (go:embed
// cannot reach evidence/); internal/evidence.Copies generates and checks
// them.
//
//go:embed recorded/cg-occupancy-100-h200-2026-12-01-ncu-stage*.csv
var occupancyFS embed.FS

// OccupancyRun is the evidence folder the embedded CSVs are copied from.
const OccupancyRun = "cg-occupancy-100-h200-2026-12-01"

// OccupancyStages are the stages the run profiled: 4 (thread-per-row CSR
// SpMV), 5 (8 threads a row) and 8 (the matrix-free stencil).
var OccupancyStages = []int{4, 5, 8}

// The Nsight Compute metrics an Occupancy row averages.
const (
	// MetricAchievedOccupancy is achieved occupancy: the warps resident
	// on an SM, averaged over its active cycles, as a share of the most
	// it can hold.
	MetricAchievedOccupancy = "sm__warps_active.avg.pct_of_peak_sustained_active"
	// MetricEligibleWarps is how many warps per scheduler could issue an
	// instruction on an average active cycle (not waiting on memory, a
	// dependency or a barrier).
	MetricEligibleWarps = "smsp__warps_eligible.avg.per_cycle_active"
	// MetricActiveWarps is the warps resident per scheduler.
	MetricActiveWarps = "smsp__warps_active.avg.per_cycle_active"
)

// Occupancy is one kernel's scheduler statistics in one stage: the mean,
// over the kernel's profiled launches, of each launch's metric (each
// launch counts once, whatever its length).
type Occupancy struct {
	Stage       int
	Kernel      string
	Launches    int
	AchievedPct float64 // MetricAchievedOccupancy, percent
	Eligible    float64 // MetricEligibleWarps, warps per scheduler per cycle
	Active      float64 // MetricActiveWarps, warps per scheduler
}

// ReadOccupancy parses one stage's ncu CSV (as cg-occupancy.sh writes it:
// the program's own output, then ncu's) into one row per kernel, in the
// order each kernel first launched. It also returns the device line the
// lesson printed before the CSV ("NVIDIA H200, driver …, <date>"), empty
// when there is none. A launch without one of the three metrics is an
// error naming the launch.
func ReadOccupancy(stage int, r io.Reader) ([]Occupancy, string, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, "", err
	}
	launches, err := ncu.Read(bytes.NewReader(b))
	if err != nil {
		return nil, "", fmt.Errorf("cg: occupancy, stage %d: %w", stage, err)
	}
	if len(launches) == 0 {
		return nil, "", fmt.Errorf("cg: occupancy, stage %d: no launches", stage)
	}
	var out []Occupancy
	at := map[string]int{}
	for _, l := range launches {
		var v [3]float64
		for i, m := range []string{MetricAchievedOccupancy, MetricEligibleWarps, MetricActiveWarps} {
			x, ok := l.Metric(m)
			if !ok {
				return nil, "", fmt.Errorf("cg: occupancy, stage %d: launch %d (%s) has no %s", stage, l.ID, l.Kernel, m)
			}
			v[i] = x
		}
		i, ok := at[l.Kernel]
		if !ok {
			i = len(out)
			at[l.Kernel] = i
			out = append(out, Occupancy{Stage: stage, Kernel: l.Kernel})
		}
		o := &out[i]
		o.Launches++
		o.AchievedPct += v[0]
		o.Eligible += v[1]
		o.Active += v[2]
	}
	for i := range out {
		n := float64(out[i].Launches)
		out[i].AchievedPct /= n
		out[i].Eligible /= n
		out[i].Active /= n
	}
	return out, deviceLine(b), nil
}

// deviceLine is what follows "device: " in the lesson's report, the first
// such line: the GPU, driver and date of the run.
func deviceLine(b []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		if s, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "device: "); ok {
			return s
		}
	}
	return ""
}

// stageTime is the time of day at the end of a report's device line.
var stageTime = regexp.MustCompile(`T[0-9:.]+Z?$`)

// RecordedOccupancy returns the recorded run's rows for OccupancyStages,
// stage by stage, and a label naming the GPU, driver and date the lesson
// printed in each stage's run (they must agree).
func RecordedOccupancy() ([]Occupancy, string, error) {
	var (
		out   []Occupancy
		label string
	)
	for _, s := range OccupancyStages {
		name := fmt.Sprintf("recorded/%s-ncu-stage%d.csv", OccupancyRun, s)
		b, err := occupancyFS.ReadFile(name)
		if err != nil {
			return nil, "", fmt.Errorf("cg: %w", err)
		}
		rows, dev, err := ReadOccupancy(s, bytes.NewReader(b))
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", name, err)
		}
		if dev == "" {
			return nil, "", fmt.Errorf("cg: %s names no device", name)
		}
		// The device line ends with the stage's own timestamp; the
		// label keeps GPU, driver and the date.
		dev = stageTime.ReplaceAllString(dev, "")
		if label != "" && dev != label {
			return nil, "", fmt.Errorf("cg: %s ran on %q, stage %d on %q", name, dev, OccupancyStages[0], label)
		}
		label = dev
		out = append(out, rows...)
	}
	return out, "measured by Nsight Compute on an " + label + " (" + OccupancyRun + ")", nil
}

// WriteOccupancy prints rows as a table: stage, kernel, launches averaged,
// achieved occupancy, warps resident and eligible per scheduler.
func WriteOccupancy(w io.Writer, rows []Occupancy) error {
	if _, err := fmt.Fprintf(w, "%5s  %-20s %8s  %9s  %15s  %14s\n",
		"stage", "kernel", "launches", "occupancy", "warps/scheduler", "eligible/cycle"); err != nil {
		return err
	}
	for _, o := range rows {
		if _, err := fmt.Fprintf(w, "%5d  %-20s %8d  %8.1f%%  %15.1f  %14.2f\n",
			o.Stage, o.Kernel, o.Launches, o.AchievedPct, o.Active, o.Eligible); err != nil {
			return err
		}
	}
	return nil
}

// OccupancyTable is WriteOccupancy's table as a string, for a notebook cell.
func OccupancyTable(rows []Occupancy) string {
	var b strings.Builder
	_ = WriteOccupancy(&b, rows) // a strings.Builder does not fail
	return b.String()
}

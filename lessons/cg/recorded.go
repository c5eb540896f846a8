package cg

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html"
	"strings"

	"github.com/warplab/warplab/gpuext"
)

// The lesson's measured story: what the lead's NVIDIA H200 reported at 100³
// (one million rows), kept in the package so that a notebook or a test on a
// machine without a GPU can show measured numbers next to the simulator's
// modeled ones, labeled with the GPU, driver and date that produced them.

// recordedFS holds a byte-for-byte copy of the lesson's own JSON report from
// evidence/cg-100-h200-2026-11-30/ (go:embed cannot reach outside the
// package); it is generated (go run ./internal/evidence/cmd/recorded) and
// checked (go test ./internal/evidence) from internal/evidence.Copies, and
// recorded/README.md says where it comes from.
//
//go:embed recorded/cg-100-h200-2026-11-30.json
var recordedFS embed.FS

// Where and when the recorded runs were measured. Every recorded stage's
// Device names RecordedGPU and RecordedDriver and its Date starts with
// RecordedDate; Recorded checks that rather than trusting it.
const (
	RecordedGPU    = "NVIDIA H200"
	RecordedDriver = "580.159.04"
	RecordedDate   = "2026-11-30"
)

// recordedRun is the embedded report: every stage, 0–8, in one run
// (stage 3 copying r·r with cuMemcpyDtoD; the binary built against CUDA
// 13.0's cuda.h).
const recordedRun = "recorded/cg-100-h200-2026-11-30.json"

// RecordedFiles returns the embedded reports by name (the paths under
// lessons/cg/), for callers that want the reports as recorded rather than
// parsed.
func RecordedFiles() (map[string][]byte, error) {
	out := make(map[string][]byte, 1)
	for _, name := range []string{recordedRun} {
		b, err := recordedFS.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("cg: recorded: %w", err)
		}
		out[name] = b
	}
	return out, nil
}

// RecordedStages is the number of stages Recorded returns, 0 to 8: the
// recorded run predates stages 9 and 10.
const RecordedStages = 9

// Recorded returns the H200 run of stages 0–8 at 100³, in stage order.
// Every time in them is measured (TimeKind "measured"). GPU stages keep the
// Device the run wrote ("NVIDIA H200, driver 580.159.04, CUDA 13.0 driver
// API") and their own Date; stage 0, which ran on the same machine's host
// CPU, gets the report's Date and a Device that says so. Each call parses
// the embedded files afresh, so callers may modify what they get.
func Recorded() ([]*StageResult, error) {
	final, err := readRecorded(recordedRun)
	if err != nil {
		return nil, err
	}
	rs := make([]*StageResult, RecordedStages)
	take := func(rep *Report, name string, from, to int) error {
		for _, r := range rep.Stages {
			if r == nil || r.Stage < from || r.Stage > to {
				continue
			}
			if rs[r.Stage] != nil {
				return fmt.Errorf("cg: recorded: %s has stage %d twice", name, r.Stage)
			}
			r.Notes = append(r.Notes, "recorded: lessons/cg/"+name)
			rs[r.Stage] = r
		}
		return nil
	}
	if err := take(final, recordedRun, 0, RecordedStages-1); err != nil {
		return nil, err
	}
	for s, r := range rs {
		if r == nil {
			return nil, fmt.Errorf("cg: recorded: no stage %d in the embedded reports", s)
		}
	}
	// Stage 0 ran on the device machine's CPU; its entry names only Go and
	// the goroutines.
	rs[0].Device = fmt.Sprintf("%s, on the host CPU of the %s machine (driver %s)", rs[0].Device, RecordedGPU, RecordedDriver)
	if rs[0].Date == "" {
		rs[0].Date = final.Date
	}
	for _, r := range rs {
		if err := checkRecordedLabel(r); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// readRecorded parses one embedded report and checks it is the 100³ GPU run
// it should be.
func readRecorded(name string) (*Report, error) {
	b, err := recordedFS.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("cg: recorded: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var rep Report
	if err := dec.Decode(&rep); err != nil {
		return nil, fmt.Errorf("cg: recorded: %s: %w", name, err)
	}
	if rep.Lesson != "cg" || rep.Backend != "gpu" || rep.Grid != [3]int{100, 100, 100} {
		return nil, fmt.Errorf("cg: recorded: %s is lesson %q, backend %q, grid %v; want cg, gpu, 100³", name, rep.Lesson, rep.Backend, rep.Grid)
	}
	return &rep, nil
}

// checkRecordedLabel refuses a recorded stage that does not say it was
// measured on RecordedGPU with RecordedDriver on RecordedDate.
func checkRecordedLabel(r *StageResult) error {
	switch {
	case r.TimeKind != gpuext.Measured:
		return fmt.Errorf("cg: recorded: stage %d is %q, want %q", r.Stage, r.TimeKind, gpuext.Measured)
	case !strings.Contains(r.Device, RecordedGPU) || !strings.Contains(r.Device, "driver "+RecordedDriver):
		return fmt.Errorf("cg: recorded: stage %d device %q does not name %s, driver %s", r.Stage, r.Device, RecordedGPU, RecordedDriver)
	case !strings.HasPrefix(r.Date, RecordedDate):
		return fmt.Errorf("cg: recorded: stage %d date %q, want %s", r.Stage, r.Date, RecordedDate)
	}
	return nil
}

// RecordedLabel is the caption every recorded number carries: which GPU,
// driver and date measured it.
func RecordedLabel() string {
	return fmt.Sprintf("measured on an %s, driver %s, %s", RecordedGPU, RecordedDriver, RecordedDate)
}

// MeasuredSummaryHTML renders the short per-stage table of a measured run
// for a notebook: total, kernel and copy time, launches, MiB moved over
// PCIe inside the solve, the speed-up over stage 0 and how the residual
// history compares with stage 0's (in short; ResidualComparison.String
// says it in full). caption labels it (say, RecordedLabel).
// Copy time is host-timed: on the resident stages it includes the host
// waiting inside each scalar download for the kernels queued before it, so
// kernels + copies may exceed the total.
func MeasuredSummaryHTML(rs []*StageResult, caption string) string {
	var ref *StageResult
	for _, r := range rs {
		if r.Stage == 0 {
			ref = r
			break
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<table><caption>%s</caption>`, html.EscapeString(caption))
	b.WriteString(`<tr><th>stage</th><th>name</th><th>total (ms)</th><th>kernels (ms)</th><th>copies (ms)</th><th>launches</th><th>MiB moved</th><th>vs stage 0</th><th>residuals vs stage 0</th><th>kind</th></tr>`)
	for _, r := range rs {
		bd := r.Breakdown()
		speed := "reference"
		if r.Stage != 0 {
			speed = "-"
			if ref != nil && r.WallSeconds > 0 {
				speed = fmt.Sprintf("%.1f× faster", ref.WallSeconds/r.WallSeconds)
				if r.WallSeconds > ref.WallSeconds {
					speed = fmt.Sprintf("%.2f× slower", r.WallSeconds/ref.WallSeconds)
				}
			}
		}
		vs := "reference"
		switch c := r.VsStage0; {
		case c != nil && c.Identical:
			vs = "bit-identical"
		case c != nil && c.WithinTolerance:
			vs = fmt.Sprintf("within tolerance (≤ %.1e early)", c.MaxEarlyRelDiff)
		case c != nil:
			vs = fmt.Sprintf("outside tolerance (%.1e early)", c.MaxEarlyRelDiff)
		case r.Stage != 0:
			vs = "-"
		}
		t := r.Transfers
		fmt.Fprintf(&b, `<tr><td>%d</td><td>%s</td><td>%.1f</td><td>%.1f</td><td>%.1f</td><td>%d</td><td>%.1f</td><td>%s</td><td>%s</td><td>%s</td></tr>`,
			r.Stage, html.EscapeString(r.Name), 1e3*bd.Total, 1e3*bd.Kernel, 1e3*bd.Transfer, r.Launches,
			float64(t.H2DBytes+t.D2HBytes)/(1<<20), speed, html.EscapeString(vs), html.EscapeString(r.TimeKind.String()))
	}
	b.WriteString(`</table>`)
	return b.String()
}

// CopyCostOnly returns shallow copies of rs whose Transfers.Seconds is the
// copies' own cost where the time account has one and the host waited
// inside the copies: on the resident stages each synchronous scalar download
// is host-timed from the call to its return, so it includes the wait for
// every kernel queued before it, and kernels + copies would add up to more
// than the wall time. With the copies' own cost (downloads × one 8-byte
// download on an idle GPU, measured in the same run) the bars of TimePlot
// and the table add up to the total, the rest being idle time and launches.
// Stages without that wait (the CPU, stages 1 and 2, whose copies move whole
// vectors) are returned as they are.
func CopyCostOnly(rs []*StageResult) []*StageResult {
	out := make([]*StageResult, len(rs))
	for i, r := range rs {
		c := *r
		if a := r.Account; a != nil && a.SyncWaitSeconds > 0 {
			c.Transfers.Seconds = a.CopySeconds
		}
		out[i] = &c
	}
	return out
}

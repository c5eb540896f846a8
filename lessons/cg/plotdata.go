package cg

import (
	"fmt"
	"html"
	"strings"

	"github.com/warplab/warplab/gpuext"
)

// The lesson's three views of a run, as data: the stacked bars of where each
// stage's time goes, the convergence curves, and the copies table. plot.go
// draws the first two with gonum/plot; the notebook shows the third as HTML.

// StageBar is one bar of the stacked time plot, in milliseconds.
type StageBar struct {
	Stage      int             `json:"stage"`
	Label      string          `json:"label"` // "3 gpu-resident"
	KernelMs   float64         `json:"kernel_ms"`
	TransferMs float64         `json:"transfer_ms"`
	OverheadMs float64         `json:"overhead_ms"`
	Kind       gpuext.TimeKind `json:"time_kind"` // never mix measured and modeled up in a caption
}

// TimeBars returns one bar per stage (Breakdown in milliseconds).
func TimeBars(rs []*StageResult) []StageBar {
	out := make([]StageBar, 0, len(rs))
	for _, r := range rs {
		b := r.Breakdown()
		out = append(out, StageBar{Stage: r.Stage, Label: fmt.Sprintf("%d %s", r.Stage, r.Name),
			KernelMs: 1e3 * b.Kernel, TransferMs: 1e3 * b.Transfer, OverheadMs: 1e3 * b.Overhead, Kind: r.TimeKind})
	}
	return out
}

// ConvergenceSeries is one stage's residual history: Residuals[k−1] is the
// residual HPCCG prints at iteration k.
type ConvergenceSeries struct {
	Stage     int       `json:"stage"`
	Label     string    `json:"label"`
	Residuals []float64 `json:"residuals"`
}

// Convergence returns the residual histories of rs for a log-residual plot.
func Convergence(rs []*StageResult) []ConvergenceSeries {
	out := make([]ConvergenceSeries, 0, len(rs))
	for _, r := range rs {
		out = append(out, ConvergenceSeries{Stage: r.Stage, Label: fmt.Sprintf("%d %s", r.Stage, r.Name), Residuals: r.Residuals})
	}
	return out
}

// TransferRow is one line of the copies-per-stage table.
type TransferRow struct {
	Stage    int    `json:"stage"`
	Name     string `json:"name"`
	Backend  string `json:"backend"`
	H2DCalls int    `json:"h2d_calls"`
	H2DBytes int64  `json:"h2d_bytes"`
	D2HCalls int    `json:"d2h_calls"`
	D2HBytes int64  `json:"d2h_bytes"`
	D2DCalls int    `json:"d2d_calls"`
	// Copies is all copy calls, the article's "cudaMemcpy calls" (which
	// also counted the setup uploads: add Setup).
	Copies   int             `json:"copies"`
	Setup    int             `json:"setup_copies"`
	Launches int             `json:"launches"`
	Ms       float64         `json:"copy_ms"`
	Kind     gpuext.TimeKind `json:"time_kind"`
}

// TransfersTable returns the copies of each stage.
func TransfersTable(rs []*StageResult) []TransferRow {
	out := make([]TransferRow, 0, len(rs))
	for _, r := range rs {
		t := r.Transfers
		out = append(out, TransferRow{Stage: r.Stage, Name: r.Name, Backend: r.Backend,
			H2DCalls: t.H2DCalls, H2DBytes: t.H2DBytes, D2HCalls: t.D2HCalls, D2HBytes: t.D2HBytes, D2DCalls: t.D2DCalls,
			Copies: t.H2DCalls + t.D2HCalls + t.D2DCalls, Setup: r.Setup.H2DCalls + r.Setup.D2HCalls,
			Launches: r.Launches, Ms: 1e3 * t.Seconds, Kind: t.TimeKind})
	}
	return out
}

// TransfersHTML renders TransfersTable as an HTML table for a notebook.
func TransfersHTML(rs []*StageResult) string {
	var b strings.Builder
	b.WriteString(`<table><caption>Copies and launches per stage (inside the timed solve; setup uploads apart)</caption>`)
	b.WriteString(`<tr><th>stage</th><th>name</th><th>H2D calls</th><th>H2D bytes</th><th>D2H calls</th><th>D2H bytes</th><th>D2D calls</th><th>copies + setup</th><th>launches</th><th>copy time (ms)</th></tr>`)
	for _, r := range TransfersTable(rs) {
		kind := r.Kind
		if kind == "" {
			kind = "-"
		}
		fmt.Fprintf(&b, `<tr><td>%d</td><td>%s</td><td>%d</td><td>%s</td><td>%d</td><td>%s</td><td>%d</td><td>%d + %d</td><td>%d</td><td>%.3f (%s)</td></tr>`,
			r.Stage, html.EscapeString(r.Name), r.H2DCalls, bytesLabel(r.H2DBytes), r.D2HCalls, bytesLabel(r.D2HBytes), r.D2DCalls,
			r.Copies, r.Setup, r.Launches, r.Ms, html.EscapeString(kind.String()))
	}
	b.WriteString(`</table>`)
	return b.String()
}

// SummaryHTML renders the per-stage summary (times, copies, numerics) as an
// HTML table.
func SummaryHTML(rs []*StageResult) string {
	var b strings.Builder
	b.WriteString(`<table><tr><th>stage</th><th>name</th><th>total (ms)</th><th>kernels</th><th>copies</th><th>overhead</th><th>kind</th><th>iterations</th><th>final residual</th><th>true residual</th><th>vs stage 0</th></tr>`)
	for _, r := range rs {
		bd := r.Breakdown()
		vs := "reference"
		if r.VsStage0 != nil {
			vs = r.VsStage0.String()
		}
		fmt.Fprintf(&b, `<tr><td>%d</td><td>%s</td><td>%.3f</td><td>%.3f</td><td>%.3f</td><td>%.3f</td><td>%s</td><td>%d</td><td>%.3e</td><td>%.3e</td><td>%s</td></tr>`,
			r.Stage, html.EscapeString(r.Name), 1e3*bd.Total, 1e3*bd.Kernel, 1e3*bd.Transfer, 1e3*bd.Overhead, r.TimeKind,
			r.Iterations, r.FinalResidual, r.TrueResidual, html.EscapeString(vs))
	}
	b.WriteString(`</table>`)
	return b.String()
}

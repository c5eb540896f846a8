package nbtest

import (
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// nbJSON builds a minimal nbformat-4 notebook around cells and metadata.
func nbJSON(meta, cells string) []byte {
	if meta == "" {
		meta = "{}"
	}
	return []byte(`{"nbformat": 4, "nbformat_minor": 5, "metadata": ` + meta + `, "cells": [` + cells + `]}`)
}

func mustParse(t *testing.T, b []byte) *Notebook {
	t.Helper()
	nb, err := Parse(b)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return nb
}

func TestParse(t *testing.T) {
	b := nbJSON(`{"warplab": {"summary": "one line", "expect": ["a\\d", {"pattern": "b", "why": "because"}], "timeout_seconds": 7}}`,
		`{"cell_type": "markdown", "metadata": {}, "source": ["# Title\n", "first line\n"]},
		 {"cell_type": "code", "metadata": {"tags": ["plot"]}, "source": "%%\nfmt.Println(1)", "outputs": [
			{"output_type": "stream", "name": "stdout", "text": ["1\n", "2\n"]},
			{"output_type": "display_data", "data": {"text/html": ["<b>", "x</b>"], "application/json": {"k": 1}}, "metadata": {}},
			{"output_type": "error", "ename": "ERROR", "evalue": "exit status 2", "traceback": ["t"]}]}`)
	nb := mustParse(t, b)
	if len(nb.Cells) != 2 {
		t.Fatalf("got %d cells, want 2", len(nb.Cells))
	}
	md, code := nb.Cells[0], nb.Cells[1]
	if md.Source != "# Title\nfirst line\n" {
		t.Errorf("markdown source = %q (list of lines not joined?)", md.Source)
	}
	if !code.HasTag("plot") || code.HasTag("other") {
		t.Errorf("tags = %v, want [plot]", code.Tags)
	}
	if got := code.Outputs[0].Text; got != "1\n2\n" {
		t.Errorf("stream text = %q", got)
	}
	if got := code.Outputs[1].Data["text/html"]; got != "<b>x</b>" {
		t.Errorf("html = %q", got)
	}
	if got := code.Outputs[1].Data["application/json"]; !strings.Contains(got, `"k"`) {
		t.Errorf("json data = %q, want raw JSON kept", got)
	}
	if o := code.Outputs[2]; o.Type != "error" || o.EValue != "exit status 2" {
		t.Errorf("error output = %+v", o)
	}
	want := []Expectation{{Pattern: `a\d`}, {Pattern: "b", Why: "because"}}
	if !slices.Equal(nb.Meta.Expect, want) {
		t.Errorf("expect = %+v, want %+v", nb.Meta.Expect, want)
	}
	if nb.Meta.TimeoutSeconds != 7 || nb.Summary() != "one line" || nb.Title() != "Title" {
		t.Errorf("meta = %+v, summary %q, title %q", nb.Meta, nb.Summary(), nb.Title())
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"not json", `{`, "not a notebook"},
		{"old format", `{"nbformat": 3, "cells": []}`, "nbformat 3"},
		{"bad source", string(nbJSON("", `{"cell_type": "code", "source": 5}`)), "string or a list"},
		{"expect without pattern", string(nbJSON(`{"warplab": {"expect": [{"why": "x"}]}}`, "")), "no pattern"},
		{"expect wrong type", string(nbJSON(`{"warplab": {"expect": [3]}}`, "")), "expectation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse error = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

func TestSummaryFallback(t *testing.T) {
	nb := mustParse(t, nbJSON("", `{"cell_type": "code", "source": "x"},
		{"cell_type": "markdown", "source": "# Heading\n\nThe first line.\nSecond."}`))
	if got := nb.Summary(); got != "The first line." {
		t.Errorf("Summary = %q", got)
	}
	if got := nb.Title(); got != "Heading" {
		t.Errorf("Title = %q", got)
	}
	nb = mustParse(t, nbJSON("", ""))
	nb.Path = "/x/03-cg.ipynb"
	if got := nb.Title(); got != "03-cg" {
		t.Errorf("Title without headings = %q, want the file name", got)
	}
}

func TestVisibleText(t *testing.T) {
	nb := mustParse(t, nbJSON("", `{"cell_type": "code", "source": "", "outputs": [
		{"output_type": "display_data", "data": {"text/html": "<style>td{color:red}</style><table><tr><td>4</td><td>1&lt;2</td></tr></table><div><svg><text>axis</text></svg></div>", "text/plain": "ignored"}},
		{"output_type": "stream", "name": "stdout", "text": "stride   8:\n32"}]}`))
	got := nb.VisibleText()
	if got != "4 1<2 stride 8: 32" {
		t.Errorf("VisibleText = %q", got)
	}
}

func TestCheck(t *testing.T) {
	plotHTML := `{"output_type": "display_data", "data": {"text/html": "<div><?xml version=\"1.0\"?><svg width=\"10\"><path/></svg></div>"}}`
	for _, tc := range []struct {
		name  string
		meta  string
		cells string
		want  []string // substrings, one per expected problem, in order
	}{
		{"clean", `{"warplab": {"expect": ["stride 8: 32\\.00"]}}`,
			`{"cell_type": "code", "metadata": {"tags": ["plot"]}, "source": "", "outputs": [` + plotHTML + `]},
			 {"cell_type": "code", "source": "", "outputs": [{"output_type": "stream", "name": "stdout", "text": "stride 8: 32.00\n"}]}`,
			nil},
		{"cell error with GoNB's report", "",
			`{"cell_type": "code", "source": "", "outputs": [
				{"output_type": "display_data", "data": {"text/html": "<span class=\"gonb-err-location\">main.go:3</span> undefined: foo"}},
				{"output_type": "error", "ename": "ERROR", "evalue": "exit status 1", "traceback": []}]}`,
			[]string{"cell 0: error: ERROR: exit status 1\n\tmain.go:3 undefined: foo"}},
		{"plot cell without image", "",
			`{"cell_type": "code", "metadata": {"tags": ["plot"]}, "source": "%%\ndraw()", "outputs": [
				{"output_type": "stream", "name": "stdout", "text": "<svg> is only text here"}]}`,
			[]string{`cell 0: tagged "plot" but has no image output`}},
		{"plot as png", "",
			`{"cell_type": "code", "metadata": {"tags": ["plot"]}, "source": "", "outputs": [
				{"output_type": "display_data", "data": {"image/png": "iVBORw0KGgo="}}]}`,
			nil},
		{"plot as img data url", "",
			`{"cell_type": "code", "metadata": {"tags": ["plot"]}, "source": "", "outputs": [
				{"output_type": "display_data", "data": {"text/html": "<img alt=\"p\" src=\"data:image/png;base64,AAA\">"}}]}`,
			nil},
		{"untagged cell needs no image", "",
			`{"cell_type": "code", "source": "", "outputs": []}`, nil},
		{"wrong number", `{"warplab": {"expect": [{"pattern": "stride 8: 32\\.00", "why": "one sector per lane"}]}}`,
			`{"cell_type": "code", "source": "", "outputs": [{"output_type": "stream", "name": "stdout", "text": "stride 8: 16.00\n"}]}`,
			[]string{`promised output "stride 8: 32\\.00" not found (one sector per lane); nearest output: "stride 8: 16.00"`}},
		{"missing number", `{"warplab": {"expect": ["lane slots: 32"]}}`, "",
			[]string{`promised output "lane slots: 32" not found`}},
		{"bad pattern", `{"warplab": {"expect": ["(unclosed"]}}`, "",
			[]string{"bad pattern"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			probs := Check(mustParse(t, nbJSON(tc.meta, tc.cells)))
			if len(probs) != len(tc.want) {
				t.Fatalf("got %d problems %q, want %d", len(probs), probs, len(tc.want))
			}
			for i, p := range probs {
				if !strings.Contains(p.String(), tc.want[i]) {
					t.Errorf("problem %d = %q, want it to contain %q", i, p, tc.want[i])
				}
			}
		})
	}
}

func TestTimeouts(t *testing.T) {
	nb := mustParse(t, nbJSON(`{"warplab": {"timeout_seconds": 60, "cell_timeout_seconds": 600}}`, ""))
	for _, tc := range []struct {
		name           string
		r              Runner
		nb             *Notebook
		wantNB, wantCl time.Duration
	}{
		{"defaults", Runner{}, mustParse(t, nbJSON("", "")), DefaultNotebookTimeout, DefaultCellTimeout},
		{"metadata, cell capped by notebook", Runner{}, nb, time.Minute, time.Minute},
		{"override", Runner{NotebookTimeout: 30 * time.Second}, nb, 30 * time.Second, 30 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, c := tc.r.Timeouts(tc.nb)
			if n != tc.wantNB || c != tc.wantCl {
				t.Errorf("Timeouts = %v, %v; want %v, %v", n, c, tc.wantNB, tc.wantCl)
			}
		})
	}
}

// page builds a lab-template-like page with the given cells' HTML.
func page(cells ...string) string {
	return "<html><head><style>.gonb-err-location{color:red} .x[data-mime-type=\"application/vnd.jupyter.stderr\"]{}</style></head><body><main>" +
		strings.Join(cells, "\n") + "</main></body></html>"
}

const (
	plotCell = `<div class="jp-Cell jp-CodeCell jp-Notebook-cell    celltag_plot"><div class="jp-InputArea">gonbui.DisplaySVG(s)</div>` +
		`<div class="jp-OutputArea jp-Cell-outputArea"><div class="jp-OutputArea-child"><div><svg><path/></svg></div></div></div></div>`
	emptyPlotCell = `<div class="jp-Cell jp-CodeCell jp-Notebook-cell celltag_plot"><div class="jp-InputArea">"<svg"</div>` +
		`<div class="jp-OutputArea jp-Cell-outputArea"></div></div>`
	textCell   = `<div class="jp-Cell jp-CodeCell jp-Notebook-cell"><div class="jp-OutputArea"><pre>stride 1: 4.00</pre></div></div>`
	errorCell  = `<div class="jp-Cell jp-CodeCell"><div class="jp-OutputArea"><span class="gonb-err-location">./main.go:13:13: </span>undefined: x</div></div>`
	stderrCell = `<div class="jp-Cell jp-CodeCell"><div class="jp-RenderedText jp-OutputArea-output" data-mime-type="application/vnd.jupyter.stderr"><pre>panic: boom</pre></div></div>`
	shownError = `<div class="jp-Cell jp-CodeCell"><div class="jp-OutputArea"><div class="warplab-error" style="color:#b00020"><b>error:</b> nvcc not found</div></div></div>`
	stderrOK   = `<div class="jp-Cell jp-CodeCell"><div class="jp-RenderedText jp-OutputArea-output" data-mime-type="application/vnd.jupyter.stderr"><pre>simulating 3/8 blocks</pre></div></div>`
)

func TestPageProblems(t *testing.T) {
	for _, tc := range []struct {
		name  string
		page  string
		plots int
		want  []string
	}{
		{"clean", page(textCell, plotCell), 1, nil},
		{"error styles alone are not an error", page(textCell), 0, nil},
		{"GoNB error report", page(errorCell), 0, []string{`class "gonb-err-location"`}},
		{"panic on stderr", page(stderrCell), 0, []string{"error output: panic: boom"}},
		{"progress on stderr is fine", page(stderrOK), 0, nil},
		{"plots.ShowError's box", page(shownError), 0, []string{`class "warplab-error"`}},
		{"plot cell without image (source mentions <svg)", page(emptyPlotCell), 1, []string{"plot 1 on the page has no <svg>"}},
		{"plot cell lost in rendering", page(textCell), 1, []string{"page has 0 cells with class celltag_plot, notebook tags 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			probs := PageProblems(tc.page, tc.plots)
			if len(probs) != len(tc.want) {
				t.Fatalf("got %q, want %d problems like %q", probs, len(tc.want), tc.want)
			}
			for i, p := range probs {
				if !strings.Contains(p, tc.want[i]) {
					t.Errorf("problem %d = %q, want it to contain %q", i, p, tc.want[i])
				}
			}
		})
	}
}

func TestPlotPage(t *testing.T) {
	p := page(textCell, plotCell, plotCell)
	got, err := PlotPage(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(got, "warplab-shot\""); n != 1 {
		t.Errorf("%d cells marked, want 1", n)
	}
	i := strings.Index(got, "warplab-shot\"")
	if first := strings.Index(got, "celltag_plot"); first > i {
		t.Errorf("marked the first plot cell, want the second")
	}
	if !strings.Contains(got, `<style id="warplab-shot-style">`) {
		t.Errorf("no screenshot style injected")
	}
	if _, err := PlotPage(p, 2); err == nil || !strings.Contains(err.Error(), "has 2 plot cells") {
		t.Errorf("PlotPage(p, 2) error = %v, want one saying there are 2 plot cells", err)
	}
	if _, err := PlotPage(plotCell, 0); err == nil {
		t.Errorf("page without </head>: no error")
	}
}

func TestInk(t *testing.T) {
	white := func() *image.RGBA {
		img := image.NewRGBA(image.Rect(0, 0, 400, 300))
		draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
		return img
	}
	blank := white()
	nearWhite := white()
	draw.Draw(nearWhite, image.Rect(0, 0, 400, 300), image.NewUniform(color.Gray{0xfa}), image.Point{}, draw.Src)
	dot := white()
	draw.Draw(dot, image.Rect(10, 10, 26, 26), image.NewUniform(color.Black), image.Point{}, draw.Src)
	drawn := white()
	for x := 20; x < 380; x++ { // an axis and a diagonal line
		drawn.Set(x, 280, color.Black)
		drawn.Set(x, 280-x*2/3, color.RGBA{0, 0, 200, 255})
	}
	for y := 20; y < 280; y++ {
		drawn.Set(20, y, color.Black)
	}
	for _, tc := range []struct {
		name      string
		img       image.Image
		wantBlank bool
	}{
		{"white", blank, true},
		{"near-white background", nearWhite, true},
		{"broken-image icon", dot, true},
		{"axes and a line", drawn, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "shot.png")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := png.Encode(f, tc.img); err != nil {
				t.Fatal(err)
			}
			f.Close()
			ink, err := MeasureInk(path)
			if err != nil {
				t.Fatal(err)
			}
			if why := ink.Blank(500); (why != "") != tc.wantBlank {
				t.Errorf("Blank = %q (ink %+v), want blank=%v", why, ink, tc.wantBlank)
			}
		})
	}
	if _, err := MeasureInk(filepath.Join(t.TempDir(), "missing.png")); err == nil {
		t.Errorf("MeasureInk of a missing file: no error")
	}
}

func TestDescendants(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc on this system")
	}
	cmd := exec.Command("sh", "-c", "sleep 30 & wait")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var found []int
	for range 50 { // the grandchild needs a moment to appear
		if found = descendants(os.Getpid()); len(found) >= 2 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !slices.Contains(found, cmd.Process.Pid) || len(found) < 2 {
		t.Errorf("descendants = %v, want the shell %d and its sleep", found, cmd.Process.Pid)
	}
}

func TestWriteIndex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.html")
	lessons := []Lesson{
		{Name: "00-first", Title: "First <kernel>", Summary: "SAXPY & strides", Page: "00-first.html", Notebook: "notebooks/00-first.ipynb"},
		{Name: "01-broken", Title: "Broken", Problems: []string{"cell 3: error"}},
	}
	if err := writeIndex(path, lessons); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, want := range []string{
		`<a href="00-first.html">First &lt;kernel&gt;</a>`,
		`SAXPY &amp; strides`,
		`href="notebooks/00-first.ipynb"`,
		`Broken <span class="failed">`,
		`<img src="timemodel.svg"`,
		`within 25%`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("index.html lacks %q:\n%s", want, got)
		}
	}
	// The all-lessons time-model figure sits beside the page.
	if svg, err := os.ReadFile(filepath.Join(filepath.Dir(path), "timemodel.svg")); err != nil || !strings.Contains(string(svg), "<svg") {
		t.Errorf("timemodel.svg beside index.html: %v", err)
	}
}

func TestNotebooksListing(t *testing.T) {
	dir := t.TempDir()
	if _, err := Notebooks(dir); err == nil {
		t.Errorf("empty directory: no error")
	}
	for _, n := range []string{"10-b.ipynb", "02-a.ipynb", "notes.md"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Notebooks(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "02-a.ipynb"), filepath.Join(dir, "10-b.ipynb")}
	if !slices.Equal(got, want) {
		t.Errorf("Notebooks = %v, want %v", got, want)
	}
}

package plots

import (
	"errors"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

func TestHTMLTable(t *testing.T) {
	got := HTMLTableCaption("<modeled>", []string{"a&b", "n"}, [][]string{
		{"<script>alert(1)</script>", "1,048,576"},
		{"short"},
		{"x", "26.2×", "extra"},
	})
	for _, want := range []string{
		"<caption>&lt;modeled&gt;</caption>",
		"<th>a&amp;b</th>",
		`<td style="text-align:left">&lt;script&gt;alert(1)&lt;/script&gt;</td>`,
		`<td style="text-align:right;white-space:nowrap">1,048,576</td>`,
		`<td style="text-align:right;white-space:nowrap">26.2×</td>`,
		`<tr><td style="text-align:left;white-space:nowrap">short</td><td style="text-align:left;white-space:nowrap"></td></tr>`,
		`<td style="text-align:left;white-space:nowrap">extra</td>`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "<script>") {
		t.Error("unescaped script tag")
	}
	if strings.Count(got, "<tr>") != 4 {
		t.Errorf("%d rows, want 4 (header + 3)", strings.Count(got, "<tr>"))
	}
}

func TestAgreement(t *testing.T) {
	for _, tc := range []struct {
		sr, ss, hr, hs int64
		want           string
	}{
		{10, 40, 10, 40, "exact"},
		{10, 66, 10, 54, "+22.2%"},
		{10, 50, 10, 54, "-7.4%"},
		{11, 54, 10, 54, "+0.0%, requests differ"},
		{1, 1, 0, 0, "n/a, requests differ"},
	} {
		if got := Agreement(tc.sr, tc.ss, tc.hr, tc.hs); got != tc.want {
			t.Errorf("Agreement(%d,%d,%d,%d) = %q, want %q", tc.sr, tc.ss, tc.hr, tc.hs, got, tc.want)
		}
	}
}

func TestSimVsHardware(t *testing.T) {
	rows := []CounterRow{
		{Matrix: "even", Kernel: "thread per row", SimRequests: 819200, SimSectors: 18202594, HWRequests: 819200, HWSectors: 18202594},
		{Matrix: "skewed", Kernel: "warp per row", SimRequests: 3260416, SimSectors: 6209521, HWRequests: 3260416, HWSectors: 5816137, Note: "#pragma unroll 1"},
	}
	h, err := SimVsHardware("ncu, H200, recorded (DESIGN.md)", rows)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"18,202,594", "thread per row", "exact", "+6.8%", "#pragma unroll 1", "sectors (ncu, H200, recorded (DESIGN.md))"} {
		if !strings.Contains(h, want) {
			t.Errorf("table lacks %q", want)
		}
	}
	if _, err := SimVsHardware("", rows); err == nil {
		t.Error("no source accepted")
	}
	if _, err := SimVsHardware("x", []CounterRow{{SimSectors: -1}}); err == nil {
		t.Error("negative counter accepted")
	}
	p, err := SimVsHardwarePlot("ncu, H200, recorded", rows)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := SVG(p, DefaultWidth, DefaultHeight)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Sectors per request: simulator vs hardware", "simulator (modeled counters)", "ncu, H200, recorded", "22.2"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("plot lacks %q", want)
		}
	}
	if _, err := SimVsHardwarePlot("x", nil); err == nil {
		t.Error("empty rows accepted")
	}
}

// fakeFrontEnd records what would have been sent to GoNB.
type fakeFrontEnd struct {
	notebook bool
	shown    []string
	updates  []string // id + "=" + html
	synced   int
}

func (f *fakeFrontEnd) inNotebook() bool        { return f.notebook }
func (f *fakeFrontEnd) displayHTML(h string)    { f.shown = append(f.shown, h) }
func (f *fakeFrontEnd) updateHTML(id, h string) { f.updates = append(f.updates, id+"="+h) }
func (f *fakeFrontEnd) uniqueID() string        { return "42" }
func (f *fakeFrontEnd) sync()                   { f.synced++ }

func TestProgressNotebook(t *testing.T) {
	fe := &fakeFrontEnd{notebook: true}
	p := newProgress(fe, "SpMV <sim>")
	for i := 0; i <= 1000; i++ {
		p.Update("even thread_per_row", i, 1000)
	}
	p.Update("skewed", 0, 0)
	if n := len(fe.updates); n != 102 { // 0..100% of the first stage, then the new stage
		t.Errorf("%d updates for 1001 calls, want 102 (one per whole percent and stage)", n)
	}
	for _, u := range fe.updates {
		if !strings.HasPrefix(u, "warplab-progress-42=") {
			t.Fatalf("update not in place: %q", u)
		}
	}
	if !strings.Contains(fe.updates[100], "SpMV &lt;sim&gt;") || !strings.Contains(fe.updates[100], "100%") {
		t.Errorf("last update of the first stage: %q", fe.updates[100])
	}
	p.Done("<table>final</table>")
	p.Update("late", 1, 2)
	p.Done("again")
	if last := fe.updates[len(fe.updates)-1]; last != "warplab-progress-42=" {
		t.Errorf("Done did not clear the transient display: last update %q", last)
	}
	if len(fe.shown) != 1 || fe.shown[0] != "<table>final</table>" {
		t.Errorf("persistent outputs %q, want the final table once", fe.shown)
	}
	if fe.synced != 1 {
		t.Errorf("Done synced %d times, want 1 (before the cell exits)", fe.synced)
	}
}

func TestProgressText(t *testing.T) {
	var b strings.Builder
	p := newProgress(&fakeFrontEnd{}, "spmv")
	p.Out = &b
	for i := 0; i <= 100; i++ {
		p.Update("build", i, 100)
	}
	p.Update("run", 0, 0)
	p.Done("<b>ignored outside a notebook</b>")
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 12 || lines[0] != "spmv: build 0%" || lines[10] != "spmv: build 100%" || lines[11] != "spmv: run" {
		t.Errorf("text progress:\n%s", b.String())
	}
	// Silent without Out, and never panics.
	newProgress(&fakeFrontEnd{}, "quiet").Update("x", 5, 3)
}

func TestShowError(t *testing.T) {
	fe := &fakeFrontEnd{notebook: true}
	var stderr strings.Builder
	if showErrorTo(fe, &stderr, nil) {
		t.Error("nil error reported")
	}
	if !showErrorTo(fe, &stderr, errors.New("matrix <x.mtx>: no such file")) {
		t.Error("error not reported")
	}
	// In a notebook the error is shown once, in the HTML box: stderr is
	// shown in the cell too, so writing both showed it twice (issue 31).
	if stderr.Len() != 0 {
		t.Errorf("stderr %q in a notebook, want nothing", stderr.String())
	}
	if len(fe.shown) != 1 || !strings.Contains(fe.shown[0], "matrix &lt;x.mtx&gt;: no such file") || fe.synced != 1 {
		t.Errorf("notebook got %q (synced %d)", fe.shown, fe.synced)
	}
	// Outside a notebook, stderr only.
	cli := &fakeFrontEnd{}
	if !showErrorTo(cli, &stderr, errors.New("no GPU")) || stderr.String() != "error: no GPU\n" || len(cli.shown) != 0 {
		t.Errorf("outside a notebook: stderr %q, shown %q", stderr.String(), cli.shown)
	}
}

func TestDisplayOutsideNotebook(t *testing.T) {
	fe := &fakeFrontEnd{}
	if err := displayTo(fe, linePlot(t, "quiet"), DefaultWidth, DefaultHeight); err != nil {
		t.Fatal(err)
	}
	if len(fe.shown) != 0 {
		t.Error("displayed outside a notebook")
	}
	fe.notebook = true
	if err := displayTo(fe, linePlot(t, "shown"), DefaultWidth, DefaultHeight); err != nil {
		t.Fatal(err)
	}
	if len(fe.shown) != 1 || !strings.HasPrefix(fe.shown[0], "<div>") || !strings.Contains(fe.shown[0], "<svg") {
		t.Errorf("notebook got %.100q", fe.shown)
	}
	// GoNB closes its end of the pipe when the cell's program exits, so a
	// figure not yet read is lost: Display must wait for GoNB's ack.
	if fe.synced != 1 {
		t.Errorf("Display synced %d times, want 1", fe.synced)
	}
	displayHTMLTo(fe, "<b>note</b>")
	if len(fe.shown) != 2 || fe.synced != 2 {
		t.Errorf("DisplayHTML: shown %d, synced %d; want 2, 2", len(fe.shown), fe.synced)
	}
	if err := displayTo(fe, nil, DefaultWidth, DefaultHeight); err == nil {
		t.Error("nil plot displayed")
	}
	// The exported entry point is a no-op here (not started by GoNB).
	if err := Display(linePlot(t, "cli")); err != nil {
		t.Error(err)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1048576: "1,048,576", -27459584: "-27,459,584"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func linePlot(t *testing.T, title string) *plot.Plot {
	t.Helper()
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "x (units)"
	l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	if err != nil {
		t.Fatal(err)
	}
	p.Add(l)
	return p
}

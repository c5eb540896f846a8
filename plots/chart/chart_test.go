package chart

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/warplab/warplab/internal/testenv"
	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/sim/timing"
)

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

func TestSVGAndPNG(t *testing.T) {
	p := linePlot(t, "a <title> & more")
	svg, err := SVG(p, DefaultWidth, DefaultHeight)
	if err != nil {
		t.Fatal(err)
	}
	s := string(svg)
	if !strings.HasPrefix(strings.TrimSpace(s), "<?xml") || !strings.Contains(s, "<svg") {
		t.Errorf("not an SVG document: %.80q", s)
	}
	if !strings.Contains(s, "a &lt;title&gt; &amp; more") {
		t.Error("SVG lacks the escaped title")
	}
	if !strings.Contains(s, "x (units)") {
		t.Error("SVG lacks the axis label")
	}
	b, err := PNG(p, 4*vg.Inch, 2*vg.Inch, 100)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if got := img.Bounds().Dx(); got != 400 {
		t.Errorf("PNG 4 in at 100 dpi is %d px wide, want 400", got)
	}
}

func TestRenderErrors(t *testing.T) {
	var nilPlot *plot.Plot
	var nilFig *Figure
	bad := plot.New()
	bad.Y.Scale = plot.LogScale{}
	bad.Y.Min, bad.Y.Max = -1, 10 // gonum panics on this; we must not
	for name, tc := range map[string]struct {
		d    Drawer
		w, h vg.Length
	}{
		"nil drawer":      {nil, DefaultWidth, DefaultHeight},
		"nil plot":        {nilPlot, DefaultWidth, DefaultHeight},
		"nil figure":      {nilFig, DefaultWidth, DefaultHeight},
		"zero size":       {plot.New(), 0, DefaultHeight},
		"huge size":       {plot.New(), 1000 * vg.Inch, DefaultHeight},
		"NaN size":        {plot.New(), vg.Length(math.NaN()), DefaultHeight},
		"panics in gonum": {bad, DefaultWidth, DefaultHeight},
	} {
		if _, err := SVG(tc.d, tc.w, tc.h); err == nil {
			t.Errorf("%s: SVG gave no error", name)
		}
		if _, err := PNG(tc.d, tc.w, tc.h, 0); err == nil {
			t.Errorf("%s: PNG gave no error", name)
		}
	}
	if _, err := PNG(plot.New(), DefaultWidth, DefaultHeight, 5000); err == nil {
		t.Error("5000 dpi accepted")
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	p := linePlot(t, "written")
	for _, name := range []string{"f.svg", "f.png", "F.SVG"} {
		path := filepath.Join(dir, name)
		if err := WriteFile(path, p, DefaultWidth, DefaultHeight); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, err := os.ReadFile(path)
		if err != nil || len(b) == 0 {
			t.Fatalf("%s: read back %d bytes, %v", name, len(b), err)
		}
	}
	// A failed render leaves the previous file whole and no temporary
	// files behind.
	path := filepath.Join(dir, "f.svg")
	before := testenv.Must(os.ReadFile(path))(t)
	bad := plot.New()
	bad.X.Scale = plot.LogScale{}
	bad.X.Min, bad.X.Max = 0, 1
	if err := WriteFile(path, bad, DefaultWidth, DefaultHeight); err == nil {
		t.Fatal("drawing a log axis from 0 gave no error")
	}
	after := testenv.Must(os.ReadFile(path))(t)
	if !bytes.Equal(before, after) {
		t.Error("a failed WriteFile changed the existing file")
	}
	if err := WriteFile(filepath.Join(dir, "f.pdf"), p, DefaultWidth, DefaultHeight); err == nil {
		t.Error(".pdf accepted")
	}
	if err := WriteFile(filepath.Join(dir, "missing", "f.svg"), p, DefaultWidth, DefaultHeight); err == nil {
		t.Error("writing into a missing folder gave no error")
	}
	entries := testenv.Must(os.ReadDir(dir))(t)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestNiceLogTicks(t *testing.T) {
	var got []string
	for _, tk := range (NiceLogTicks{}).Ticks(0.5, 100) {
		got = append(got, tk.Label)
	}
	if want := "0.5 1 2 5 10 20 50 100"; strings.Join(got, " ") != want {
		t.Errorf("ticks %q, want %q", strings.Join(got, " "), want)
	}
	if lo, hi := LogRange(0.54, 26.2, 3); lo != 0.5 || hi != 100 {
		t.Errorf("LogRange(0.54, 26.2, 3) = %g, %g; want 0.5, 100", lo, hi)
	}
}

func TestRoofline(t *testing.T) {
	for _, key := range []string{"t4", "h200"} {
		m, err := sim.ModelByKey(key)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Roofline(m, []RooflinePoint{
			{Label: "naive matmul", Intensity: 0.25, Flops: 0.9e12, Kind: "modeled"},
			{Label: "tiled", Intensity: 8, Flops: 5e12, Kind: "measured"},
		})
		if err != nil {
			t.Fatal(err)
		}
		svg, err := SVG(p, DefaultWidth, DefaultHeight)
		if err != nil {
			t.Fatal(err)
		}
		s := string(svg)
		wants := []string{"Roofline: " + m.Name, "FP32 peak", "DRAM:", "naive matmul", "arithmetic intensity (flop per DRAM byte, log scale)", "measured", "modeled"}
		if m.TF32Flops > 0 {
			wants = append(wants, "TF32 tensor-core peak")
		} else if strings.Contains(s, "TF32") {
			t.Errorf("%s has no tensor cores but the roofline draws a TF32 roof", key)
		}
		for _, want := range wants {
			if !strings.Contains(s, want) {
				t.Errorf("%s roofline lacks %q", key, want)
			}
		}
	}
	h200 := testenv.Must(sim.ModelByKey("h200"))(t)
	for name, pt := range map[string]RooflinePoint{
		"zero intensity": {Intensity: 0, Flops: 1},
		"negative rate":  {Intensity: 1, Flops: -1},
		"NaN":            {Intensity: math.NaN(), Flops: 1},
		"Inf":            {Intensity: math.Inf(1), Flops: 1},
	} {
		if _, err := Roofline(h200, []RooflinePoint{pt}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := Roofline(sim.Model{GPU: timing.GPU{Name: "empty"}}, nil); err == nil {
		t.Error("a model without bandwidth accepted")
	}
}

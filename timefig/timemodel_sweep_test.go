package timefig_test

import (
	"bytes"
	"log"
	"os"
	"testing"

	"gonum.org/v1/plot/cmpimg"

	"github.com/warplab/warplab/plots"
	"github.com/warplab/warplab/timecheck"
	"github.com/warplab/warplab/timefig"
)

// ExampleTimeModelSweepGrid draws a `warplab timemodel check --sweep-json`
// report: testdata/timemodel_sweep.json, a copy of the recorded H200
// sweep's check (timecheck/recorded/sweep-h200.json when it was
// made), so the golden moves only when the figure code does.
func ExampleTimeModelSweepGrid() {
	rep := readSweepReport("testdata/timemodel_sweep.json")
	g, err := timefig.TimeModelSweepGrid(rep, 4)
	if err != nil {
		log.Panic(err)
	}
	w, h := g.Size()
	if err := plots.WriteFile("testdata/timemodel_sweep.png", g, w, h); err != nil {
		log.Panic(err)
	}
}

func readSweepReport(path string) *timecheck.SweepReport {
	f, err := os.Open(path)
	if err != nil {
		log.Panic(err)
	}
	defer f.Close()
	rep, err := timecheck.ReadSweepReport(f)
	if err != nil {
		log.Panic(err)
	}
	return rep
}

func TestGoldenTimeModelSweep(t *testing.T) {
	cmpimg.CheckPlot(ExampleTimeModelSweepGrid, t, "timemodel_sweep.png")
}

// TestTimeModelSweepDocsFigure holds docs/timemodel-sweep.png to the golden
// (the same report drawn by the same code): regenerate both together.
func TestTimeModelSweepDocsFigure(t *testing.T) {
	doc, err := os.ReadFile("../docs/timemodel-sweep.png")
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile("testdata/timemodel_sweep_golden.png")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(doc, golden) {
		t.Fatal("docs/timemodel-sweep.png is not timefig/testdata/timemodel_sweep_golden.png: copy the golden after `go test ./timefig -run Golden -regen`")
	}
}

func TestTimeModelSweepErrors(t *testing.T) {
	rep := &timecheck.SweepReport{Cases: []timecheck.SweepCase{{Family: "f", Kernel: "k", Input: "n=1", Size: 1, SizeUnit: "elements", Measured: 1e-5}}}
	if _, err := timefig.TimeModelSweep(rep, "other"); err == nil {
		t.Error("a family with no case drew a figure")
	}
	if _, err := timefig.TimeModelSweep(nil, "f"); err == nil {
		t.Error("a nil report drew a figure")
	}
	if _, err := timefig.TimeModelSweepGrid(rep, 0); err == nil {
		t.Error("zero columns drew a grid")
	}
	p, err := timefig.TimeModelSweep(rep, "f")
	if err != nil || p.Title.Text != "f: 0 of 0 modeled within ±25% (1 measured)" {
		t.Fatalf("measured only: %v, title %q", err, p.Title.Text)
	}
}

package launchbench

import (
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/ptxcheck"
)

func TestPTXFresh(t *testing.T) {
	if err := ptxcheck.CheckFile("empty.cu"); err != nil {
		t.Fatal(err)
	}
}

// On the simulator the loop runs and counts; the numbers mean nothing
// there, so only the shape is checked.
func TestMeasureOnSimulator(t *testing.T) {
	dev, err := gpuext.Open("sim")
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	r, err := Measure(dev, 50)
	if err != nil {
		t.Fatal(err)
	}
	if r.Launches != 50 || r.AsyncMicros < 0 || r.Kind != "measured" {
		t.Fatalf("unexpected result %+v", r)
	}
	if _, err := Measure(dev, 0); err == nil {
		t.Fatal("0 launches accepted")
	}
}

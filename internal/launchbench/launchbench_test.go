package launchbench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/launchrec"
	"github.com/warplab/warplab/internal/ptxcheck"
	"github.com/warplab/warplab/sim"
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
	if r.Launches != 50 || r.AsyncMicros < 0 || r.ManyAsyncMicros <= 0 || r.Kind != gpuext.Measured {
		t.Fatalf("unexpected result %+v", r)
	}
	if _, err := Measure(dev, 0); err == nil {
		t.Fatal("0 launches accepted")
	}
}

// TestWriteTextAsRecorded: WriteText prints what the recorded runs hold,
// byte for byte (internal/timecheck parses those files), here the first
// record of 2026-12-01's second argument run.
func TestWriteTextAsRecorded(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("..", "..", "evidence", "timemodel-launchargs-2041-h200-2026-12-01", "launch-go-r1.txt"))
	if err != nil {
		t.Fatal(err)
	}
	r := Result{Launches: 20000, AsyncMicros: 5.73, RoundTripMicros: 10.56, ArgsAsyncMicros: 7.35,
		WideAsyncMicros: 6.56, ScalarsAsyncMicros: 6.00, Repeats: TimedRepeats,
		TimedEmptyMicros: 5.89, TimedArgsMicros: 7.44, TimedWideMicros: 7.49, TimedScalarsMicros: 6.33}
	var b strings.Builder
	if err := r.WriteText(&b, "NVIDIA H200", false); err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("WriteText printed\n%s\nthe record holds\n%s", b.String(), want)
	}
	// launchrec reads back what WriteText prints.
	r.Spin = []SpinPoint{{Nanos: 0, Micros: 6.1}, {Nanos: 2000, Micros: 7.2}}
	r.TimedWarpCopyMicros, r.TimedCopyMicros = 6.4, 7.9
	b.Reset()
	if err := r.WriteText(&b, "NVIDIA H200", false); err != nil {
		t.Fatal(err)
	}
	got, err := launchrec.ReadText([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if got.GPU != "NVIDIA H200" || got.HostLoop != 5.73 || !got.Protocol || got.Empty != 5.89 || got.Args != 7.44 || got.Scalars != 6.33 ||
		len(got.Spin) != 2 || got.Spin[0] != 6.1 || got.Spin[2000] != 7.2 || got.WarpCopy != 6.4 || got.Copy != 7.9 {
		t.Errorf("launchrec.ReadText(WriteText) = %+v", got)
	}
}

// TestSpinOnSimulator: the spin kernel ends on the simulator too, whose
// %globaltimer advances with the modeled clock, so a launch of it there
// cannot hang.
func TestSpinOnSimulator(t *testing.T) {
	dev, err := gpuext.Open("sim")
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := dev.Launch(ctx, Module().MustKernel("spinKernel"), gpuext.Config{Grid: 1, Block: 1}, uint64(2000)); err != nil {
		t.Fatal(err)
	}
}

// TestModeledWarpCopy: the simulator's GPU time of the protocol's warp
// copy is a launch's worth of time (positive, under the host's floor, which
// it is compared against), and the GPU backend is refused.
func TestModeledWarpCopy(t *testing.T) {
	dev, err := gpuext.Open("sim")
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	s, err := ModeledWarpCopy(dev)
	if err != nil {
		t.Fatal(err)
	}
	if floor := dev.Model().LaunchFloor(sim.LaunchArgs{Buffers: 2, Scalars: 1}); s <= 0 || s >= floor {
		t.Errorf("modeled warp copy %g s, want in (0, the floor %g s)", s, floor)
	}
	t.Logf("modeled GPU time of one warp's copy of 32 floats on %s: %.2f µs", dev.Name(), s*1e6)
}

package gpuext

import (
	"fmt"
	"time"
)

// The Day-37 seed's timing protocol: 3 warm-up runs, then 10 timed runs.
const (
	DefaultWarmups = 3
	DefaultRuns    = 10
)

// Timing is how long one run of a launch sequence takes. Kind says what the
// number is: "measured" (CUDA events on a GPU, naming Device, Driver and
// Date) or "modeled" (the simulator's time model; nothing ran on a GPU).
type Timing struct {
	MeanMs   float64 // measured: events around all timed runs / Runs (the seed's number); modeled: the sum of the launches' modeled times
	MinMs    float64 // measured: the fastest run by per-run events; modeled: = MeanMs
	MedianMs float64 // measured: the median run by per-run events; modeled: = MeanMs
	Warmups  int     // warm-up runs made (0 on the simulator)
	Runs     int     // timed runs made (1 on the simulator)
	Kind     string  // "measured" or "modeled"

	Device string    // the GPU, or "simulated <model> (modeled)"
	Driver string    // the CUDA driver version on a GPU; "" on the simulator
	Date   time.Time // when it was measured or modeled
}

func (t Timing) String() string {
	if t.Kind == "modeled" {
		return fmt.Sprintf("%.4f ms (modeled, %s)", t.MeanMs, t.Device)
	}
	return fmt.Sprintf("%.4f ms mean of %d runs, min %.4f, median %.4f (measured on %s, %s, %s)",
		t.MeanMs, t.Runs, t.MinMs, t.MedianMs, t.Device, t.Driver, t.Date.Format("2006-01-02"))
}

// Time measures f, which launches one or more kernels. warmups < 0 means
// DefaultWarmups and runs < 1 means DefaultRuns.
//
// On a GPU it follows the Day-37 seed: warm-ups, a synchronize, then a CUDA
// event before and after the timed runs; MeanMs is the time between the two
// events divided by runs. A second pass of runs with an event between every
// two runs gives MinMs and MedianMs. Kind is "measured".
//
// On the simulator, where time is a model and every run would model the
// same, f runs once and MeanMs is the sum of the modeled times of the
// kernels it launched. Kind is "modeled".
func (d *Device) Time(f func() error, warmups, runs int) (Timing, error) {
	return d.timeRuns(f, warmups, runs, false)
}

// TimeOnce measures one run of f, which may also copy and wait on the
// host: a CUDA event before and after it on the GPU, with no warm-up and no
// second pass (Time's protocol would run f 2·runs + warmups times). It is
// for something that can run only once as given, such as a whole solve: its
// GPU span, from the first queued operation to the last, beside the host's
// clock. On the simulator it is Time's modeled sum.
func (d *Device) TimeOnce(f func() error) (Timing, error) {
	return d.timeRuns(f, 0, 1, true)
}

func (d *Device) timeRuns(f func() error, warmups, runs int, once bool) (Timing, error) {
	if err := d.check("Time"); err != nil {
		return Timing{}, err
	}
	if err := d.notRecording("Time"); err != nil {
		return Timing{}, err
	}
	if f == nil {
		return Timing{}, fmt.Errorf("gpuext: Time: nil function")
	}
	if warmups < 0 {
		warmups = DefaultWarmups
	}
	if runs < 1 {
		runs = DefaultRuns
	}
	if d.gpu != nil {
		t, err := d.gpu.time(f, warmups, runs, once)
		if err != nil {
			return Timing{}, fmt.Errorf("gpuext: Time: %w", err)
		}
		return t, nil
	}

	var secs []float64
	d.mu.Lock()
	if d.timing != nil {
		d.mu.Unlock()
		return Timing{}, fmt.Errorf("gpuext: Time: already inside Time on %s; Time calls do not nest", d.name)
	}
	d.timing = &secs
	d.mu.Unlock()
	err := f()
	d.mu.Lock()
	d.timing = nil
	d.mu.Unlock()
	if err != nil {
		return Timing{}, fmt.Errorf("gpuext: Time: %w", err)
	}
	if len(secs) == 0 {
		return Timing{}, fmt.Errorf("gpuext: Time: the function launched no kernel through this device")
	}
	total := 0.0
	for _, s := range secs {
		total += s
	}
	ms := total * 1e3
	return Timing{MeanMs: ms, MinMs: ms, MedianMs: ms, Warmups: 0, Runs: 1, Kind: "modeled",
		Device: d.name, Date: time.Now()}, nil
}

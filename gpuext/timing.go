package gpuext

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"time"
)

// The Day-37 seed's timing protocol: 3 warm-up runs, then 10 timed runs.
const (
	DefaultWarmups = 3
	DefaultRuns    = 10
)

// Timing is how long one run of a launch sequence takes. Kind says what the
// number is: Measured (CUDA events on a GPU, naming Device, Driver and
// Date) or Modeled (the simulator's time model; nothing ran on a GPU).
type Timing struct {
	MeanMs   float64 // measured: events around all timed runs / Runs (the seed's number); modeled: the sum of the launches' modeled times
	MinMs    float64 // measured: the fastest run by per-run events; modeled: = MeanMs
	MedianMs float64 // measured: the median run by per-run events; modeled: = MeanMs
	Warmups  int     // warm-up runs made (0 on the simulator)
	Runs     int     // timed runs made (1 on the simulator)
	Kind     TimeKind

	Device string    // the GPU, or "simulated <model> (modeled)"
	Driver string    // the CUDA driver version on a GPU; "" on the simulator
	Date   time.Time // when it was measured or modeled
}

func (t Timing) String() string {
	if t.Kind == Modeled {
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
// two runs gives MinMs and MedianMs. Kind is Measured. The events sit on
// the one stream every launch of the Device uses, so they time everything
// the GPU ran between them: a kernel another goroutine queues while Time
// runs is inside the span, and two Time calls at once (both succeed) each
// measure the other's kernels too. For a clean number, launch nothing else
// on the Device while timing; CUDA gives no per-call span on a shared stream.
//
// On the simulator, where time is a model and every run would model the
// same, f runs once and MeanMs is the sum of the modeled times of the
// kernels it launched. Kind is Modeled. Each call keeps its own sum: it
// counts the launches (Launch, Graph.Launch) made
// on d by the goroutine that called Time, and no others, so launches from
// other goroutines neither add to it nor fail it, and Time calls on several
// goroutines at once each get their own sum. (Go has no goroutine-local
// state; the launch reads its goroutine's number from the runtime's stack
// header, only while a Time call is active on d.) A function that launches
// from goroutines of its own uses TimeContext, whose context carries the
// call to them.
//
// Time calls do not nest on one goroutine: a Time inside f fails, and f
// goes on. A panic in f passes through Time to its caller, and Time is
// usable again afterwards.
func (d *Device) Time(f func() error, warmups, runs int) (Timing, error) {
	if f == nil {
		return d.timeRuns(context.Background(), nil, warmups, runs, false)
	}
	return d.timeRuns(context.Background(), func(context.Context) error { return f() }, warmups, runs, false)
}

// TimeContext is Time for a function that launches from several goroutines,
// or that should stop when ctx is done. f receives a context derived from
// ctx that carries this Time call: on the simulator, a launch made with it
// (Launch, Graph.Launch) counts for this call from
// whatever goroutine makes it, beside the launches of the calling goroutine,
// which count as in Time. On a GPU it is Time, with f given the context.
// TimeContext returns ctx's error if ctx is done before f runs.
func (d *Device) TimeContext(ctx context.Context, f func(ctx context.Context) error, warmups, runs int) (Timing, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	return d.timeRuns(ctx, f, warmups, runs, false)
}

// TimeOnce measures one run of f, which may also copy and wait on the
// host: a CUDA event before and after it on the GPU, with no warm-up and no
// second pass (Time's protocol would run f 2·runs + warmups times). It is
// for something that can run only once as given, such as a whole solve: its
// GPU span, from the first queued operation to the last, beside the host's
// clock. On the simulator it is Time's modeled sum, counted as Time counts.
func (d *Device) TimeOnce(f func() error) (Timing, error) {
	if f == nil {
		return d.timeRuns(context.Background(), nil, 0, 1, true)
	}
	return d.timeRuns(context.Background(), func(context.Context) error { return f() }, 0, 1, true)
}

func (d *Device) timeRuns(ctx context.Context, f func(context.Context) error, warmups, runs int, once bool) (Timing, error) {
	if err := d.check("Time"); err != nil {
		return Timing{}, err
	}
	if err := d.notRecording("Time"); err != nil {
		return Timing{}, err
	}
	if f == nil {
		return Timing{}, fmt.Errorf("gpuext: Time: nil function")
	}
	if err := ctx.Err(); err != nil {
		return Timing{}, fmt.Errorf("gpuext: Time: %w", err)
	}
	if warmups < 0 {
		warmups = DefaultWarmups
	}
	if runs < 1 {
		runs = DefaultRuns
	}
	t, err := d.be.time(ctx, f, warmups, runs, once)
	if err != nil {
		return Timing{}, fmt.Errorf("gpuext: Time: %w", err)
	}
	return t, nil
}

// goid is the calling goroutine's number, from the first line runtime.Stack
// writes ("goroutine 18 [running]:"), a format Go has kept since 1.0. Go
// gives no other way to tell goroutines apart; Time uses it only to know
// which launches are its caller's. 0 if the line cannot be read.
func goid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b, ok := bytes.CutPrefix(b, []byte("goroutine "))
	if !ok {
		return 0
	}
	var id uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}

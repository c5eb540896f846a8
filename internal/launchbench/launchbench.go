// Package launchbench measures what a kernel launch costs from Go through
// gpuext, so the course can show that the Go path adds nothing a student
// would notice to kernel time. The same loop in C (scripts/evidence/
// launchloop.cu) runs beside it on the GPU host.
package launchbench

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/warplab/warplab/gpuext"
)

//go:embed empty.cu
var cudaSource string

//go:embed empty.ptx
var ptx string

// Module holds the two kernels (empty.cu): their CUDA C for a GPU and
// their PTX, which both a GPU and the simulator run.
func Module() *gpuext.Module {
	return gpuext.NewModule("launchbench", cudaSource, ptx)
}

// WideBlocks is the grid of the wide launch: the SpMV lesson's probe grid
// (1,056 blocks of 256 threads), so that a grid the GPU has to hand out
// block by block is measured beside a one-block one.
const WideBlocks = 1056

// Result is the time per launch, in microseconds.
//
// The first three figures are the host clock over n launches back to back
// with one synchronisation at the end: of emptyKernel in one block of 32
// threads (AsyncMicros), of argsKernel with five buffers and a count, as
// the SpMV lessons launch (ArgsAsyncMicros), and of argsKernel over
// WideBlocks blocks of 256 threads (WideAsyncMicros), of scalarsKernel
// with six scalars in one block (ScalarsAsyncMicros), and of
// manyArgsKernel with the libs lesson's split kernels' eleven buffers and
// three counts in one block (ManyAsyncMicros). RoundTripMicros is
// emptyKernel with a synchronisation after every launch.
//
// The Timed figures follow the lessons' own protocol (gpuext's Device.Time:
// 3 warm-ups, then CUDA events around 10 back-to-back runs), repeated
// Repeats times; each is the median of its repeats' per-run means. They are
// measured on a GPU only (on the simulator Time returns the model's own
// launch figure, which these measurements exist to set): 0 there.
type Result struct {
	Launches           int     `json:"launches"`
	AsyncMicros        float64 `json:"async_us_per_launch"`
	RoundTripMicros    float64 `json:"sync_us_per_launch"`
	ArgsAsyncMicros    float64 `json:"args_async_us_per_launch"`
	WideAsyncMicros    float64 `json:"wide_async_us_per_launch"`
	ScalarsAsyncMicros float64 `json:"scalars_async_us_per_launch"`
	ManyAsyncMicros    float64 `json:"many_async_us_per_launch,omitempty"`

	Repeats            int     `json:"timed_repeats,omitempty"`
	TimedEmptyMicros   float64 `json:"timed_empty_us_per_call,omitempty"`
	TimedArgsMicros    float64 `json:"timed_args_us_per_call,omitempty"`
	TimedWideMicros    float64 `json:"timed_wide_us_per_call,omitempty"`
	TimedScalarsMicros float64 `json:"timed_scalars_us_per_call,omitempty"`
	TimedManyMicros    float64 `json:"timed_many_us_per_call,omitempty"`
	// TimedWarpCopyMicros and TimedCopyMicros are copyKernel, the only
	// kernel here that touches memory: one warp copying 32 floats, and 16
	// blocks of 256 threads copying 4,096 (the sweep's smallest copy).
	// Beside the empty kernel they say what loads and stores add to a
	// call at the floor (since 2026-12-07; 0 in older records).
	TimedWarpCopyMicros float64 `json:"timed_warp_copy_us_per_call,omitempty"`
	TimedCopyMicros     float64 `json:"timed_copy_us_per_call,omitempty"`
	// Spin is spinKernel's time per call with the lessons' protocol at
	// each of SpinNanos (GPU only, like the Timed figures): how the time
	// per call grows with a kernel's own GPU time near the host's launch
	// interval, which the time model takes as its launch curve.
	Spin []SpinPoint `json:"spin,omitempty"`

	Kind gpuext.TimeKind `json:"kind"` // Measured (host clock and, on a GPU, CUDA events)
}

// SpinPoint is one point of the spin curve: spinKernel held its thread
// Nanos nanoseconds of the GPU's timer, and the lessons' protocol took
// Micros microseconds per call (the median of TimedRepeats timings).
type SpinPoint struct {
	Nanos  int     `json:"ns"`
	Micros float64 `json:"us_per_call"`
}

// SpinNanos returns the kernel times the spin curve measures: from none
// through the host's launch interval (about 5 µs on the H200's host) to
// well past it, where the GPU sets the time per call.
func SpinNanos() []int {
	return []int{0, 500, 1000, 1500, 2000, 3000, 4000, 5000, 6000, 8000, 10000, 12000, 16000, 24000, 32000}
}

// CopyFloats is the larger copy's length: the sweep's smallest copy
// (internal/sweep's stream family at n = 2^12), 16 blocks of 256 threads.
const CopyFloats = 4096

// DefaultLaunches is how many launches back to back Measure's host-clock
// figures take, unless told otherwise (`warplab bench launch --n`).
const DefaultLaunches = 10000

// TimedRepeats is how many times Measure times each kernel with the
// lessons' protocol on a GPU.
const TimedRepeats = 101

// Measure launches the kernels n times each way on dev (see Result).
func Measure(dev *gpuext.Device, n int) (r Result, err error) {
	if n < 1 {
		return Result{}, fmt.Errorf("launchbench: %d launches; need at least 1", n)
	}
	m := Module()
	var bufs [13]*gpuext.Buffer[float32]
	defer func() {
		for _, b := range bufs {
			if b != nil {
				err = errors.Join(err, b.Free())
			}
		}
	}()
	for i := range bufs {
		n := 256
		if i >= 11 { // copyKernel's x and y
			n = CopyFloats
		}
		if bufs[i], err = gpuext.Alloc[float32](dev, fmt.Sprintf("arg%d", i), n); err != nil {
			return Result{}, err
		}
	}
	empty := func() error {
		_, err := dev.Launch(context.Background(), m.MustKernel("emptyKernel"), gpuext.Config{Grid: 1, Block: 32})
		return err
	}
	args := func(blocks, threads int) func() error {
		return func() error {
			_, err := dev.Launch(context.Background(), m.MustKernel("argsKernel"), gpuext.Config{Grid: blocks, Block: threads}, bufs[0], bufs[1], bufs[2], bufs[3], bufs[4], uint64(256))
			return err
		}
	}
	narrow, wide := args(1, 32), args(WideBlocks, 256)
	scalars := func() error {
		_, err := dev.Launch(context.Background(), m.MustKernel("scalarsKernel"), gpuext.Config{Grid: 1, Block: 32}, uint64(1), uint64(2), uint64(3), uint64(4), uint64(5), uint64(6))
		return err
	}
	many := func() error {
		_, err := dev.Launch(context.Background(), m.MustKernel("manyArgsKernel"), gpuext.Config{Grid: 1, Block: 32},
			bufs[0], bufs[1], bufs[2], bufs[3], bufs[4], uint32(256), uint32(256), bufs[5], bufs[6], bufs[7], bufs[8], bufs[9], bufs[10], uint32(256))
		return err
	}
	copies := func(blocks, threads, n int) func() error {
		return func() error {
			_, err := dev.Launch(context.Background(), m.MustKernel("copyKernel"), gpuext.Config{Grid: blocks, Block: threads}, bufs[11], bufs[12], uint32(n))
			return err
		}
	}
	warpCopy, copy16 := copies(1, 32, 32), copies(CopyFloats/256, 256, CopyFloats)
	for _, f := range []func() error{empty, narrow, wide, scalars, many, warpCopy, copy16} {
		for i := 0; i < 100; i++ { // load the module, warm the driver
			if err := f(); err != nil {
				return Result{}, err
			}
		}
	}
	if err := dev.Synchronize(); err != nil {
		return Result{}, err
	}
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(n) }
	async := func(f func() error) (float64, error) {
		t0 := time.Now()
		for i := 0; i < n; i++ {
			if err := f(); err != nil {
				return 0, err
			}
		}
		if err := dev.Synchronize(); err != nil {
			return 0, err
		}
		return per(time.Since(t0)), nil
	}
	r = Result{Launches: n, Kind: "measured"}
	if r.AsyncMicros, err = async(empty); err != nil {
		return Result{}, err
	}
	t0 := time.Now()
	for i := 0; i < n; i++ {
		if err := empty(); err != nil {
			return Result{}, err
		}
		if err := dev.Synchronize(); err != nil {
			return Result{}, err
		}
	}
	r.RoundTripMicros = per(time.Since(t0))
	type measure struct {
		into   *float64
		launch func() error
	}
	for _, m := range []measure{{&r.ArgsAsyncMicros, narrow}, {&r.WideAsyncMicros, wide}, {&r.ScalarsAsyncMicros, scalars}, {&r.ManyAsyncMicros, many}} {
		if *m.into, err = async(m.launch); err != nil {
			return Result{}, err
		}
	}
	if dev.Kind() != gpuext.GPU {
		return r, nil
	}
	timed := func(f func() error) (float64, error) {
		us := make([]float64, TimedRepeats)
		for i := range us {
			t, err := dev.Time(f, gpuext.DefaultWarmups, gpuext.DefaultRuns)
			if err != nil {
				return 0, err
			}
			us[i] = t.MeanMs * 1e3
		}
		slices.Sort(us)
		return us[len(us)/2], nil
	}
	r.Repeats = TimedRepeats
	for _, m := range []measure{{&r.TimedEmptyMicros, empty}, {&r.TimedArgsMicros, narrow}, {&r.TimedWideMicros, wide}, {&r.TimedScalarsMicros, scalars}, {&r.TimedManyMicros, many},
		{&r.TimedWarpCopyMicros, warpCopy}, {&r.TimedCopyMicros, copy16}} {
		if *m.into, err = timed(m.launch); err != nil {
			return Result{}, err
		}
	}
	for _, ns := range SpinNanos() {
		spin := func() error {
			_, err := dev.Launch(context.Background(), m.MustKernel("spinKernel"), gpuext.Config{Grid: 1, Block: 1}, uint64(ns))
			return err
		}
		us, err := timed(spin)
		if err != nil {
			return Result{}, err
		}
		r.Spin = append(r.Spin, SpinPoint{Nanos: ns, Micros: us})
	}
	return r, nil
}

// ModeledWarpCopy is the simulator's GPU time (sim.Modeled.GPUSeconds,
// seconds, less the model's MemoryLaunchSeconds) for the warp copy
// Measure times on a GPU (copyKernel, one warp, 32 floats), launched as
// the protocol launches it: after a launch of its own, so its data is
// where back-to-back calls leave it. The rule for a
// launch that touches memory at the floor (docs/timemodel.md) sets this
// beside the records' GPU time of the same copy (launchrec.WarpCopyGPU).
// dev must be a simulator.
func ModeledWarpCopy(dev *gpuext.Device) (seconds float64, err error) {
	if dev.Kind() != gpuext.Sim {
		return 0, fmt.Errorf("launchbench: the modeled warp copy needs the simulator, not %s", dev.Name())
	}
	var x, y *gpuext.Buffer[float32]
	defer func() {
		for _, b := range []*gpuext.Buffer[float32]{x, y} {
			if b != nil {
				err = errors.Join(err, b.Free())
			}
		}
	}()
	if x, err = gpuext.Alloc[float32](dev, "x", 32); err != nil {
		return 0, err
	}
	if y, err = gpuext.Alloc[float32](dev, "y", 32); err != nil {
		return 0, err
	}
	k := Module().MustKernel("copyKernel")
	var l *gpuext.Launch
	for range 2 {
		if l, err = dev.Launch(context.Background(), k, gpuext.Config{Grid: 1, Block: 32}, x, y, uint32(32)); err != nil {
			return 0, err
		}
	}
	if l.Stats == nil {
		return 0, errors.New("launchbench: the simulator gave the warp copy no statistics")
	}
	// Without the model's own fixed cost of a launch that touches memory
	// (timing.Constants.MemoryLaunchSeconds), which this sets.
	return l.Stats.Time.GPUSeconds - dev.Model().MemoryLaunchSeconds, nil
}

// WriteText prints r as `warplab bench launch` does, the text that
// internal/timecheck reads back from the recorded runs (launch-go*.txt);
// device names the GPU, and sim says that the simulator's own costs were
// measured, not a GPU's.
func (r Result) WriteText(w io.Writer, device string, sim bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "launch overhead on %s, %d launches of an empty kernel (host clock, measured)\n", device, r.Launches)
	fmt.Fprintf(&b, "  back to back, one sync at the end: %8.2f us per launch\n", r.AsyncMicros)
	fmt.Fprintf(&b, "  each launch followed by a sync:    %8.2f us per launch\n", r.RoundTripMicros)
	fmt.Fprintf(&b, "  six arguments (five buffers, a count), back to back: %8.2f us per launch\n", r.ArgsAsyncMicros)
	fmt.Fprintf(&b, "  the same over %d blocks of 256 threads, back to back: %8.2f us per launch\n", WideBlocks, r.WideAsyncMicros)
	fmt.Fprintf(&b, "  six scalar arguments, back to back: %8.2f us per launch\n", r.ScalarsAsyncMicros)
	if r.ManyAsyncMicros > 0 { // records before 2026-12-06 lack it
		fmt.Fprintf(&b, "  fourteen arguments (eleven buffers, three counts), back to back: %8.2f us per launch\n", r.ManyAsyncMicros)
	}
	if r.Repeats > 0 {
		fmt.Fprintf(&b, "lessons' protocol (%d warm-ups, CUDA events around %d runs), median of %d timings (measured)\n",
			gpuext.DefaultWarmups, gpuext.DefaultRuns, r.Repeats)
		fmt.Fprintf(&b, "  empty kernel, one block:           %8.2f us per call\n", r.TimedEmptyMicros)
		fmt.Fprintf(&b, "  six arguments, one block:          %8.2f us per call\n", r.TimedArgsMicros)
		fmt.Fprintf(&b, "  six arguments, %d blocks:        %8.2f us per call\n", WideBlocks, r.TimedWideMicros)
		fmt.Fprintf(&b, "  six scalar arguments, one block:   %8.2f us per call\n", r.TimedScalarsMicros)
		if r.TimedManyMicros > 0 {
			fmt.Fprintf(&b, "  fourteen arguments, one block:     %8.2f us per call\n", r.TimedManyMicros)
		}
		if r.TimedWarpCopyMicros > 0 { // records before 2026-12-07 lack them
			fmt.Fprintf(&b, "  copy of 32 floats, one warp:       %8.2f us per call\n", r.TimedWarpCopyMicros)
			fmt.Fprintf(&b, "  copy of %d floats, %d blocks:    %8.2f us per call\n", CopyFloats, CopyFloats/256, r.TimedCopyMicros)
		}
	}
	for _, p := range r.Spin {
		fmt.Fprintf(&b, "  spin kernel, %6d ns on the GPU: %8.2f us per call\n", p.Nanos, p.Micros)
	}
	if sim {
		fmt.Fprintln(&b, "  (on the simulator these are the simulator's own costs, not a GPU's)")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

package gpuext

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/warplab/warplab/sim"
)

// Graph is a recorded sequence of kernel launches, device-to-device copies
// and fills that replays with one host call: CUDA's graphs. A loop that
// issues the same launches every iteration (one CG iteration: an SpMV, dot
// products, vector updates) pays the host's cost of a launch once per
// kernel; recorded once and replayed, it pays one graph launch per
// iteration instead, and the GPU runs the kernels back to back.
//
// Make one with Device.Record, replay it with Launch, free it with Close.
// The arguments are fixed when recorded: the same buffers and the same
// scalar values on every replay (a kernel reads a changing scalar from a
// buffer, as CG's alpha and beta are kept on the device). A Graph belongs
// to its Device and dies with that Device's Close.
type Graph struct {
	dev     *Device
	ops     []graphOp
	kernels int         // kernel nodes among ops
	bufs    []*bufState // every buffer the graph uses, once each
	exec    any         // what the backend's graphBuild made (the instantiated graph on a GPU)

	mu     sync.Mutex
	closed bool
}

// GraphLaunch is what one replay returns.
type GraphLaunch struct {
	// Kernels holds each recorded kernel's Launch in recorded order, as a
	// plain Launch returns it: on the simulator with its Stats (counters
	// and the kernel's own modeled time); nil on a GPU, where a replay
	// returns once it is queued.
	Kernels []*Launch
	// Simulator only (0 on a GPU), in seconds, modeled:
	// GPUSeconds is the sum of the kernels' GPU times (each kernel's
	// sim.Modeled.GPUSeconds, which includes the GPU's own fixed cost
	// of a launch); HostSeconds is the host's cost of one graph launch
	// (GraphLaunchSeconds); Seconds, the replay's time as Device.Time
	// counts it, is the larger of the two.
	Seconds, GPUSeconds, HostSeconds float64
}

// GraphLaunchSeconds is the host's cost of one graph launch in the
// simulator's time model: the model's TimedLaunch (the interval between two
// plain launches issued back to back from Go) times graphLaunchRatio.
//
// The ratio is measured on the H200 (driver 580.159.04, 2026-12-01,
// evidence/graphs-h200-2026-12-01/graph-time.csv, TestGPUGraphTime): one
// short kernel issued 2,000 times back to back took 6.25 µs a run as plain
// launches and 2.75 µs a run as one-kernel graph replays, host clock, so a
// cuGraphLaunch costs the host 0.44 of a cuLaunchKernel. Other models take
// the same ratio of their own TimedLaunch, an assumption: nothing measured
// them. A graph of n kernels therefore models one such interval per replay
// instead of n plain ones. The GPU side is not changed: each kernel in the
// graph keeps the model's LaunchOverhead (the GPU's own cost of a launch).
func GraphLaunchSeconds(m sim.Model) float64 { return m.TimedLaunch * graphLaunchRatio }

// graphLaunchRatio is the host interval of a one-kernel graph replay over a
// plain launch's, measured on the H200 (see GraphLaunchSeconds).
const graphLaunchRatio = 2.75 / 6.25

// graphOp is one recorded step.
type graphOp struct {
	kind opKind
	// opKernel: the launch, checked as Device.Launch checks it; args as
	// the backend's launch takes them.
	k    *Kernel
	cfg  *launchConfig
	args []any
	// opCopy, opFill: what, for errors; the memory and the bytes.
	what    string
	dst     mem
	src     mem    // opCopy
	bytes   int64  // opCopy: bytes to copy
	word    uint32 // opFill: the 32-bit pattern
	words   int64  // opFill: how many 32-bit words
	touches []*bufState
}

type opKind int

const (
	opKernel opKind = iota
	opCopy
	opFill
)

func (op *graphOp) String() string {
	if op.kind == opKernel {
		return fmt.Sprintf("kernel %s<<<grid %v, block %v, shared %d B>>>", op.k, op.cfg.grid, op.cfg.block, op.cfg.shared)
	}
	return op.what
}

// recorder collects the steps of a Record in progress.
type recorder struct {
	ops []graphOp
	err error // the first step refused, which Record returns
}

// Record runs f, recording instead of running every kernel launch
// (Device.Launch), Buffer.CopyFromBuffer and
// Buffer.Fill that f makes on d, and returns them as a Graph that Launch
// replays in the recorded order. Nothing runs while recording (as in CUDA's
// stream capture): the Launch calls inside f return a Launch without Stats.
//
// Each step is checked as it is recorded, as a plain call checks it (the
// launch configuration, the arguments, that the simulator has the kernel
// or the GPU loads it), and a refused step makes Record fail with that
// step's error, which names the kernel, also when f ignored it. Calls that
// move data between host and device or wait for the device (Alloc, Upload,
// Download, CopyFrom, ReadAsync, Free, Synchronize, Time, Graph.Launch) are
// refused inside f: make buffers before Record and read results after a
// replay. Record calls do not nest. While f runs, every launch on d, from
// any goroutine, is recorded.
func (d *Device) Record(f func() error) (*Graph, error) {
	if err := d.check("Record"); err != nil {
		return nil, err
	}
	if f == nil {
		return nil, fmt.Errorf("gpuext: Record: nil function")
	}
	rec := &recorder{}
	d.mu.Lock()
	if d.rec != nil {
		d.mu.Unlock()
		return nil, fmt.Errorf("gpuext: Record: already recording on %s; Record calls do not nest (record the inner steps directly in the outer function)", d.name)
	}
	d.rec = rec
	d.mu.Unlock()
	err := func() error {
		defer func() {
			d.mu.Lock()
			d.rec = nil
			d.mu.Unlock()
		}()
		return f()
	}()
	if rec.err != nil {
		return nil, fmt.Errorf("gpuext: Record: %w", rec.err)
	}
	if err != nil {
		return nil, fmt.Errorf("gpuext: Record: %w", err)
	}
	if len(rec.ops) == 0 {
		return nil, fmt.Errorf("gpuext: Record: the function launched, copied and filled nothing on %s, so there is nothing to replay", d.name)
	}
	g := &Graph{dev: d, ops: rec.ops}
	seen := make(map[*bufState]bool)
	for i := range g.ops {
		if g.ops[i].kind == opKernel {
			g.kernels++
		}
		for _, st := range g.ops[i].touches {
			if !seen[st] {
				seen[st] = true
				g.bufs = append(g.bufs, st)
			}
		}
	}
	exec, err := d.be.graphBuild(g.ops)
	if err != nil {
		return nil, fmt.Errorf("gpuext: Record: %w", err)
	}
	g.exec = exec
	return g, nil
}

// recording returns the recorder of a Record in progress on d, or nil.
func (d *Device) recording() *recorder {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.rec
}

// notRecording fails when call may not be made inside Record.
func (d *Device) notRecording(call string) error {
	if d == nil {
		return nil
	}
	if rec := d.recording(); rec != nil {
		err := fmt.Errorf("gpuext: %s inside Device.Record: a graph records only kernel launches, CopyFromBuffer and Fill; "+
			"allocate and upload before Record, and read results after Graph.Launch", call)
		rec.refuse(d, err)
		return err
	}
	return nil
}

// refuse remembers err, the first refused step, for Record to return.
func (r *recorder) refuse(d *Device, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if r.err == nil {
		r.err = err
	}
}

// append records op.
func (r *recorder) append(d *Device, op graphOp) {
	d.mu.Lock()
	defer d.mu.Unlock()
	r.ops = append(r.ops, op)
}

// Kernels is the number of kernel launches recorded in g.
func (g *Graph) Kernels() int {
	if g == nil {
		return 0
	}
	return g.kernels
}

// String lists the graph's steps in order.
func (g *Graph) String() string {
	if g == nil {
		return "<nil graph>"
	}
	steps := make([]string, len(g.ops))
	for i := range g.ops {
		steps[i] = g.ops[i].String()
	}
	return fmt.Sprintf("graph of %d steps on %s: %s", len(g.ops), g.dev.name, strings.Join(steps, "; "))
}

// Launch replays g once: its steps in the recorded order, after the work
// queued before it and before the work queued after it.
//
// On a GPU it queues the whole graph with one driver call (cuGraphLaunch on
// the stream Launch uses) and returns, as a kernel launch does; a fault
// inside it is reported by the next call that waits (Download, Synchronize,
// Time), naming the graph's last kernel. On the simulator each kernel runs
// exactly as a plain Launch runs it (counters, checks, faults naming the
// kernel and line), and the replay counts for Device.Time as one launch of
// modeled time GraphLaunch.Seconds: the kernels' GPU time, or one graph
// launch's host cost, whichever is longer (GraphLaunchSeconds).
//
// Every buffer the graph uses must still be alive; a graph that was
// closed, or whose device was closed, is refused.
//
// It gives up when ctx is done: before the replay on a GPU, and between and
// inside the kernels on the simulator (a *sim.Fault of Kind "cancelled"), as
// Device.Launch does for one kernel.
func (g *Graph) Launch(ctx context.Context) (*GraphLaunch, error) {
	if g == nil {
		return nil, fmt.Errorf("gpuext: Graph.Launch on a nil *Graph (did Record fail?)")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	d := g.dev
	if err := d.check("Graph.Launch"); err != nil {
		return nil, err
	}
	if err := d.notRecording("Graph.Launch"); err != nil {
		return nil, err
	}
	g.mu.Lock()
	closed := g.closed
	g.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("gpuext: Graph.Launch: the graph was closed (%d steps, first %s)", len(g.ops), g.ops[0].String())
	}
	if err := d.liveBuffers(g.bufs); err != nil {
		return nil, fmt.Errorf("gpuext: Graph.Launch: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("gpuext: Graph.Launch: %w", err)
	}
	gl, err := d.be.graphLaunch(ctx, g)
	if err != nil {
		return nil, fmt.Errorf("gpuext: Graph.Launch: %w", err)
	}
	return gl, nil
}

// Close frees the graph (on a GPU, the instantiated graph). Launching it
// afterwards is an error. Close is idempotent, and a no-op once the device
// is closed, which frees every graph with it.
func (g *Graph) Close() error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil
	}
	g.closed = true
	g.mu.Unlock()
	if g.exec != nil {
		if err := g.dev.be.graphDestroy(g.exec); err != nil {
			return fmt.Errorf("gpuext: Graph.Close: %w", err)
		}
	}
	return nil
}

// liveBuffers fails when a buffer of sts was freed or died with its
// context, naming it.
func (d *Device) liveBuffers(sts []*bufState) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, st := range sts {
		if st.freed {
			return fmt.Errorf("buffer %s, which the graph uses, was freed; record the graph again with live buffers", st)
		}
		if err := st.mem.alive(); err != nil {
			return fmt.Errorf("buffer %s, which the graph uses: %w", st, err)
		}
	}
	return nil
}

package sweep

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/warplab/warplab/gpuext"
)

// Record is one case of the sweep, one JSON line: what ran on what input,
// and its time. Kind "measured" names the GPU, driver and date; "modeled"
// is the simulator's time model (Device is then the simulated model).
type Record struct {
	Family   string `json:"family"`
	Kernel   string `json:"kernel"`
	Input    string `json:"input"`      // the input within its family: the pairs' group with Family
	Size     int    `json:"size"`       // the input's place on the family's curve
	SizeUnit string `json:"size_unit"`  // "N", "rows", "elements", "grid edge"
	Rank     int    `json:"rank"`       // the size's index in the family, 0 the smallest
	Desc     string `json:"input_desc"` // what the input is (generator, seed, shape)
	Config   string `json:"config"`     // launch shape, or CG's stage
	Check    string `json:"check"`      // the CPU reference check the output passed

	// Times in milliseconds a call. MeanMs is the lessons' number: CUDA
	// events around the 10 back-to-back timed runs, over 10 (what the
	// check compares); MedianMs and MinMs come from per-run events (the
	// spread). For CG, each kernel's event replays per call. On the
	// simulator all three are the launch's modeled time.
	MeanMs   float64 `json:"mean_ms"`
	MedianMs float64 `json:"median_ms"`
	MinMs    float64 `json:"min_ms"`
	Warmups  int     `json:"warmups"`
	Runs     int     `json:"runs"`
	Kind     string  `json:"kind"` // "measured" or "modeled"

	Device string `json:"device"`           // the GPU's name, or the simulated model
	Driver string `json:"driver,omitempty"` // the CUDA driver (GPU only)
	Date   string `json:"date"`             // RFC 3339, UTC

	// Modeled only: the time model's bound and GPU time per launch (before
	// the host's launch interval).
	Bound string  `json:"bound,omitempty"`
	GPUMs float64 `json:"gpu_ms,omitempty"`
	// Modeled only: the simulator ran one block in every SampleStride and
	// scaled (Options.SimWork); SampledBlocks of the grid's blocks ran.
	// 0 when every block ran.
	SampleStride  int   `json:"sample_stride,omitempty"`
	SampledBlocks int64 `json:"sampled_blocks,omitempty"`
}

// Key identifies a case: family, input and kernel.
func (r Record) Key() string { return r.Family + "|" + r.Input + "|" + r.Kernel }

// Group is the key of the record's pairs: family and input.
func (r Record) Group() string { return r.Family + "|" + r.Input }

// Options select and time the sweep's cases.
type Options struct {
	// Families, when not empty, limits the sweep to these families.
	Families []string
	// Sizes, when positive, keeps only each family's Sizes smallest sizes
	// (Input.Rank < Sizes): the local dry run on the simulator.
	Sizes int
	// Only, when set, keeps the inputs it accepts (after Families and
	// Sizes).
	Only func(Input) bool
	// Warmups and Runs are Device.Time's protocol (0: gpuext's 3 and 10).
	Warmups, Runs int
	// Prefetch is how many inputs' host data are built ahead of the
	// device (0: 2).
	Prefetch int
	// Progress, when set, is told each input as it starts.
	Progress func(what string)
	// Until, when set, is when Run stops starting inputs (it finishes the
	// one in progress and returns an error wrapping ErrDeadline).
	Until time.Time
	// SimWork, when positive, is the simulator's budget per input in
	// thread instructions (Input.Work): an input past it runs its kernels'
	// grids sampled, one block in every ⌈Work / SimWork⌉
	// (gpuext.Config.SampleStride), a timing-only run whose outputs are
	// partial and not checked (the record's Check says so). A GPU ignores
	// it; 0 simulates every block.
	SimWork float64
}

// SampleStride is the stride Options.SimWork gives input in on the
// simulator: 0 (every block) when it fits the budget.
func (o Options) SampleStride(in Input) int {
	if o.SimWork <= 0 || in.Work <= o.SimWork {
		return 0
	}
	return int(math.Ceil(in.Work / o.SimWork))
}

// ErrDeadline is what Run's error wraps when Options.Until stopped it.
var ErrDeadline = errors.New("sweep: deadline reached")

// Select returns the inputs o selects, in Families' order.
func Select(o Options) ([]Input, error) {
	want := map[string]bool{}
	for _, f := range o.Families {
		if _, err := Lookup(f); err != nil {
			return nil, err
		}
		want[f] = true
	}
	var out []Input
	for _, f := range Families() {
		if len(want) > 0 && !want[f.Name] {
			continue
		}
		for _, in := range f.Inputs {
			if o.Sizes > 0 && in.Rank >= o.Sizes {
				continue
			}
			if o.Only != nil && !o.Only(in) {
				continue
			}
			out = append(out, in)
		}
	}
	return out, nil
}

// Run runs the inputs on dev and hands each case's record to emit as it
// is done (a GPU: checked, then timed; the simulator: one launch, modeled).
// A case that fails its CPU check is not recorded (a wrong kernel's time
// is no measurement): its input's error is reported and the sweep goes on
// with the next input; Run returns every such error, joined. Host data is built Prefetch inputs ahead on other
// goroutines; the device is used from the calling goroutine only, so no
// copy or launch lands inside another case's timing.
func Run(ctx context.Context, dev *gpuext.Device, inputs []Input, o Options, emit func(Record) error) error {
	if o.Warmups <= 0 {
		o.Warmups = gpuext.DefaultWarmups
	}
	if o.Runs <= 0 {
		o.Runs = gpuext.DefaultRuns
	}
	if o.Prefetch <= 0 {
		o.Prefetch = 2
	}
	type prepared struct {
		data any
		err  error
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]chan prepared, len(inputs))
	for i := range results {
		results[i] = make(chan prepared, 1)
	}
	sem := make(chan struct{}, o.Prefetch)
	go func() {
		for i, in := range inputs {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			go func() {
				d, err := in.prepare(ctx)
				results[i] <- prepared{d, err}
			}()
		}
	}()
	var errs []error
	for i, in := range inputs {
		if !o.Until.IsZero() && time.Now().After(o.Until) {
			errs = append(errs, fmt.Errorf("%w: %d of %d inputs not run", ErrDeadline, len(inputs)-i, len(inputs)))
			return errors.Join(errs...)
		}
		var p prepared
		select {
		case p = <-results[i]:
		case <-ctx.Done():
			return errors.Join(append(errs, ctx.Err())...)
		}
		<-sem
		if o.Progress != nil {
			o.Progress(in.Family + " " + in.Name)
		}
		if p.err != nil {
			errs = append(errs, fmt.Errorf("sweep: %s %s: %w", in.Family, in.Name, p.err))
			continue
		}
		recs, err := runInput(ctx, dev, in, p.data, o)
		for _, r := range recs {
			if werr := emit(r); werr != nil {
				return errors.Join(append(errs, werr)...)
			}
		}
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return errors.Join(append(errs, cerr)...)
			}
			// One input's failure (a wrong output, a refused launch) is
			// reported, and the sweep goes on with the next input.
			err = fmt.Errorf("sweep: %s %s: %w", in.Family, in.Name, err)
			if o.Progress != nil {
				o.Progress("error: " + err.Error())
			}
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// runInput binds in on dev and runs its kernels.
func runInput(ctx context.Context, dev *gpuext.Device, in Input, data any, o Options) ([]Record, error) {
	b, err := in.bind(ctx, dev, data)
	if err != nil {
		return nil, err
	}
	defer b.release()
	if dev.Kind() == "sim" && b.timed == nil {
		b.stride = o.SampleStride(in)
	}
	base := Record{Family: in.Family, Input: in.Name, Size: in.Size, SizeUnit: in.SizeUnit, Rank: in.Rank, Desc: b.desc,
		Device: dev.Name(), Driver: dev.Driver(), Date: time.Now().UTC().Format(time.RFC3339)}
	if dev.Kind() == "sim" {
		base.Kind, base.Driver = "modeled", ""
	} else {
		base.Kind, base.Warmups, base.Runs = "measured", o.Warmups, o.Runs
	}
	if b.timed != nil {
		recs, err := b.timed(ctx, dev)
		if err != nil {
			return nil, err
		}
		for i := range recs {
			r := base
			r.Kernel, r.Config, r.Check = recs[i].Kernel, recs[i].Config, recs[i].Check
			r.MeanMs, r.MedianMs, r.MinMs, r.Bound, r.GPUMs = recs[i].MeanMs, recs[i].MedianMs, recs[i].MinMs, recs[i].Bound, recs[i].GPUMs
			if r.Kind == "modeled" {
				r.Warmups, r.Runs = 0, 1
			}
			recs[i] = r
		}
		return recs, nil
	}
	var out []Record
	for _, k := range in.Kernels {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		launch := b.launch[k]
		if launch == nil {
			return nil, fmt.Errorf("no launch for kernel %s", k)
		}
		if reset := b.reset[k]; reset != nil {
			if err := reset(); err != nil {
				return out, fmt.Errorf("%s: reset: %w", k, err)
			}
		}
		l, err := launch(ctx)
		if err != nil {
			return out, fmt.Errorf("%s: %w", k, err)
		}
		r := base
		r.Kernel, r.Config = k, b.config[k]
		if b.stride > 1 {
			// A sampled launch's outputs are partial: nothing to check.
			r.Check = fmt.Sprintf("not checked: a timing-only simulation of one block in every %d", b.stride)
			r.SampleStride = b.stride
			if l.Stats != nil {
				r.SampledBlocks = l.Stats.SampledBlocks
			}
		} else if v := b.verify[k]; v != nil {
			if r.Check, err = v(); err != nil {
				return out, fmt.Errorf("%s: wrong output: %w", k, err)
			}
		}
		if l.Stats != nil {
			t := l.Stats.Time
			r.MeanMs, r.MedianMs, r.MinMs = t.Seconds*1e3, t.Seconds*1e3, t.Seconds*1e3
			r.GPUMs, r.Bound, r.Runs = t.GPUSeconds*1e3, t.Bound, 1
		} else {
			t, err := dev.Time(func() error { _, err := launch(ctx); return err }, o.Warmups, o.Runs)
			if err != nil {
				return out, fmt.Errorf("%s: timing: %w", k, err)
			}
			r.MeanMs, r.MedianMs, r.MinMs = t.MeanMs, t.MedianMs, t.MinMs
			r.Warmups, r.Runs, r.Driver = t.Warmups, t.Runs, t.Driver
			r.Date = t.Date.UTC().Format(time.RFC3339)
		}
		out = append(out, r)
	}
	return out, nil
}

// WriteRecord writes r as one JSON line.
func WriteRecord(w io.Writer, r Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ReadRecords reads a sweep's JSON lines; a malformed line is an error
// naming its number, blank lines are skipped.
func ReadRecords(rd io.Reader) ([]Record, error) {
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	var out []Record
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" {
			continue
		}
		var r Record
		if err := json.Unmarshal([]byte(t), &r); err != nil {
			return nil, fmt.Errorf("sweep: line %d: %v", line, err)
		}
		if r.Family == "" || r.Kernel == "" || r.Input == "" {
			return nil, fmt.Errorf("sweep: line %d: family, kernel and input are required", line)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

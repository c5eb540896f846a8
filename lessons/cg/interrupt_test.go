package cg

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/warplab/warplab/internal/testenv"
)

// stopBound bounds the time from a cancel to the return: a correctness
// bound, not a speed measurement (before issue 31 a stage ran to its end,
// up to 36 s on the simulator).
const stopBound = 2 * time.Second

// cancelAfter returns a context cancelled d from now and a function that
// says when it was.
func cancelAfter(t *testing.T, d time.Duration) (context.Context, func() time.Time) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	at := make(chan time.Time, 1)
	time.AfterFunc(d, func() { at <- time.Now(); cancel() })
	return ctx, func() time.Time {
		select {
		case a := <-at:
			return a
		default:
			t.Fatal("returned before the cancel; the case must be bigger")
			return time.Time{}
		}
	}
}

// Every stage stops mid-solve when ctx is cancelled: stage 0 between
// iterations, the device stages between operations and inside the
// simulator's launches (host loop, pipelined, graph replays). Each returns
// an error wrapping context.Canceled, within stopBound of the cancel.
func TestRunStageContextCancelled(t *testing.T) {
	dev := openSim(t)
	p := testenv.Must(Generate(Cube(40), GenOptions{}))(t)
	for _, s := range []int{0, 1, 4, 7, 9, 10} {
		opt := RunOptions{}
		if s == 0 {
			opt.MaxIter = MaxIterLimit // 64 000 rows: seconds of iterations
		}
		ctx, cancelledAt := cancelAfter(t, 200*time.Millisecond)
		res, err := RunStageContext(ctx, dev, p, s, opt)
		end := time.Now()
		at := cancelledAt()
		if !errors.Is(err, context.Canceled) || res != nil {
			t.Errorf("stage %d: result %v, error %v; want context.Canceled", s, res != nil, err)
		}
		if took := end.Sub(at); took > stopBound {
			t.Errorf("stage %d returned %v after the cancel; want at most %v", s, took, stopBound)
		}
	}
}

// Run stops while it generates the problem too.
func TestGenerateContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if p, err := GenerateContext(ctx, Cube(100), GenOptions{}); !errors.Is(err, context.Canceled) || p != nil {
		t.Errorf("GenerateContext on a cancelled context: %v, %v", p != nil, err)
	}
	if _, err := Run(ctx, nil, Options{Grid: Cube(100), Stages: []int{0}}); !errors.Is(err, context.Canceled) {
		t.Errorf("Run on a cancelled context: %v", err)
	}
}

// MaxIter beyond MaxIterLimit is refused before the residual history is
// allocated (10^9 was 8 GB and out of memory).
func TestMaxIterLimit(t *testing.T) {
	p := testenv.Must(Generate(Cube(4), GenOptions{}))(t)
	if _, err := SolveCPU(p, SolveOptions{MaxIter: 1_000_000_000}); err == nil {
		t.Error("SolveCPU took MaxIter 10^9")
	}
	if err := (Options{Run: RunOptions{MaxIter: MaxIterLimit + 1}}).Validate(); err == nil {
		t.Error("Validate took MaxIter beyond MaxIterLimit")
	}
	if err := (Options{Run: RunOptions{MaxIter: MaxIterLimit}}).Validate(); err != nil {
		t.Errorf("Validate refused MaxIterLimit: %v", err)
	}
}

// MaxCube is the largest cube Generate takes under a limit.
func TestMaxCube(t *testing.T) {
	n := MaxCube(0)
	in, _ := EstimateBytes(Cube(n))
	out, _ := EstimateBytes(Cube(n + 1))
	if n != 286 || in > DefaultMaxBytes || out <= DefaultMaxBytes {
		t.Errorf("MaxCube(0) = %d (%d and %d bytes around the limit %d)", n, in, out, DefaultMaxBytes)
	}
	if got := MaxCube(1); got != 0 {
		t.Errorf("MaxCube(1 byte) = %d", got)
	}
}

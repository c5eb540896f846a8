package gpuext

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/warplab/warplab/internal/testenv"
)

// timeRig is a simulator Device with saxpy's buffers, and a launch that
// returns its own modeled seconds, so a test can add up what a Time call
// should count.
type timeRig struct {
	d    *Device
	m    *Module
	x, y *Buffer[float32]
}

func newTimeRig(t *testing.T) *timeRig {
	t.Helper()
	d := openSimT(t, "sim")
	return &timeRig{d: d, m: saxpyModule(),
		x: testenv.Must(Upload(d, "x", make([]float32, 1<<14)))(t),
		y: testenv.Must(Upload(d, "y", make([]float32, 1<<14)))(t)}
}

// launch runs saxpy over n elements with ctx and returns its modeled seconds.
func (r *timeRig) launch(ctx context.Context, n int) (float64, error) {
	l, err := r.d.Launch(ctx, kern(r.m, "saxpy"), Config{Grid: (n + 255) / 256, Block: 256}, int32(n), float32(2), r.x, r.y)
	if err != nil {
		return 0, err
	}
	return l.Stats.Time.Seconds, nil
}

// sameMs fails unless Time's MeanMs is the sum of secs, in ms.
func sameMs(t *testing.T, what string, tm Timing, secs ...float64) {
	t.Helper()
	want := 0.0
	for _, s := range secs {
		want += s
	}
	want *= 1e3
	if math.Abs(tm.MeanMs-want) > 1e-12*math.Max(1, want) {
		t.Errorf("%s: Time says %.9f ms, its own launches modeled %.9f ms", what, tm.MeanMs, want)
	}
}

// TestTimeIgnoresOtherGoroutines: a launch another goroutine makes while
// Time's function runs is not in Time's sum (issue 31, item 4). The other
// goroutine launches a kernel 16 times larger between the function's two
// launches, so counting it would be plain.
func TestTimeIgnoresOtherGoroutines(t *testing.T) {
	r := newTimeRig(t)
	var own []float64
	tm, err := r.d.Time(func() error {
		s, err := r.launch(context.Background(), 1024)
		if err != nil {
			return err
		}
		own = append(own, s)
		done := make(chan error)
		go func() { _, err := r.launch(context.Background(), 1<<14); done <- err }()
		if err := <-done; err != nil {
			return err
		}
		s, err = r.launch(context.Background(), 1024)
		own = append(own, s)
		return err
	}, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	sameMs(t, "with another goroutine launching", tm, own...)
}

// TestTimeConcurrentCalls: Time calls on several goroutines at once all
// succeed, each with the sum of its own launches (issue 31, item 5). Every
// function launches, waits until all the others are inside Time, and
// launches again; besides, a goroutine outside any Time launches all along.
func TestTimeConcurrentCalls(t *testing.T) {
	r := newTimeRig(t)
	const callers = 4
	var inside sync.WaitGroup
	inside.Add(callers)
	stop := make(chan struct{})
	noise := make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				noise <- nil
				return
			default:
			}
			if _, err := r.launch(context.Background(), 1<<14); err != nil {
				noise <- err
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 256 * (i + 1) // each caller its own size, so its own sum
			var own []float64
			arrived := false
			tm, err := r.d.Time(func() error {
				s, err := r.launch(context.Background(), n)
				arrived = true
				inside.Done()
				if err != nil {
					return err
				}
				own = append(own, s)
				inside.Wait()
				s, err = r.launch(context.Background(), n)
				own = append(own, s)
				return err
			}, 0, 1)
			if !arrived {
				inside.Done() // Time failed before f ran: do not hold the others
			}
			if err != nil {
				t.Errorf("caller %d: %v", i, err)
				return
			}
			sameMs(t, "concurrent caller", tm, own...)
		}()
	}
	wg.Wait()
	close(stop)
	if err := <-noise; err != nil {
		t.Fatal(err)
	}
	// No Time call is left behind.
	if n := r.d.be.(*simBackend).timers.Load(); n != 0 {
		t.Errorf("%d Time calls still registered", n)
	}
}

// TestTimePanicLeavesTimeUsable: a panic in Time's function reaches Time's
// caller, and the next Time call works (issue 31, item 5: it used to say
// "Time calls do not nest" for ever after).
func TestTimePanicLeavesTimeUsable(t *testing.T) {
	r := newTimeRig(t)
	for _, once := range []bool{false, true} {
		got := func() (p any) {
			defer func() { p = recover() }()
			f := func() error {
				if _, err := r.launch(context.Background(), 256); err != nil {
					return err
				}
				panic("boom")
			}
			if once {
				_, _ = r.d.TimeOnce(f)
			} else {
				_, _ = r.d.Time(f, 0, 1)
			}
			return nil
		}()
		if got != "boom" {
			t.Fatalf("once=%v: recovered %v, want the function's panic", once, got)
		}
		var s float64
		tm, err := r.d.Time(func() error { var err error; s, err = r.launch(context.Background(), 256); return err }, 0, 1)
		if err != nil {
			t.Fatalf("once=%v: Time after a panic: %v", once, err)
		}
		sameMs(t, "after a panic", tm, s)
	}
}

// TestTimeContextCountsItsGoroutines: launches made with TimeContext's
// context count from any goroutine; launches without it, from other
// goroutines, do not.
func TestTimeContextCountsItsGoroutines(t *testing.T) {
	r := newTimeRig(t)
	var mu sync.Mutex
	var own []float64
	tm, err := r.d.TimeContext(context.Background(), func(ctx context.Context) error {
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for i := range 4 {
			wg.Add(2)
			go func() { // with the context: counted
				defer wg.Done()
				s, err := r.launch(ctx, 256*(i+1))
				mu.Lock()
				own = append(own, s)
				mu.Unlock()
				errs <- err
			}()
			go func() { // without it: not counted
				defer wg.Done()
				_, err := r.launch(context.Background(), 1<<14)
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				return err
			}
		}
		s, err := r.launch(context.Background(), 512) // Time's own goroutine: counted
		own = append(own, s)
		return err
	}, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(own) != 5 {
		t.Fatalf("%d counted launches, want 5", len(own))
	}
	sameMs(t, "TimeContext", tm, own...)
}

func TestTimeErrors(t *testing.T) {
	r := newTimeRig(t)
	launch := func() error { _, err := r.launch(context.Background(), 256); return err }

	// Only other goroutines launch: nothing to count, and the error says why.
	_, err := r.d.Time(func() error {
		done := make(chan error)
		go func() { done <- launch() }()
		return <-done
	}, 0, 1)
	if err == nil || !strings.Contains(err.Error(), "no kernel") || !strings.Contains(err.Error(), "TimeContext") {
		t.Errorf("Time whose launches are all on another goroutine: %v, want a no-kernel error naming TimeContext", err)
	}

	// Nesting through TimeContext's context on another goroutine.
	_, err = r.d.TimeContext(context.Background(), func(ctx context.Context) error {
		done := make(chan error)
		go func() {
			_, err := r.d.TimeContext(ctx, func(context.Context) error { return launch() }, 0, 1)
			done <- err
		}()
		if err := <-done; err == nil || !strings.Contains(err.Error(), "do not nest") {
			t.Errorf("TimeContext nested through the context: %v, want a nesting error", err)
		}
		return launch()
	}, 0, 1)
	if err != nil {
		t.Fatal(err)
	}

	// A context already done: f does not run.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	if _, err := r.d.TimeContext(ctx, func(context.Context) error { ran = true; return nil }, 0, 1); !errors.Is(err, context.Canceled) || ran {
		t.Errorf("TimeContext with a cancelled context: %v (ran %v), want context.Canceled and f not run", err, ran)
	}
	if _, err := r.d.TimeContext(context.Background(), nil, 0, 1); err == nil {
		t.Error("TimeContext(nil function): no error")
	}

	// A Time call's context is worth nothing once it returned.
	var stale context.Context
	if _, err := r.d.TimeContext(context.Background(), func(ctx context.Context) error { stale = ctx; return launch() }, 0, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := r.d.TimeContext(stale, func(context.Context) error { return launch() }, 0, 1); err != nil {
		t.Errorf("TimeContext under a finished call's context: %v", err)
	}
}

func TestGoid(t *testing.T) {
	a := goid()
	if a == 0 {
		t.Fatal("goid() = 0: runtime.Stack's header did not parse")
	}
	if b := goid(); b != a {
		t.Fatalf("goid() = %d then %d on one goroutine", a, b)
	}
	other := make(chan uint64)
	go func() { other <- goid() }()
	if b := <-other; b == a || b == 0 {
		t.Fatalf("goid() on another goroutine = %d, this one %d", b, a)
	}
}

// BenchmarkGoid is what a launch pays while a Time call is in progress.
func BenchmarkGoid(b *testing.B) {
	for b.Loop() {
		goid()
	}
}

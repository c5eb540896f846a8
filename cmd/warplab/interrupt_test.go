package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/testenv"
	"github.com/warplab/warplab/lab"
	"github.com/warplab/warplab/lessons/all"
	"github.com/warplab/warplab/lessons/lesson"
)

// stopBound is how long a lesson may take to return once ctx is cancelled
// (Ctrl-C). It is a correctness bound, not a speed measurement: before
// issue 31, tiling's CPU reference at N = 4096 took 683 s to notice and cg
// up to 36 s (a stage ran to its end); each check now happens at least
// every fraction of a second, so 2 s leaves room for a slow, busy machine.
const stopBound = 2 * time.Second

// TestMain lets the interrupt test run this binary as the warplab command
// (WARPLAB_TEST_MAIN=1), so that a real SIGINT reaches the real main.
func TestMain(m *testing.M) {
	if os.Getenv("WARPLAB_TEST_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}

// Ctrl-C stops every lesson promptly wherever it is: in a CPU reference,
// in a CPU solve, inside a simulator launch, between a stage's operations.
// Each case cancels ctx a little after a given stage starts (the lesson's
// Progress) at a size that would run for minutes, and bounds the time from
// the cancel to Run's return, which must be an error wrapping
// context.Canceled and no result.
func TestLessonInterruptBounded(t *testing.T) {
	dev := testenv.Must(gpuext.Open("sim:t4"))(t)
	defer dev.Close()
	for _, c := range []struct {
		name, lesson string
		args         []string
		at           string        // cancel after the stage that starts with this begins
		after        time.Duration // ... and this long
	}{
		// The inputs of the 4096² product (a fraction of a second), then
		// its CPU reference: 11 minutes unchecked.
		{"tiling inputs", "tiling", []string{"--n", "4096", "--no-sweep", "--no-demos"}, "matmul", 50 * time.Millisecond},
		{"tiling reference", "tiling", []string{"--n", "4096", "--no-sweep", "--no-demos"}, "matmul", 1500 * time.Millisecond},
		// At 512 the reference takes about a second, then the naive
		// product runs on the simulator: cancelled in one or the other.
		{"tiling launch", "tiling", []string{"--n", "512", "--no-sweep", "--no-demos"}, "matmul", 2 * time.Second},
		// Stage 0, the CPU solve, as the reference of 64³.
		{"cg stage 0", "cg", []string{"--grid", "64"}, "stage 0", 100 * time.Millisecond},
		// Device stages on the simulator: host loop, pipelined, graphs.
		{"cg stage 4", "cg", []string{"--grid", "40", "--stage", "4"}, "stage 4", 300 * time.Millisecond},
		{"cg stage 7", "cg", []string{"--grid", "40", "--stage", "7"}, "stage 7", 300 * time.Millisecond},
		{"cg stage 9", "cg", []string{"--grid", "40", "--stage", "9"}, "stage 9", 300 * time.Millisecond},
		{"spmv", "spmv", nil, "", 300 * time.Millisecond},
		{"libs", "libs", nil, "", 300 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, _ := all.ByName(c.lesson)
			fs := flag.NewFlagSet(d.Name, flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			l := d.Flags(fs, lab.Options{})
			if err := fs.Parse(c.args); err != nil {
				t.Fatal(err)
			}
			if err := l.Validate(); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cancelledAt := make(chan time.Time, 1)
			var once sync.Once
			p := lesson.Progress{Stage: func(stage string, _, _ int) {
				if strings.HasPrefix(stage, c.at) {
					once.Do(func() {
						time.AfterFunc(c.after, func() {
							cancelledAt <- time.Now()
							cancel()
						})
					})
				}
			}}
			type ret struct {
				res lesson.Result
				err error
				at  time.Time
			}
			done := make(chan ret, 1)
			go func() {
				res, err := l.Run(ctx, dev, p)
				done <- ret{res, err, time.Now()}
			}()
			var r ret
			select {
			case r = <-done:
			case <-time.After(60 * time.Second):
				cancel()
				t.Fatalf("%s %v: still running 60 s after it started (cancelled: %v)", c.lesson, c.args, ctx.Err() != nil)
			}
			var at time.Time
			select {
			case at = <-cancelledAt:
			default:
				t.Fatalf("%s %v: ran to its end (error %v) before the cancel; the case must be bigger", c.lesson, c.args, r.err)
			}
			if !errors.Is(r.err, context.Canceled) || r.res != nil {
				t.Errorf("result %v, error %v; want context.Canceled and no result", r.res, r.err)
			}
			if took := r.at.Sub(at); took > stopBound {
				t.Errorf("returned %v after the cancel; want at most %v", took.Round(time.Millisecond), stopBound)
			} else {
				t.Logf("returned %v after the cancel: %v", took.Round(time.Millisecond), r.err)
			}
		})
	}
}

// The command itself, sent SIGINT (Ctrl-C) while tiling checks a 4096²
// product on the CPU and while cg runs: it exits 1 within the bound,
// saying it was interrupted, with nothing on stdout.
func TestInterruptSIGINT(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to send on Windows")
	}
	for _, args := range [][]string{
		{"run", "tiling", "--backend", "sim", "--n", "4096"},
		{"run", "cg", "--backend", "sim", "--grid", "64"},
	} {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "WARPLAB_TEST_MAIN=1")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		// Long enough for the command to open the device and install its
		// handler (milliseconds), short enough to be inside the run.
		time.Sleep(1500 * time.Millisecond)
		sent := time.Now()
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		select {
		case <-exited:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			<-exited
			t.Fatalf("%v: still running 60 s after SIGINT", args)
		}
		took := time.Since(sent)
		code := cmd.ProcessState.ExitCode()
		if code != exitFail || !strings.Contains(stderr.String(), "interrupted") || took > stopBound+time.Second {
			t.Errorf("%v: exit %d %v after SIGINT, stderr %q; want exit 1 within %v, saying interrupted", args, code, took.Round(time.Millisecond), stderr.String(), stopBound+time.Second)
		}
		if stdout.Len() > 0 {
			t.Errorf("%v: stdout %q after an interrupt", args, stdout.String())
		}
	}
}

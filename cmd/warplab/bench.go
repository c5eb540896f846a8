package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/launchbench"
)

// runBench implements `warplab bench launch`: the host cost of one kernel
// launch through gpuext, to set beside a C launch loop on the same GPU.
func runBench(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "launch" {
		fmt.Fprintln(stderr, "usage: warplab bench launch [--backend gpu|sim] [--n N] [--json]")
		return exitUsage
	}
	fs := flag.NewFlagSet("warplab bench launch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	backend := fs.String("backend", "auto", "where to launch: auto, sim or gpu")
	n := fs.Int("n", 10000, "launches per measurement")
	asJSON := fs.Bool("json", false, "print JSON instead of text")
	if err := fs.Parse(args[1:]); err != nil {
		return exitUsage
	}
	if *n < 1 {
		fmt.Fprintf(stderr, "warplab bench launch: --n %d: need at least 1\n", *n)
		return exitUsage
	}
	dev, err := openDevice(*backend, "")
	if err != nil {
		return fail(stderr, "warplab bench launch", deviceError(err))
	}
	defer dev.Close()
	r, err := launchbench.Measure(dev, *n)
	if err != nil {
		return fail(stderr, "warplab bench launch", err)
	}
	if *asJSON {
		out := struct {
			Device string `json:"device"`
			launchbench.Result
		}{dev.Name(), r}
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintln(stdout, string(b))
		return exitOK
	}
	fmt.Fprintf(stdout, "launch overhead on %s, %d launches of an empty kernel (host clock, measured)\n", dev.Name(), r.Launches)
	fmt.Fprintf(stdout, "  back to back, one sync at the end: %8.2f us per launch\n", r.AsyncMicros)
	fmt.Fprintf(stdout, "  each launch followed by a sync:    %8.2f us per launch\n", r.RoundTripMicros)
	fmt.Fprintf(stdout, "  six arguments (five buffers, a count), back to back: %8.2f us per launch\n", r.ArgsAsyncMicros)
	fmt.Fprintf(stdout, "  the same over %d blocks of 256 threads, back to back: %8.2f us per launch\n", launchbench.WideBlocks, r.WideAsyncMicros)
	fmt.Fprintf(stdout, "  six scalar arguments, back to back: %8.2f us per launch\n", r.ScalarsAsyncMicros)
	if r.Repeats > 0 {
		fmt.Fprintf(stdout, "lessons' protocol (%d warm-ups, CUDA events around %d runs), median of %d timings (measured)\n",
			gpuext.DefaultWarmups, gpuext.DefaultRuns, r.Repeats)
		fmt.Fprintf(stdout, "  empty kernel, one block:           %8.2f us per call\n", r.TimedEmptyMicros)
		fmt.Fprintf(stdout, "  six arguments, one block:          %8.2f us per call\n", r.TimedArgsMicros)
		fmt.Fprintf(stdout, "  six arguments, %d blocks:        %8.2f us per call\n", launchbench.WideBlocks, r.TimedWideMicros)
		fmt.Fprintf(stdout, "  six scalar arguments, one block:   %8.2f us per call\n", r.TimedScalarsMicros)
	}
	if dev.Kind() == "sim" {
		fmt.Fprintln(stdout, "  (on the simulator these are the simulator's own costs, not a GPU's)")
	}
	return exitOK
}

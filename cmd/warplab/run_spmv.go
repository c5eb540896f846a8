package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/warplab/warplab/lessons/spmv"
)

// spmvSummary is the lesson's one line, in `warplab help` and its usage.
const spmvSummary = `Day 37 — SpMV two ways: thread per row vs warp per row on two matrices with the same nonzeros`

// spmvCommand is `warplab run spmv`.
var spmvCommand = lessonCommand{summary: spmvSummary, run: runSpMV}

// spmvFlags are the flags of `warplab run spmv`.
type spmvFlags struct {
	backend, model, matrix, jsonPath, svgPath string
	rows, probeBlocks, unroll                 int
}

func parseSpMVFlags(args []string, stderr io.Writer) (spmvFlags, error) {
	var f spmvFlags
	fs := flag.NewFlagSet("warplab run spmv", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.backend, "backend", "auto", "where kernels run: auto, sim or gpu")
	fs.StringVar(&f.model, "model", "", "the GPU the simulator models: t4, a100, h100 or h200 (default h200)")
	fs.IntVar(&f.rows, "rows", 0, "rows of the seed's two matrices, a multiple of 32, at least 448 (default 524288, the seed's)")
	fs.StringVar(&f.matrix, "matrix", "", "a Matrix Market file to run the same kernels on instead of the seed's pair")
	fs.IntVar(&f.probeBlocks, "probe-blocks", 0, "the probe's grid (default 8 blocks per SM of the device; the seed's is 320)")
	fs.IntVar(&f.unroll, "unroll", 4, "4: the kernels as nvcc unrolls them; 1: their #pragma unroll 1 variants")
	fs.StringVar(&f.jsonPath, "json", "", "write the result as JSON to this file")
	fs.StringVar(&f.svgPath, "svg", "", "draw the lesson's figure to this file (.svg or .png)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: warplab run spmv [flags]\n\n%s\n\nflags:\n", spmvSummary)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return f, err
		}
		return f, usageErrorf("%v", err)
	}
	switch {
	case fs.NArg() > 0:
		return f, usageErrorf("unexpected argument %q (flags start with --)", fs.Arg(0))
	case f.rows != 0 && f.matrix != "":
		return f, usageErrorf("--rows sizes the seed's matrices and --matrix replaces them; give one")
	case f.rows < 0:
		return f, usageErrorf("--rows %d: want a positive multiple of 32", f.rows)
	case f.probeBlocks < 0:
		return f, usageErrorf("--probe-blocks %d: want a positive number of blocks", f.probeBlocks)
	case f.unroll != 1 && f.unroll != 4:
		return f, usageErrorf("--unroll %d: want 1 or 4", f.unroll)
	}
	return f, nil
}

// runSpMV is `warplab run spmv`: the prediction first (before any kernel
// runs, as the seed prints it), then Part 2 and the closing statement on
// stdout, failed checks on stderr.
func runSpMV(args []string, stdout, stderr io.Writer) int {
	const cmd = "warplab run spmv"
	f, err := parseSpMVFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return fail(stderr, cmd, err)
	}
	opts := spmv.Options{Rows: f.rows, Matrix: f.matrix, ProbeBlocks: f.probeBlocks, Unroll: f.unroll}
	if err := opts.Validate(); err != nil {
		return fail(stderr, cmd, usageErrorf("%v", err))
	}
	if f.matrix != "" {
		if _, err := os.Stat(f.matrix); err != nil {
			return fail(stderr, cmd, fmt.Errorf("--matrix: %w", errors.Unwrap(err)))
		}
	}
	// Output folders are checked now, not after a run of several seconds.
	for flagName, p := range map[string]string{"--json": f.jsonPath, "--svg": f.svgPath} {
		if p == "" {
			continue
		}
		if st, err := os.Stat(filepath.Dir(p)); err != nil || !st.IsDir() {
			return fail(stderr, cmd, fmt.Errorf("%s %s: folder %s does not exist", flagName, p, filepath.Dir(p)))
		}
	}
	dev, err := openDevice(f.backend, f.model)
	if err != nil {
		if errors.Is(err, errUsage) {
			return fail(stderr, cmd, err)
		}
		return fail(stderr, cmd, deviceError(err))
	}
	defer dev.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	update, clear := progressLine(stderr)
	var printErr error
	opts.Progress = update
	opts.Predicted = func(r *spmv.Result) {
		clear()
		printErr = r.WritePrediction(stdout)
	}
	res, err := spmv.Run(ctx, dev, opts)
	clear()
	if err != nil {
		return fail(stderr, cmd, err)
	}
	if printErr == nil {
		printErr = res.WriteTimings(stdout)
	}
	if printErr != nil {
		return fail(stderr, cmd, printErr)
	}
	status := exitOK
	if !res.OK() {
		res.WriteFailures(stderr)
		status = exitFail
	}
	if f.jsonPath != "" {
		if err := writeFileAtomic(f.jsonPath, res.WriteJSON); err != nil {
			return fail(stderr, cmd, fmt.Errorf("--json: %w", err))
		}
	}
	if f.svgPath != "" {
		if err := writeSpMVFigure(f.svgPath, res); err != nil {
			return fail(stderr, cmd, fmt.Errorf("--svg: %w", err))
		}
	}
	return status
}

package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lab"
)

// A selftestRow is one kernel on one input: did it agree with the CPU
// reference, and (on a GPU) with the simulator running the GPU's PTX.
type selftestRow struct {
	lesson, input, kernel string
	reference             string // "ok" or what was wrong
	ptx                   string // GPU vs the simulator running the GPU's PTX: "ok (same bits)", what differed, or "-"
}

// selftestDevs are the devices one self-test runs on. On a GPU, ptx is the
// simulator running every kernel from the PTX the GPU loaded
// (Options.PTXFrom); on the simulator it is nil, and the lesson's kernels run
// from their embedded PTX as they always do.
type selftestDevs struct {
	dev, ptx *gpuext.Device
}

// A selftest checks every kernel of one lesson on devs.dev and, on a GPU,
// compares its outputs with the simulator's from the same PTX. Its lines
// say which code each side ran.
type selftest func(ctx context.Context, devs selftestDevs) (rows []selftestRow, code []string, err error)

// selftests lists each lesson's self-test (selftest_*.go).
func selftests() map[string]selftest {
	return map[string]selftest{"cg": selftestCG, "spmv": selftestSpMV, "tiling": selftestTiling}
}

// runSelftest is `warplab selftest [--backend gpu|sim]`.
func runSelftest(args []string, stdout, stderr io.Writer) int {
	const cmd = "warplab selftest"
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	backend := fs.String("backend", "auto", "where kernels run: gpu, sim or auto")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		return fail(stderr, cmd, usageErrorf("unexpected argument %q", fs.Arg(0)))
	}
	dev, err := openDevice(*backend, "")
	if err != nil {
		return fail(stderr, cmd, err)
	}
	defer dev.Close()
	devs := selftestDevs{dev: dev}
	if dev.Kind() == gpuext.GPU {
		// The simulator, made to run each kernel from the PTX the GPU
		// loaded, so that a difference is the executor's, not the compiler's.
		opts := lab.FromEnv().Device
		opts.PTXFrom = dev
		if devs.ptx, err = gpuext.OpenWith("sim", opts); err != nil {
			return fail(stderr, cmd, err)
		}
		defer devs.ptx.Close()
	}

	fmt.Fprintf(stdout, "selftest on %s\n", dev.Name())
	if dev.Kind() == gpuext.GPU {
		// Which header the binary was built with and which driver runs it:
		// the GPU build must work with the cuda.h of CUDA 11.8, 12.x and 13.x.
		v := gpuext.CUDAHeaderVersion()
		fmt.Fprintf(stdout, "GPU backend compiled against cuda.h CUDA_VERSION %d (CUDA %d.%d); %s\n", v, v/1000, v%1000/10, dev.Driver())
	}
	fmt.Fprintln(stdout)
	tests := selftests()
	names := make([]string, 0, len(tests))
	for n := range tests {
		names = append(names, n)
	}
	sort.Strings(names)
	var all []selftestRow
	for _, n := range names {
		rows, code, err := tests[n](context.Background(), devs)
		if err != nil {
			return fail(stderr, cmd, fmt.Errorf("%s: %w", n, err))
		}
		for _, c := range code {
			fmt.Fprintln(stdout, c)
		}
		all = append(all, rows...)
	}
	if len(all) > 0 && devs.ptx != nil {
		fmt.Fprintln(stdout)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "lesson\tinput\tkernel\tvs CPU reference\tGPU vs its PTX (simulator)")
	failed := 0
	for _, r := range all {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.lesson, r.input, r.kernel, r.reference, r.ptx)
		if r.reference != "ok" || !agrees(r.ptx) {
			failed++
		}
	}
	tw.Flush()
	if failed > 0 {
		fmt.Fprintf(stderr, "%d kernel check(s) failed\n", failed)
		return exitFail
	}
	fmt.Fprintln(stdout, "\nall kernels agree")
	return exitOK
}

// agrees reads a comparison cell: "-" (not compared) or "ok ..." pass.
func agrees(cell string) bool { return cell == "-" || strings.HasPrefix(cell, "ok") }

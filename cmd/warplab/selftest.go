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
)

// A selftestRow is one kernel on one input: did it agree with the CPU
// reference, and (on a GPU) with its Go mirror on the simulator.
type selftestRow struct {
	lesson, input, kernel string
	reference             string // "ok" or what was wrong
	mirror                string // "ok", what differed, or "-" when not compared
}

// A selftest checks every kernel of one lesson on dev; on a GPU it also
// runs the mirrors on simDev (nil on the simulator) and compares outputs.
type selftest func(ctx context.Context, dev, simDev *gpuext.Device) ([]selftestRow, error)

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
	var simDev *gpuext.Device
	if dev.Kind() == "gpu" {
		if simDev, err = gpuext.Open("sim"); err != nil {
			return fail(stderr, cmd, err)
		}
		defer simDev.Close()
	}

	fmt.Fprintf(stdout, "selftest on %s\n", dev.Name())
	if dev.Kind() == "gpu" {
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
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "lesson\tinput\tkernel\tvs CPU reference\tvs Go mirror (simulator)")
	failed := 0
	for _, n := range names {
		rows, err := tests[n](context.Background(), dev, simDev)
		if err != nil {
			tw.Flush()
			return fail(stderr, cmd, fmt.Errorf("%s: %w", n, err))
		}
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.lesson, r.input, r.kernel, r.reference, r.mirror)
			if r.reference != "ok" || (!strings.HasPrefix(r.mirror, "ok") && r.mirror != "-") {
				failed++
			}
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

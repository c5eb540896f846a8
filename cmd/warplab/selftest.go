package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lab"
	"github.com/warplab/warplab/lessons/lesson"
)

// selfTesters are the lessons that check their own kernels
// (Lesson.SelfTest), sorted by name: the self-test is generic over the
// lesson list, with no file per lesson.
func selfTesters() []*lesson.Lesson {
	var out []*lesson.Lesson
	for _, l := range lessons() {
		if l.SelfTest != nil {
			out = append(out, l)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
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
	devs := lesson.Devices{Dev: dev}
	if dev.Kind() == gpuext.GPU {
		// The simulator, made to run each kernel from the PTX the GPU
		// loaded, so that a difference is the executor's, not the compiler's.
		opts := lab.FromEnv().Device
		opts.PTXFrom = dev
		if devs.PTX, err = gpuext.OpenWith("sim", opts); err != nil {
			return fail(stderr, cmd, err)
		}
		defer devs.PTX.Close()
	}

	fmt.Fprintf(stdout, "selftest on %s\n", dev.Name())
	if dev.Kind() == gpuext.GPU {
		// Which header the binary was built with and which driver runs it:
		// the GPU build must work with the cuda.h of CUDA 11.8, 12.x and 13.x.
		v := gpuext.CUDAHeaderVersion()
		fmt.Fprintf(stdout, "GPU backend compiled against cuda.h CUDA_VERSION %d (CUDA %d.%d); %s\n", v, v/1000, v%1000/10, dev.Driver())
	}
	fmt.Fprintln(stdout)
	var all []lesson.Check
	for _, l := range selfTesters() {
		rows, code, err := l.SelfTest(context.Background(), devs)
		if err != nil {
			return fail(stderr, cmd, fmt.Errorf("%s: %w", l.Name, err))
		}
		for _, c := range code {
			fmt.Fprintln(stdout, c)
		}
		all = append(all, rows...)
	}
	if len(all) > 0 && devs.PTX != nil {
		fmt.Fprintln(stdout)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "lesson\tinput\tkernel\tvs CPU reference\tGPU vs its PTX (simulator)")
	failed := 0
	for _, r := range all {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Lesson, r.Input, r.Kernel, r.Reference, r.PTX)
		if r.Failed() {
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

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
	n := fs.Int("n", launchbench.DefaultLaunches, "launches per measurement")
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
	if err := r.WriteText(stdout, dev.Name(), dev.Kind() == gpuext.Sim); err != nil {
		return fail(stderr, "warplab bench launch", err)
	}
	return exitOK
}

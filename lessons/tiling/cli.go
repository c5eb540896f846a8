package tiling

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/warplab/warplab/gpuext"
)

// Command is `warplab run tiling`: it parses args (the words after
// "tiling"), runs the lesson, prints its tables to stdout and returns the
// exit status: 0 when every check passed, 1 when one failed, 2 for bad
// usage.
//
//	warplab run tiling [--backend auto|sim|gpu] [--model t4|a100|h100|h200]
//	                   [--n N] [--tile T] [--coarse C] [--sweep-n N] [--json FILE]
func Command(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("warplab run tiling", flag.ContinueOnError)
	fs.SetOutput(stderr)
	backend := fs.String("backend", "auto", "where kernels run: auto, sim or gpu (gpu:N for GPU N)")
	model := fs.String("model", "h200", "simulated GPU for --backend sim: t4, a100, h100, h200")
	var o Options
	fs.IntVar(&o.N, "n", 256, "matrix size N (N x N)")
	fs.IntVar(&o.Tile, "tile", 16, "tile width TILE: 1, 2, 4, 8, 16 or 32")
	fs.IntVar(&o.Coarse, "coarse", 4, "coarsening factor COARSE: 1, 2, 4 or 8 (TILE*COARSE must divide N)")
	fs.IntVar(&o.SweepN, "sweep-n", 0, "matrix size of the TILE sweep of load counts (0: min(N, 128))")
	fs.IntVar(&o.TransposeTile, "transpose-tile", 32, "block width of the transposes (must divide N)")
	noSweep := fs.Bool("no-sweep", false, "skip the TILE sweep")
	noDemos := fs.Bool("no-demos", false, "skip the race and out-of-bounds demonstrations")
	jsonFile := fs.String("json", "", "also write the result as JSON to this file")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: warplab run tiling [flags]\n\nLecture 4: tiled and coarsened matmul, transposes and bank conflicts, dense->CSR and SpMV.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "warplab run tiling: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return 2
	}
	o.NoSweep, o.NoDemos = *noSweep, *noDemos
	// Options treat 0 as "default"; on the command line 0 is a mistake.
	for _, f := range []struct {
		name string
		v    int
	}{{"--n", o.N}, {"--tile", o.Tile}, {"--coarse", o.Coarse}, {"--transpose-tile", o.TransposeTile}} {
		if f.v <= 0 {
			fmt.Fprintf(stderr, "warplab run tiling: %s %d: must be positive\n", f.name, f.v)
			return 2
		}
	}
	if _, err := o.withDefaults(); err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	spec := *backend
	switch {
	case spec == "sim":
		spec = "sim:" + *model
	case spec == "auto", spec == "gpu", strings.HasPrefix(spec, "gpu:"):
	default:
		fmt.Fprintf(stderr, "warplab run tiling: --backend %q: want auto, sim or gpu\n", spec)
		return 2
	}
	dev, err := gpuext.Open(spec)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer dev.Close()
	o.Progress = func(stage string) { fmt.Fprintf(stderr, "tiling: %s...\n", stage) }
	res, err := Run(context.Background(), dev, o)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if err := res.WriteText(stdout); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if *jsonFile != "" {
		f, err := os.Create(*jsonFile)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		err = res.WriteJSON(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
	}
	if len(res.Failures) > 0 {
		return 1
	}
	return 0
}

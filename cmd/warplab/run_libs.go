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
	"strconv"
	"strings"

	"github.com/warplab/warplab/lessons/libs"
)

// libsSummary is the lesson's one line, in `warplab help` and its usage.
const libsSummary = `How libraries win — CSR-vector, binned and merge-path SpMV, a chooser from row statistics, against cuSPARSE`

// libsCommand is `warplab run libs`.
var libsCommand = lessonCommand{summary: libsSummary, run: runLibs}

type libsFlags struct {
	backend, model, rows, matrix, methods, dump, jsonPath, peer string
	warmups, runs, copyMiB                                      int
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func parseLibsFlags(args []string, stderr io.Writer) (libsFlags, libs.Options, error) {
	var f libsFlags
	fs := flag.NewFlagSet("warplab run libs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.backend, "backend", "auto", "where kernels run: auto, sim or gpu")
	fs.StringVar(&f.model, "model", "", "the GPU the simulator models: t4, a100, h100 or h200 (default h200)")
	fs.StringVar(&f.rows, "rows", "131072", `sizes of the seed pair (even, skewed), comma-separated multiples of 32 from 448; "none" for no seed matrices (default 2^17, the notebook's)`)
	fs.StringVar(&f.matrix, "matrix", "", "Matrix Market files to run after the seed pair, comma-separated")
	fs.StringVar(&f.methods, "methods", "", "methods to run, comma-separated (default all; the chooser's pick always runs)")
	fs.IntVar(&f.warmups, "warmups", 3, "GPU warm-up runs per method")
	fs.IntVar(&f.runs, "runs", 10, "GPU timed runs per method")
	fs.IntVar(&f.copyMiB, "copy-mib", 0, "size of the copy reference in MiB (default 256 on a GPU; on the simulator, as many bytes read plus written as the largest seed SpMV's minimum; -1 skips it)")
	fs.StringVar(&f.dump, "dump", "", "write each matrix to DIR/<matrix>.csr for scripts/evidence/libs/cusparse_peer.cu")
	fs.StringVar(&f.jsonPath, "json", "", "write the result as JSON to this file")
	fs.StringVar(&f.peer, "peer", "", "the peer program's JSON lines: print ours against cuSPARSE")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: warplab run libs [flags]\n\n%s\n\nflags:\n", libsSummary)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return f, libs.Options{}, err
		}
		return f, libs.Options{}, usageErrorf("%v", err)
	}
	if fs.NArg() > 0 {
		return f, libs.Options{}, usageErrorf("unexpected argument %q (flags start with --)", fs.Arg(0))
	}
	o := libs.Options{SeedRows: []int{}, Matrices: splitList(f.matrix), Methods: splitList(f.methods),
		Warmups: f.warmups, Runs: f.runs, DumpDir: f.dump}
	if f.rows != "none" {
		for _, s := range splitList(f.rows) {
			n, err := strconv.Atoi(s)
			if err != nil {
				return f, o, usageErrorf("--rows %q: %q is not a number", f.rows, s)
			}
			o.SeedRows = append(o.SeedRows, n)
		}
	}
	if len(o.Methods) == 0 {
		o.Methods = nil
	}
	switch {
	case f.copyMiB < -1:
		return f, o, usageErrorf("--copy-mib %d: want -1, 0 or a size", f.copyMiB)
	case f.copyMiB == -1:
		o.CopyBytes = -1
	default:
		o.CopyBytes = int64(f.copyMiB) << 20
	}
	if f.warmups < 0 || f.runs < 1 {
		return f, o, usageErrorf("--warmups %d --runs %d: want at least 0 and 1", f.warmups, f.runs)
	}
	if err := o.Validate(); err != nil {
		return f, o, usageErrorf("%v", err)
	}
	return f, o, nil
}

// runLibs is `warplab run libs`: tables on stdout, failed checks on stderr.
func runLibs(args []string, stdout, stderr io.Writer) int {
	const cmd = "warplab run libs"
	f, opts, err := parseLibsFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return fail(stderr, cmd, err)
	}
	for _, p := range opts.Matrices {
		if _, err := os.Stat(p); err != nil {
			return fail(stderr, cmd, fmt.Errorf("--matrix %s: %w", p, errors.Unwrap(err)))
		}
	}
	for flagName, dir := range map[string]string{"--json": filepath.Dir(f.jsonPath), "--dump": f.dump} {
		if dir == "" || (flagName == "--json" && f.jsonPath == "") {
			continue
		}
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return fail(stderr, cmd, fmt.Errorf("%s: folder %s does not exist", flagName, dir))
		}
	}
	var peer []libs.PeerRun
	if f.peer != "" {
		pf, err := os.Open(f.peer)
		if err != nil {
			return fail(stderr, cmd, fmt.Errorf("--peer: %w", err))
		}
		peer, err = libs.ReadPeer(pf)
		pf.Close()
		if err != nil {
			return fail(stderr, cmd, fmt.Errorf("--peer %s: %w", f.peer, err))
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
	opts.Progress = update
	res, err := libs.Run(ctx, dev, opts)
	clear()
	if err != nil {
		return fail(stderr, cmd, err)
	}
	if err := res.WriteText(stdout); err != nil {
		return fail(stderr, cmd, err)
	}
	if peer != nil {
		fmt.Fprintln(stdout)
		fmt.Fprint(stdout, libs.Text(libs.CompareTable(res, peer)))
	}
	status := exitOK
	if !res.OK() {
		for _, s := range res.Failures {
			fmt.Fprintln(stderr, "FAIL:", s)
		}
		status = exitFail
	}
	if f.jsonPath != "" {
		if err := writeFileAtomic(f.jsonPath, res.WriteJSON); err != nil {
			return fail(stderr, cmd, fmt.Errorf("--json: %w", err))
		}
	}
	return status
}

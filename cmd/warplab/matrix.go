package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/warplab/warplab/sparse/suitesparse"
)

// runMatrix is `warplab matrix get GROUP/NAME [--cache DIR]`: fetch one
// matrix of the SuiteSparse Collection into the cache (once) and print the
// path of its .mtx file, for `warplab run spmv --matrix`.
func runMatrix(args []string, stdout, stderr io.Writer) int {
	const cmd = "warplab matrix"
	if len(args) == 0 || args[0] != "get" {
		fmt.Fprintln(stderr, "usage: warplab matrix get GROUP/NAME [--cache DIR]")
		return exitUsage
	}
	fs := flag.NewFlagSet("warplab matrix get", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cache := fs.String("cache", "", "cache folder (default: the user cache folder's warplab/matrices)")
	base := fs.String("url", suitesparse.DefaultBaseURL, "the Collection's address")
	// Accept the name before or after the flags.
	rest := args[1:]
	var name string
	if len(rest) > 0 && len(rest[0]) > 0 && rest[0][0] != '-' {
		name, rest = rest[0], rest[1:]
	}
	if err := fs.Parse(rest); err != nil {
		if err == flag.ErrHelp {
			return exitOK
		}
		return exitUsage
	}
	if name == "" && fs.NArg() > 0 {
		name = fs.Arg(0)
	}
	if name == "" || fs.NArg() > 1 || (fs.NArg() == 1 && fs.Arg(0) != name) {
		fmt.Fprintln(stderr, "usage: warplab matrix get GROUP/NAME [--cache DIR]")
		return exitUsage
	}
	if err := suitesparse.ValidName(name); err != nil {
		return fail(stderr, cmd, usageErrorf("%v", err))
	}
	dir := *cache
	if dir == "" {
		d, err := suitesparse.DefaultCacheDir()
		if err != nil {
			return fail(stderr, cmd, err)
		}
		dir = d
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(stderr, cmd, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	client := &http.Client{Timeout: 30 * time.Minute}
	path, err := suitesparse.Get(ctx, client, *base, dir, name)
	if err != nil {
		return fail(stderr, cmd, err)
	}
	fmt.Fprintln(stdout, path)
	return exitOK
}

// Command nbsite is the main job behind scripts/site.sh: it executes every
// notebook headless with the GoNB kernel, checks each one (cell errors, plot
// cells without an image, numbers the lesson promises) and renders the lesson
// pages and an index into the site directory.
//
// Usage:
//
//	go run ./internal/nbtest/cmd/nbsite [-notebooks notebooks] [-out site] [-timeout 0] [notebook.ipynb ...]
//
// It exits non-zero when any notebook fails its checks; the pages are still
// written, so the failure can be looked at.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/warplab/warplab/internal/nbtest"
)

func main() {
	dir := flag.String("notebooks", "notebooks", "directory of the lesson notebooks (*.ipynb)")
	out := flag.String("out", "site", "directory to write the lesson pages and index.html into")
	timeout := flag.Duration("timeout", 0, "bound on each notebook, overriding its metadata (0: the notebook's own, default 10m)")
	flag.Parse()

	paths := flag.Args()
	if len(paths) == 0 {
		var err error
		if paths, err = nbtest.Notebooks(*dir); err != nil {
			fmt.Fprintln(os.Stderr, "nbsite:", err)
			os.Exit(2)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	r := &nbtest.Runner{NotebookTimeout: *timeout}
	lessons, err := r.BuildSite(ctx, paths, *out, os.Stderr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "nbsite: failed:\n%v\n", err)
		os.Exit(1)
	}
	fmt.Printf("nbsite: %d lesson pages and index.html in %s\n", len(lessons), *out)
}

// Command recorded writes the lessons' embedded copies of recorded GPU runs
// (lessons/*/recorded/) from evidence/, as internal/evidence.Copies maps
// them, so that a copy is never edited by hand:
//
//	go run ./internal/evidence/cmd/recorded          # write
//	go run ./internal/evidence/cmd/recorded -check   # report stale copies, exit 1
//
// Run it from anywhere inside the module; it finds the root by go.mod.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/warplab/warplab/internal/evidence"
)

func main() {
	check := flag.Bool("check", false, "only compare lessons/*/recorded with evidence/; exit 1 if stale")
	flag.Parse()
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "recorded:", err)
		os.Exit(2)
	}
	if *check {
		errs := append(evidence.Check(root), evidence.CheckLayout(root)...)
		for _, err := range errs {
			fmt.Fprintln(os.Stderr, "recorded:", err)
		}
		if len(errs) > 0 {
			os.Exit(1)
		}
		return
	}
	if err := evidence.Write(root); err != nil {
		fmt.Fprintln(os.Stderr, "recorded:", err)
		os.Exit(1)
	}
}

// moduleRoot is the nearest directory at or above the working directory that
// holds go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod at or above the working directory")
		}
		dir = parent
	}
}

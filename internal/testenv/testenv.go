// Package testenv finds what tests need from outside the repository: the
// SuiteSparse matrices, which the project keeps beside the checkout (in the
// shared folder) rather than in git, since they are the Collection's files
// and not ours to redistribute piecemeal.
package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// MatricesDir returns $WARPLAB_MATRICES, or the first shared/matrices folder
// found in the working directory or a directory above it; "" when there is
// none.
func MatricesDir() string {
	if d := os.Getenv("WARPLAB_MATRICES"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		cand := filepath.Join(dir, "shared", "matrices")
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			return cand
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Matrices is MatricesDir for a test: it skips the test, saying how to
// provide the matrices, when there are none.
func Matrices(t testing.TB) string {
	t.Helper()
	d := MatricesDir()
	if d == "" {
		t.Skip("SuiteSparse matrices not found: set WARPLAB_MATRICES or keep shared/matrices beside the repository")
	}
	return d
}

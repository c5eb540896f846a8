// Package ptxcheck verifies that a lesson's generated PTX still belongs to its
// CUDA C source.
//
// Lessons embed two forms of each kernel: the CUDA C that students read
// (lessons/<name>/*.cu) and the PTX that scripts/cuda/gen-ptx.sh generates
// from it with nvcc 11.8 for compute_75. The PTX is committed, because most
// machines that run warplab have no nvcc. The danger is a .cu edited without
// regenerating its .ptx: the GPU would then run code nobody reads. gen-ptx.sh
// therefore writes, as the first line of every .ptx,
//
//	// warplab: source sha256 <hex> of <file>.cu, nvcc <version>, -arch=compute_75 -lineinfo
//
// and this package checks that line against the source: the repository's
// test walks lessons/*/*.cu, and a lesson may call Check on its embedded pair.
package ptxcheck

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/warplab/warplab/gpuext"
)

// Fix is the remedy every staleness error names.
const Fix = "run scripts/cuda/gen-ptx.sh"

// Prefix starts the provenance line gen-ptx.sh writes.
const Prefix = gpuext.PTXHeaderPrefix

// Header is the provenance line of a generated PTX file (gpuext.PTXHeader,
// which reads it where a module is compiled or loaded).
type Header = gpuext.PTXHeader

// ParseHeader reads the provenance line from the first line of ptx.
func ParseHeader(ptx []byte) (Header, error) { return gpuext.ParsePTXHeader(ptx) }

// Sum is the hex sha256 of a source, as gen-ptx.sh records it.
func Sum(cu []byte) string { return gpuext.SourceSum(cu) }

// Check reports whether ptx was generated from cu, whose base file name is
// cuName (e.g. "spmv.cu"). It returns nil when the PTX's provenance line
// records cu's sha256 and name, and otherwise an error that says which file
// is stale and how to fix it. Lessons call it on their embedded pair.
func Check(cuName string, cu, ptx []byte) error {
	ptxName := strings.TrimSuffix(cuName, ".cu") + ".ptx"
	h, err := ParseHeader(ptx)
	if err != nil {
		return fmt.Errorf("%s: %v; %s", ptxName, err, Fix)
	}
	if h.Source != filepath.Base(cuName) {
		return fmt.Errorf("%s was generated from %s, not %s; %s", ptxName, h.Source, filepath.Base(cuName), Fix)
	}
	if got := Sum(cu); got != h.SHA256 {
		return fmt.Errorf("%s is stale: %s changed since its PTX was generated (sha256 %s, PTX records %s); %s",
			ptxName, cuName, got[:12], h.SHA256[:12], Fix)
	}
	return nil
}

// CheckFile checks the .ptx beside the .cu file at cuPath.
func CheckFile(cuPath string) error {
	cu, err := os.ReadFile(cuPath)
	if err != nil {
		return err
	}
	ptxPath := strings.TrimSuffix(cuPath, ".cu") + ".ptx"
	ptx, err := os.ReadFile(ptxPath)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s has no generated PTX (%s is missing); %s", cuPath, ptxPath, Fix)
	}
	if err != nil {
		return err
	}
	if err := Check(filepath.Base(cuPath), cu, ptx); err != nil {
		return fmt.Errorf("%s: %w", filepath.Dir(cuPath), err)
	}
	return nil
}

// SourceGlobs are the CUDA sources whose PTX the repository embeds,
// relative to the module root: the lessons' and the time model's sweep
// kernels (internal/sweep). scripts/cuda/gen-ptx.sh's default list is the
// same.
func SourceGlobs() []string { return []string{"lessons/*/*.cu", "internal/sweep/*.cu"} }

// CheckTree checks every source of SourceGlobs under the module root and
// returns the files it checked and one error per stale or missing PTX.
func CheckTree(root string) (checked []string, errs []error) {
	var sources []string
	for _, g := range SourceGlobs() {
		m, err := filepath.Glob(filepath.Join(root, g))
		if err != nil {
			return nil, []error{err}
		}
		sources = append(sources, m...)
	}
	for _, cu := range sources {
		checked = append(checked, cu)
		if err := CheckFile(cu); err != nil {
			errs = append(errs, err)
		}
	}
	return checked, errs
}

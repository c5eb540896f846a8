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
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Fix is the remedy every staleness error names.
const Fix = "run scripts/cuda/gen-ptx.sh"

// Prefix starts the provenance line gen-ptx.sh writes.
const Prefix = "// warplab: source sha256 "

// Header is the provenance line of a generated PTX file: which source, by
// content hash, and which compiler and target produced it.
type Header struct {
	SHA256 string // hex sha256 of the .cu file's bytes
	Source string // base name of the .cu file, e.g. "spmv.cu"
	NVCC   string // nvcc release, e.g. "11.8.89"
	Arch   string // e.g. "compute_75"
	Flags  string // further nvcc flags, e.g. "-lineinfo"; "" if none
}

// String formats h exactly as gen-ptx.sh writes it (without a newline).
func (h Header) String() string {
	s := fmt.Sprintf("%s%s of %s, nvcc %s, -arch=%s", Prefix, h.SHA256, h.Source, h.NVCC, h.Arch)
	if h.Flags != "" {
		s += " " + h.Flags
	}
	return s
}

// ParseHeader reads the provenance line from the first line of ptx.
func ParseHeader(ptx []byte) (Header, error) {
	line, _, _ := bytes.Cut(ptx, []byte("\n"))
	s := strings.TrimRight(string(line), "\r")
	rest, ok := strings.CutPrefix(s, Prefix)
	if !ok {
		return Header{}, errors.New("first line is not a warplab provenance line (" + Prefix + "...)")
	}
	// "<hex> of <file>.cu, nvcc <version>, -arch=<arch>[ <flags>]"
	sum, rest, ok1 := strings.Cut(rest, " of ")
	src, rest, ok2 := strings.Cut(rest, ", nvcc ")
	ver, arch, ok3 := strings.Cut(rest, ", -arch=")
	if !ok1 || !ok2 || !ok3 {
		return Header{}, fmt.Errorf("malformed provenance line %q", s)
	}
	if len(sum) != 2*sha256.Size {
		return Header{}, fmt.Errorf("provenance line %q: sha256 %q is not 64 hex digits", s, sum)
	}
	if _, err := hex.DecodeString(sum); err != nil {
		return Header{}, fmt.Errorf("provenance line %q: sha256 %q is not hex", s, sum)
	}
	arch, flags, _ := strings.Cut(arch, " ")
	return Header{SHA256: sum, Source: src, NVCC: ver, Arch: arch, Flags: flags}, nil
}

// Sum is the hex sha256 of a source, as gen-ptx.sh records it.
func Sum(cu []byte) string {
	s := sha256.Sum256(cu)
	return hex.EncodeToString(s[:])
}

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

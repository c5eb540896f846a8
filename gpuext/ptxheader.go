package gpuext

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// Every PTX the repository carries, and every PTX Compile caches, starts
// with the provenance line scripts/cuda/gen-ptx.sh writes:
//
//	// warplab: source sha256 <hex> of <file>.cu, nvcc <version>, -arch=compute_75 -lineinfo
//
// Compile reads it to make sure a cache entry belongs to the source it is
// asked for; internal/ptxcheck's tests read it to find PTX that is stale.

// PTXHeaderPrefix starts the provenance line gen-ptx.sh writes.
const PTXHeaderPrefix = "// warplab: source sha256 "

// PTXHeader is the provenance line of a generated PTX file: which source, by
// content hash, and which compiler and target produced it.
type PTXHeader struct {
	SHA256 string // hex sha256 of the .cu file's bytes
	Source string // base name of the .cu file, e.g. "spmv.cu"
	NVCC   string // nvcc release, e.g. "11.8.89"
	Arch   string // e.g. "compute_75"
	Flags  string // further nvcc flags, e.g. "-lineinfo"; "" if none
}

// String formats h exactly as gen-ptx.sh writes it (without a newline).
func (h PTXHeader) String() string {
	s := fmt.Sprintf("%s%s of %s, nvcc %s, -arch=%s", PTXHeaderPrefix, h.SHA256, h.Source, h.NVCC, h.Arch)
	if h.Flags != "" {
		s += " " + h.Flags
	}
	return s
}

// ParsePTXHeader reads the provenance line from the first line of ptx.
func ParsePTXHeader(ptx []byte) (PTXHeader, error) {
	line, _, _ := bytes.Cut(ptx, []byte("\n"))
	s := strings.TrimRight(string(line), "\r")
	rest, ok := strings.CutPrefix(s, PTXHeaderPrefix)
	if !ok {
		return PTXHeader{}, errors.New("first line is not a warplab provenance line (" + PTXHeaderPrefix + "...)")
	}
	// "<hex> of <file>.cu, nvcc <version>, -arch=<arch>[ <flags>]"
	sum, rest, ok1 := strings.Cut(rest, " of ")
	src, rest, ok2 := strings.Cut(rest, ", nvcc ")
	ver, arch, ok3 := strings.Cut(rest, ", -arch=")
	if !ok1 || !ok2 || !ok3 {
		return PTXHeader{}, fmt.Errorf("malformed provenance line %q", s)
	}
	if len(sum) != 2*sha256.Size {
		return PTXHeader{}, fmt.Errorf("provenance line %q: sha256 %q is not 64 hex digits", s, sum)
	}
	if _, err := hex.DecodeString(sum); err != nil {
		return PTXHeader{}, fmt.Errorf("provenance line %q: sha256 %q is not hex", s, sum)
	}
	arch, flags, _ := strings.Cut(arch, " ")
	return PTXHeader{SHA256: sum, Source: src, NVCC: ver, Arch: arch, Flags: flags}, nil
}

// SourceSum is the hex sha256 of a source, as gen-ptx.sh records it.
func SourceSum(cu []byte) string {
	s := sha256.Sum256(cu)
	return hex.EncodeToString(s[:])
}

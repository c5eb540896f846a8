// Package ptxcache is the repository's PTX cache for the CUDA C written in
// the shipped notebooks: for each kernel source a notebook compiles with
// lab.Compile, <key>.cu holds the source and <key>.ptx the PTX that
// nvcc 11.8 made of it for compute_75 (key: gpuext.PTXCacheKey) — or, for a
// cell that teaches a compile error, <key>.err holds nvcc's messages, so the
// error shows at the cell's lines where there is no nvcc too.
//
// Why it exists: lab passes it to gpuext (CompileOptions.Repo), which
// consults it before any nvcc, so the notebooks
// execute in CI and on laptops that have no nvcc, and everyone runs the
// same PTX the lessons' PTX is made with (nvcc 11.8, PTX ISA 7.8, loadable
// by every driver since R520). It is embedded, so it works from any working
// directory (GoNB builds each cell in a temporary folder) and from a test
// binary copied to a GPU machine.
//
// Regenerate entries by executing the notebook with nvcc 11.8 on PATH and
// WARPLAB_PTXCACHE_RECORD=<this folder> (README.platform.md says how);
// gpuext's TestRepoPTXCacheRegenerated recompiles every entry where nvcc
// 11.8 exists and requires it byte-identical.
package ptxcache

import "embed"

// FS holds the cache entries: <key>.cu with <key>.ptx or <key>.err.
//
//go:embed *.cu *.ptx *.err
var FS embed.FS

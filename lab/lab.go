// Package lab is the edge where a notebook, or the command line, meets
// warplab: it reads the WARPLAB_* environment once into an Options value
// and opens devices and compiles kernels with it, so that nothing below
// (gpuext, the simulator, the lessons) reads the environment, and none of
// them imports the repository's PTX cache: lab passes it down as an option.
//
// A notebook cell:
//
//	d := gpuext.Must(lab.Open("sim:t4"))
//	saxpy := gpuext.Must(lab.CompileKernel("saxpy", saxpyCU))
//
// Open and CompileKernel read the environment at each call (a notebook
// cell is its own program); a program that opens several devices reads it
// once with FromEnv and calls the Options' methods.
package lab

import (
	"fmt"
	"os"
	"strings"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/launchrec"
	"github.com/warplab/warplab/notebooks/ptxcache"
	"github.com/warplab/warplab/sparse/spmvref"
)

// Options are every WARPLAB_* switch, read once. The rest of the tree
// reads none of them: it takes these values (a lesson's command gets them
// through lesson.Lesson.Flags, a notebook cell from FromEnv).
type Options struct {
	// Device is how devices load code: WARPLAB_PTX_ONLY=1 (PTXOnly),
	// WARPLAB_NVCC (NVCC), WARPLAB_CUBIN_CACHE (CacheDir); its Compile is
	// PTX below. WARPLAB_SASS=1 (SASSWidths) times the simulator's kernels
	// as ptxas compiles them for the modeled GPU (loops' loads a pass,
	// shared access widths), where the machine has ptxas; off by default,
	// so a lesson's modeled numbers do not depend on whether it has one.
	Device gpuext.Options
	// PTX is how CUDA C becomes PTX: the repository's cache
	// (notebooks/ptxcache), WARPLAB_NVCC, WARPLAB_PTX_CACHE (the user
	// cache folder) and WARPLAB_PTXCACHE_RECORD (a folder each fresh
	// nvcc 11.8 entry is also written to: how notebooks/ptxcache is
	// regenerated).
	PTX gpuext.CompileOptions
	// Matrices is WARPLAB_MATRICES, the SuiteSparse matrices' folder ("":
	// the lessons look in their default places).
	Matrices string
	// LibsRecorded is WARPLAB_LIBS_RECORDED, a folder of recorded libs
	// runs to read instead of the repository's ("": the repository's).
	LibsRecorded string
	// HostFloor is WARPLAB_HOST_FLOOR, a folder of `warplab bench launch`
	// records (launch-go*.txt), or several, comma-separated, one a lease:
	// the simulator then models the launch floor of the host that
	// recorded them (launchrec.FloorDir; several leases: the median of
	// their floors, launchrec.FloorDirs, as for runs judged by the median
	// of their leases' times) in place of its model's, the median over
	// the H200 leases we recorded. The floor is the host's and the
	// lease's, so comparing modeled times with runs recorded beside such
	// records asks for theirs. "": the model's.
	HostFloor string
}

// FromEnv reads the environment: the one place WARPLAB_* is read for
// devices and compiles.
func FromEnv() Options {
	nvcc := os.Getenv("WARPLAB_NVCC")
	o := Options{
		PTX: gpuext.CompileOptions{
			NVCC:     nvcc,
			CacheDir: os.Getenv("WARPLAB_PTX_CACHE"),
			Repo:     ptxcache.FS,
			RepoName: "notebooks/ptxcache",
			Record:   os.Getenv("WARPLAB_PTXCACHE_RECORD"),
		},
		Matrices:     os.Getenv("WARPLAB_MATRICES"),
		LibsRecorded: os.Getenv("WARPLAB_LIBS_RECORDED"),
		HostFloor:    os.Getenv("WARPLAB_HOST_FLOOR"),
	}
	o.Device = gpuext.Options{
		PTXOnly:    os.Getenv("WARPLAB_PTX_ONLY") == "1",
		NVCC:       nvcc,
		CacheDir:   os.Getenv("WARPLAB_CUBIN_CACHE"),
		SASSWidths: os.Getenv("WARPLAB_SASS") == "1",
		Compile:    o.PTX,
	}
	return o
}

// MatricesDir is where the SuiteSparse matrices are: o.Matrices when set,
// else the nearest shared/matrices folder at or above the working
// directory (spmvref.MatricesDir); "" when there is none.
func (o Options) MatricesDir() string { return spmvref.MatricesDir(o.Matrices) }

// Open opens the device spec names (see gpuext.Open) with o.Device, and
// on the simulator the host floor of o.HostFloor's records when it is set.
func (o Options) Open(spec string) (*gpuext.Device, error) {
	if o.HostFloor != "" && o.Device.HostFloor == nil {
		f, err := launchrec.FloorDirs(strings.Split(o.HostFloor, ","), "")
		if err != nil {
			return nil, fmt.Errorf("WARPLAB_HOST_FLOOR: %w", err)
		}
		o.Device.HostFloor = &f
	}
	return gpuext.OpenWith(spec, o.Device)
}

// Compile compiles CUDA C with o.PTX (see gpuext.Compile).
func (o Options) Compile(name, src string) (*gpuext.Module, error) {
	m, _, err := o.PTX.Compile(name, src)
	return m, err
}

// CompileKernel compiles src, a module named name, and returns its kernel
// name (see gpuext.CompileKernel).
func (o Options) CompileKernel(name, src string) (*gpuext.Kernel, error) {
	m, err := o.Compile(name, src)
	if err != nil {
		return nil, err
	}
	return m.Kernel(name)
}

// Open is FromEnv().Open: a device with the environment's settings.
func Open(spec string) (*gpuext.Device, error) { return FromEnv().Open(spec) }

// Compile is FromEnv().Compile: CUDA C to a module, from the repository's
// cache, the user's or nvcc, as the environment says.
func Compile(name, src string) (*gpuext.Module, error) { return FromEnv().Compile(name, src) }

// CompileKernel is FromEnv().CompileKernel.
func CompileKernel(name, src string) (*gpuext.Kernel, error) {
	return FromEnv().CompileKernel(name, src)
}

package sweep

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/sparse/gen"
)

// Family is one family of the sweep: its name, what it is, and its inputs
// (sizes along the curve, smallest first).
type Family struct {
	Name   string
	Doc    string
	Inputs []Input
}

// Input is one input of a family and the kernels that run on it: the
// kernels of one input are the pairs a check asks the model to order.
type Input struct {
	Family string
	// Name is the input within its family ("N=256", "2^12 rows",
	// "random n=2^16"); Family and Name together are the pairs' group.
	Name string
	// Size is the input's place on the family's curve: N, rows, elements
	// or grid edge (SizeUnit says which).
	Size     int
	SizeUnit string
	// Rank is the size's index in its family's sizes, 0 the smallest.
	Rank    int
	Kernels []string
	// Work is a rough count of the thread instructions the input's kernels
	// execute together, for a check's simulation budget (the simulator's
	// time grows with it). It decides nothing else.
	Work float64
	// prepare builds the input's host data (no device); it may run on
	// another goroutine while the device times the input before it.
	prepare func(ctx context.Context) (any, error)
	// bind uploads the data and returns the input's launches.
	bind func(ctx context.Context, dev *gpuext.Device, data any) (*bound, error)
}

// Group is the key of the input's pairs: family and input.
func (in Input) Group() string { return in.Family + "|" + in.Name }

// bound is an input on a device: each kernel's launch, its check against
// the CPU reference, and what to free.
type bound struct {
	desc   string
	config map[string]string
	launch map[string]func(ctx context.Context) (*gpuext.Launch, error)
	// verify checks kernel's output after one launch (nil: nothing to check).
	verify map[string]func() (string, error)
	// reset restores kernel's inputs before a checked launch (nil: none).
	reset map[string]func() error
	// timed, when set, replaces launch, verify and timing: the input runs
	// its own protocol and returns its records (CG's per-kernel replays).
	timed func(ctx context.Context, dev *gpuext.Device) ([]Record, error)
	free  []func() error
	// kernels are the handles launchOn looked up, by module and name.
	kernels map[string]*gpuext.Kernel
	// stride, above 1, samples the simulated launches' grids
	// (gpuext.Config.SampleStride): timing only, outputs not checked.
	stride int
	// keep, by kernel, are the blocks a sampled launch also runs as
	// themselves (gpuext.Config.SampleKeep): an SpMV's longest rows'.
	keep map[string][]int
}

func (b *bound) release() {
	for i := len(b.free) - 1; i >= 0; i-- {
		_ = b.free[i]()
	}
}

// Sizes of the families (see the package comment).
var (
	tilingN    = []int{256, 512, 1024, 2048, 4096, 8192}
	gemmN      = []int{256, 512, 1024, 2048, 4096}
	spmvRows   = []int{12, 15, 18, 21, 23} // log2
	cgGrids    = []int{20, 50, 100, 150}
	streamLogN = []int{12, 16, 20, 24, 26}
	histLogN   = []int{16, 20, 24}
	stencil2DN = []int{64, 256, 1024, 4096, 8192}
)

// SpMVMatrixFamilies are the sparse/gen families the sweep runs SpMV on.
var SpMVMatrixFamilies = []string{"uniform", "banded", "denserows", "blockdiag", "road", "stencil27",
	"powerlaw15", "powerlaw20", "powerlaw25", "powerlaw20c"}

// Families returns the sweep's families in a fixed order (the package
// comment lists them). It builds fresh values each call.
func Families() []Family {
	var fs []Family
	fs = append(fs, matmulFamily(), transposeFamily())
	for _, name := range SpMVMatrixFamilies {
		fs = append(fs, spmvFamily(name))
	}
	fs = append(fs, cgFamily())
	fs = append(fs, ownFamilies()...)
	return fs
}

// FamilyNames lists the families' names in Families' order.
func FamilyNames() []string {
	var out []string
	for _, f := range Families() {
		out = append(out, f.Name)
	}
	return out
}

// Lookup returns the family called name.
func Lookup(name string) (Family, error) {
	for _, f := range Families() {
		if f.Name == name {
			return f, nil
		}
	}
	return Family{}, fmt.Errorf("sweep: no family %q; the families are %s", name, strings.Join(FamilyNames(), ", "))
}

// pow2 writes n as 2^k when it is a power of two.
func pow2(n int) string {
	if n > 0 && n&(n-1) == 0 {
		return fmt.Sprintf("2^%d", int(math.Log2(float64(n))))
	}
	return fmt.Sprint(n)
}

func spmvFamily(matrix string) Family {
	f := Family{Name: "spmv-" + matrix}
	if mf, err := gen.Lookup(matrix); err == nil {
		f.Doc = "SpMV thread per row and warp per row on sparse/gen's " + matrix + ": " + mf.Doc
	}
	sizes := spmvRows
	if matrix == "stencil27" {
		sizes = spmvRows[:4]
	}
	for i, lg := range sizes {
		in := spmvInput(matrix, 1<<lg)
		in.Family, in.Rank = f.Name, i
		f.Inputs = append(f.Inputs, in)
	}
	return f
}

package sweep

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/ptxcheck"
	"github.com/warplab/warplab/lessons/spmv"
	"github.com/warplab/warplab/sparse/gen"
)

// TestPTXFresh holds kernels.ptx to kernels.cu (scripts/cuda/gen-ptx.sh).
func TestPTXFresh(t *testing.T) {
	cu, ptx := Source()
	if err := ptxcheck.Check("kernels.cu", []byte(cu), []byte(ptx)); err != nil {
		t.Fatal(err)
	}
}

// TestOwnKernelsDeclared checks that OwnKernels names every extern "C"
// kernel of kernels.cu and that every one runs in some family.
func TestOwnKernelsDeclared(t *testing.T) {
	cu, _ := Source()
	var inCU []string
	for _, m := range regexp.MustCompile(`extern "C" __global__ void (\w+)\(`).FindAllStringSubmatch(cu, -1) {
		inCU = append(inCU, m[1])
	}
	own := OwnKernels()
	slices.Sort(inCU)
	sorted := slices.Sorted(slices.Values(own))
	if !slices.Equal(inCU, sorted) {
		t.Fatalf("kernels.cu declares %v, OwnKernels lists %v", inCU, sorted)
	}
	used := map[string]bool{}
	for _, f := range Families() {
		for _, in := range f.Inputs {
			for _, k := range in.Kernels {
				used[k] = true
			}
		}
	}
	for _, k := range own {
		if !used[k] {
			t.Errorf("kernel %s runs in no family", k)
		}
	}
}

// TestFamiliesFixed checks the families' shape: unique names, inputs
// unique within a family with ranks that grow with size, and the sizes
// the package comment promises at both ends.
func TestFamiliesFixed(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range Families() {
		if seen[f.Name] {
			t.Errorf("family %s twice", f.Name)
		}
		seen[f.Name] = true
		if f.Doc == "" || len(f.Inputs) < 3 {
			t.Errorf("family %s: doc %q, %d inputs; want a doc and at least 3 sizes", f.Name, f.Doc, len(f.Inputs))
		}
		names := map[string]bool{}
		for i, in := range f.Inputs {
			if in.Family != f.Name || names[in.Name] || len(in.Kernels) == 0 || in.Work <= 0 || in.prepare == nil || in.bind == nil {
				t.Errorf("family %s input %d (%s): malformed %+v", f.Name, i, in.Name, in)
			}
			names[in.Name] = true
			if i > 0 && (in.Rank < f.Inputs[i-1].Rank || in.Size < f.Inputs[i-1].Size) {
				t.Errorf("family %s: input %s out of order", f.Name, in.Name)
			}
		}
	}
	for _, want := range []struct {
		family    string
		low, high int
	}{{"matmul", 256, 8192}, {"transpose", 256, 8192}, {"spmv-uniform", 1 << 12, 1 << 23}, {"cg", 20, 150}} {
		f, err := Lookup(want.family)
		if err != nil {
			t.Fatal(err)
		}
		if lo, hi := f.Inputs[0].Size, f.Inputs[len(f.Inputs)-1].Size; lo != want.low || hi != want.high {
			t.Errorf("family %s spans %d to %d, want %d to %d", want.family, lo, hi, want.low, want.high)
		}
	}
	if _, err := Lookup("nosuch"); err == nil || !strings.Contains(err.Error(), "matmul") {
		t.Errorf("Lookup(nosuch) = %v, want an error listing the families", err)
	}
}

// TestOwnKernelsOnSim runs every own kernel at its family's smallest size
// (the GEMMs smaller) on the simulator: each output passes its CPU check (Run fails a case
// that does not) and gets a modeled time with a bound.
func TestOwnKernelsOnSim(t *testing.T) {
	dev, err := gpuext.Open("sim:h200")
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	ins, err := Select(Options{Families: []string{"stream", "reduce", "scan", "histogram", "stencil1d", "stencil2d", "gemm"}, Sizes: 1,
		Only: func(in Input) bool { return in.Family != "histogram" || in.Rank == 0 }})
	if err != nil {
		t.Fatal(err)
	}
	// The GEMMs at N = 64 rather than the family's 256 (three products of
	// 256 take the simulator seconds): the same kernels and checks.
	for i, in := range ins {
		if in.Family == "gemm" {
			const n = 64
			in.Name = "N=64"
			in.prepare = func(context.Context) (any, error) {
				return squarePair{randFloats(n*n, 10, -1, 1), randFloats(n*n, 11, -1, 1)}, nil
			}
			in.bind = func(ctx context.Context, dev *gpuext.Device, data any) (*bound, error) {
				return bindGemm(dev, n, data.(squarePair))
			}
			ins[i] = in
		}
	}
	ran := map[string]bool{}
	var buf bytes.Buffer
	start := time.Now()
	err = Run(context.Background(), dev, ins, Options{Progress: func(what string) { t.Logf("%5.2fs %s", time.Since(start).Seconds(), what) }}, func(r Record) error {
		ran[r.Kernel] = true
		if r.Kind != "modeled" || r.MeanMs <= 0 || r.Bound == "" || r.Check == "" || r.Desc == "" {
			t.Errorf("%s %s: record %+v", r.Family, r.Kernel, r)
		}
		return WriteRecord(&buf, r)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range OwnKernels() {
		if !ran[k] {
			t.Errorf("%s did not run", k)
		}
	}
	lines := strings.Count(buf.String(), "\n")
	back, err := ReadRecords(&buf)
	if err != nil || len(back) != lines || lines != len(ran)+2 {
		t.Fatalf("ReadRecords: %d records, %v", len(back), err)
	}
}

// TestVerifyCatchesWrongOutput makes a check fail: the checks are not
// vacuous.
func TestVerifyCatchesWrongOutput(t *testing.T) {
	dev, err := gpuext.Open("sim:h200")
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	in := randFloats(1<<12, 6, 0, 1)
	b, err := bindReduce(dev, len(in), in)
	if err != nil {
		t.Fatal(err)
	}
	defer b.release()
	// No launch: the block sums are still zero.
	if _, err := b.verify[KReduceShfl](); err == nil {
		t.Fatal("the reduction's check passed on an output nothing wrote")
	}
	if _, err := checkProduct([]float32{1, 0, 0, 1}, []float32{2, 3, 4, 5}, []float32{2, 3, 4, 6}, 2); err == nil {
		t.Fatal("checkProduct passed a wrong product")
	}
}

func TestReadRecordsErrors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"{\"family\":\"x\"}\n", "line 1: family, kernel and input are required"},
		{"\n{not json\n", "line 2"},
	} {
		if _, err := ReadRecords(strings.NewReader(tt.in)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadRecords(%q) = %v, want %q", tt.in, err, tt.want)
		}
	}
}

// TestRunGoesOnAfterAFailure: an input that fails is reported, and the
// inputs after it still run and are recorded.
func TestRunGoesOnAfterAFailure(t *testing.T) {
	dev, err := gpuext.Open("sim:h200")
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	stream, err := Select(Options{Families: []string{"stream"}, Sizes: 1})
	if err != nil {
		t.Fatal(err)
	}
	bad := stream[0]
	bad.Name = "broken"
	bad.prepare = func(context.Context) (any, error) { return randFloats(1<<12, 5, 0, 1), nil }
	bad.bind = func(ctx context.Context, dev *gpuext.Device, data any) (*bound, error) {
		b, err := bindStream(dev, 1<<12, data.([]float32))
		if err != nil {
			return nil, err
		}
		b.verify[KCopyStrided] = func() (string, error) { return "", errors.New("made wrong on purpose") }
		return b, nil
	}
	var got []string
	err = Run(context.Background(), dev, []Input{bad, stream[0]}, Options{}, func(r Record) error {
		got = append(got, r.Input+" "+r.Kernel)
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "stream broken: copyStrided: wrong output: made wrong on purpose") {
		t.Fatalf("Run: %v, want the broken input's error", err)
	}
	want := []string{"broken copyKernel", "n=2^12 copyKernel", "n=2^12 copyStrided", "n=2^12 saxpy"}
	if !slices.Equal(got, want) {
		t.Fatalf("recorded %v, want %v", got, want)
	}
}

// TestCloseToSum: the tolerance grows with the terms summed, as float32
// recursive summation's error bound does, and no further.
func TestCloseToSum(t *testing.T) {
	for _, tt := range []struct {
		got         float32
		want, scale float64
		n           int
		ok          bool
	}{
		{1.0001, 1, 1, 10, true},
		{1.001, 1, 1, 10, false},
		// The H200's thread per row on denserows at 2^23 rows: a row of
		// 8,388,608 entries 4.2e-4 off, within (n-1)·2^-24 = 0.5.
		{8.391042e+06, 8.387526313793542e+06, 8.387526313793542e+06, 1 << 23, true},
		{8.391042e+06, 8.387526313793542e+06, 8.387526313793542e+06, 1000, false},
	} {
		if got := closeToSum(tt.got, tt.want, tt.scale, tt.n); got != tt.ok {
			t.Errorf("closeToSum(%g, %g, %g, %d) = %v, want %v", tt.got, tt.want, tt.scale, tt.n, got, tt.ok)
		}
	}
}

// TestSpMVKeepsLongRows: a sampled SpMV launch keeps the blocks of the
// matrix's longest rows (bound.keep, gpuext.Config.SampleKeep): for
// denserows, its four full rows, by each kernel's rows a block.
func TestSpMVKeepsLongRows(t *testing.T) {
	const rows = 1 << 12
	f, err := gen.Lookup("denserows")
	if err != nil {
		t.Fatal(err)
	}
	m, err := f.Generate(rows, 1)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := gpuext.Open("sim:h200")
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	b, err := bindSpMV(dev, "denserows", spmvData{m, randFloats(m.Cols, 4, 0.5, 1.5)})
	if err != nil {
		t.Fatal(err)
	}
	defer b.release()
	for _, c := range []struct {
		kernel       string
		rowsPerBlock int
	}{{spmv.KernelThreadPerRow, spmv.ThreadsPerBlock}, {spmv.KernelWarpPerRow, spmv.ThreadsPerBlock / spmv.WarpSize}} {
		keep := b.keep[c.kernel]
		if len(keep) != keptRows {
			t.Errorf("%s: %d blocks kept, want %d", c.kernel, len(keep), keptRows)
		}
		dense := 0
		for r := range m.Rows {
			if m.RowLen(r) != m.Cols {
				continue
			}
			dense++
			if !slices.Contains(keep, r/c.rowsPerBlock) {
				t.Errorf("%s: full row %d's block %d not kept (%v)", c.kernel, r, r/c.rowsPerBlock, keep)
			}
		}
		if dense == 0 {
			t.Fatalf("denserows at %d rows has no full row", rows)
		}
	}
}

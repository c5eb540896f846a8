package gpuext

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/warplab/warplab/internal/testenv"
)

// globalsModule is the kernel corpus's globals.cu: a __constant__ filter,
// a __constant__ table and a __device__ launch counter.
func globalsModule(t *testing.T) *Module {
	cuda, err := os.ReadFile("../sim/testdata/corpus/globals.cu")
	if err != nil {
		t.Fatal(err)
	}
	ptxText, err := os.ReadFile("../sim/testdata/corpus/globals.ptx")
	if err != nil {
		t.Fatal(err)
	}
	return NewModule("globals", string(cuda), string(ptxText))
}

// TestModuleGlobals: ReadGlobal and WriteGlobal on the simulator are
// cudaMemcpyFromSymbol and cudaMemcpyToSymbol: the initialiser before any
// launch, a kernel's writes after it, a host-set __constant__ filter read
// by the next launch; wrong names and sizes are errors.
func TestModuleGlobals(t *testing.T) {
	d := openSimT(t, "sim")
	m := globalsModule(t)
	c, err := ReadGlobal[uint32](d, m, "launches")
	if err != nil || len(c) != 1 || c[0] != 100 {
		t.Fatalf("launches before any launch: %v %v, want [100]", c, err)
	}
	out := testenv.Must(Alloc[int32](d, "out", 8))(t)
	for range 2 {
		if _, err := d.Launch(context.Background(), m.MustKernel("lookup"), Config{Grid: 1, Block: 8}, out, int32(8)); err != nil {
			t.Fatal(err)
		}
	}
	if c, _ = ReadGlobal[uint32](d, m, "launches"); c[0] != 102 {
		t.Errorf("launches after two launches: %v, want [102]", c)
	}
	if err := WriteGlobal(d, m, "filt", []float32{0, 0, 1, 0, 0}); err != nil {
		t.Fatal(err)
	}
	in := []float32{1, 2, 3, 4, 5, 6, 7, 8}
	bin := testenv.Must(Upload(d, "in", in))(t)
	bout := testenv.Must(Alloc[float32](d, "fout", 8))(t)
	if _, err := d.Launch(context.Background(), m.MustKernel("conv1d"), Config{Grid: 1, Block: 32}, bin, bout, int32(8)); err != nil {
		t.Fatal(err)
	}
	got := make([]float32, 8)
	if err := bout.Download(got); err != nil {
		t.Fatal(err)
	}
	for i := range in {
		if got[i] != in[i] {
			t.Fatalf("conv1d with the identity filter: %v, want %v", got, in)
		}
	}
	if _, err := ReadGlobal[float32](d, m, "nothere"); err == nil || !strings.Contains(err.Error(), "variables: filt, lut, launches, table") {
		t.Errorf("unknown variable: %v", err)
	}
	if err := WriteGlobal(d, m, "filt", []float32{1, 2}); err == nil || !strings.Contains(err.Error(), "8 bytes for a variable of 20") {
		t.Errorf("short write: %v", err)
	}
	if _, err := ReadGlobal[float64](d, m, "filt"); err == nil {
		t.Error("20 bytes as float64: no error")
	}
}

package gpuext

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/warplab/warplab/internal/testenv"
	"github.com/warplab/warplab/sim"
)

// ptxOnlyModule is the test module as a Module literal, whose PTX is
// parsed at each Kernel call (saxpyModule's, made by NewModule, once).
func ptxOnlyModule() *Module {
	return &Module{Name: "ptx_only", CUDA: kernelsCUDA, PTX: kernelsPTX}
}

// TestPTXOnlyModuleOnSimulator runs saxpy and params from PTX alone and
// compares saxpy's output and counters with its mirror's.
func TestPTXOnlyModuleOnSimulator(t *testing.T) {
	d := openSimT(t, "sim")
	m := ptxOnlyModule()
	li, err := d.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	if li.Path != PathPTX || li.Arch != "sm_75" || !strings.Contains(li.PTX, "nvcc 11.8") {
		t.Errorf("Load = %+v; want path ptx, arch sm_75, PTX from nvcc 11.8", li)
	}
	checkParams(t, d, m)

	const n = 1000
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i], ys[i] = float32(i)*0.25, float32(3*i+1)
	}
	upload := func() (*Buffer[float32], *Buffer[float32]) {
		x, err := Upload(d, "x", xs)
		if err != nil {
			t.Fatal(err)
		}
		y, err := Upload(d, "y", ys)
		if err != nil {
			t.Fatal(err)
		}
		return x, y
	}
	x, y := upload()
	lp, err := d.Launch(context.Background(), kern(m, "saxpy"), Config{Grid: (n + 255) / 256, Block: 256}, int32(n), float32(1.5), x, y)
	if err != nil {
		t.Fatal(err)
	}
	gotPTX := make([]float32, n)
	if err := y.Download(gotPTX); err != nil {
		t.Fatal(err)
	}
	x, y = upload()
	sm, err := launchMirror(d, saxpyMirror, sim.Dim1((n+255)/256), sim.Dim1(256), 0, int32(n), float32(1.5), x, y)
	if err != nil {
		t.Fatal(err)
	}
	if lp.Path != PathPTX || !strings.Contains(lp.PTX, "sm_75") {
		t.Errorf("path %q (%q)", lp.Path, lp.PTX)
	}
	for i := range gotPTX {
		// a*x + y: nvcc contracts it to one fma; the mirror rounds twice,
		// so compare with the fma result and count the differences.
		if gotPTX[i] != fma32(1.5, xs[i], ys[i]) {
			t.Fatalf("y[%d] = %v, want fma %v", i, gotPTX[i], fma32(1.5, xs[i], ys[i]))
		}
	}
	sp := lp.Stats
	if sp.GlobalLoad != sm.GlobalLoad || sp.GlobalStore != sm.GlobalStore || sp.L2Sectors != sm.L2Sectors || sp.DRAMReadBytes != sm.DRAMReadBytes {
		t.Errorf("PTX counters %+v %+v differ from the mirror's %+v %+v", sp.GlobalLoad, sp.GlobalStore, sm.GlobalLoad, sm.GlobalStore)
	}
}

func fma32(a, x, y float32) float32 {
	return float32(float64(a)*float64(x) + float64(y)) // exact product; the test values need no care about double rounding
}

func TestPTXOnlyModuleErrors(t *testing.T) {
	d := openSimT(t, "sim")
	m := ptxOnlyModule()
	x := testenv.Must(Upload(d, "x", []float32{1, 2}))(t)
	_, err := m.Kernel("daxpy")
	if err == nil || !strings.Contains(err.Error(), "its kernels: saxpy, params") {
		t.Errorf("missing kernel: %v", err)
	}
	_, err = d.Launch(context.Background(), kern(m, "saxpy"), Config{Grid: 1, Block: 32}, int64(2), float32(1), x, x)
	if err == nil || !strings.Contains(err.Error(), "saxpy_param_0") {
		t.Errorf("wrong scalar size: %v", err)
	}
	// An out-of-bounds saxpy (n larger than the buffers) is a fault naming the
	// PTX line (kernels.ptx has no line information).
	_, err = d.Launch(context.Background(), kern(m, "saxpy"), Config{Grid: 1, Block: 32}, int32(3), float32(1), x, x)
	var f *sim.Fault
	if !errors.As(err, &f) || f.Kind != sim.FaultOutOfBounds || !strings.Contains(f.Site, "ptx_only.ptx:") {
		t.Errorf("out of bounds: %v", err)
	}
	// A kernel the simulator cannot run fails at its own launch, naming
	// its line; the module loads and its other kernels run (issue 28).
	bad := &Module{Name: "bad", PTX: ".version 7.8\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n\tfoo.bar %r1;\n}\n" +
		".visible .entry ok()\n{\n\tret;\n}\n"}
	if _, err := d.Load(bad); err != nil {
		t.Errorf("Load of a module with one kernel the simulator cannot run: %v", err)
	}
	if _, err := d.Launch(context.Background(), kern(bad, "k"), Config{Grid: 1, Block: 32}); err == nil || !strings.Contains(err.Error(), `bad.ptx:6: unsupported instruction "foo.bar"`) {
		t.Errorf("bad kernel: Launch = %v, want an error naming line 6", err)
	}
	if _, err := d.Launch(context.Background(), kern(bad, "ok"), Config{Grid: 1, Block: 32}); err != nil {
		t.Errorf("the module's good kernel: %v", err)
	}
	// A module refused whole: an unknown PTX ISA version.
	if _, err := d.Load(&Module{Name: "v99", PTX: ".version 99.9\n.target sm_75\n.address_size 64\n"}); err == nil || !strings.Contains(err.Error(), "unsupported .version 99.9") {
		t.Errorf(".version 99.9: Load = %v", err)
	}
}

// TestPTXOnlySharedShuffleAtomics runs hand-written PTX kernels (the
// executor's test kernels) through gpuext with Buffers and int32 scalars:
// a shared-memory reduction with barriers, a shuffle reduction, atomics
// and dynamic shared memory.
func TestPTXOnlySharedShuffleAtomics(t *testing.T) {
	src, err := os.ReadFile("../sim/testdata/ptx/basic.ptx")
	if err != nil {
		t.Fatal(err)
	}
	d := openSimT(t, "sim")
	m := &Module{Name: "basic", PTX: string(src)}
	in := make([]float32, 512)
	var want [2]float32
	for i := range in {
		in[i] = float32(i % 5)
		want[i/256] += in[i]
	}
	bin := testenv.Must(Upload(d, "in", in))(t)
	bout := testenv.Must(Alloc[float32](d, "out", 2))(t)
	l, err := d.Launch(context.Background(), kern(m, "reduce"), Config{Grid: 2, Block: 256}, bin, bout)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float32, 2)
	if err := bout.Download(got); err != nil {
		t.Fatal(err)
	}
	if got[0] != want[0] || got[1] != want[1] || l.Stats.SharedStore.Requests == 0 {
		t.Errorf("reduce: %v, want %v (shared stores %+v)", got, want, l.Stats.SharedStore)
	}

	ints := make([]int32, 64)
	for i := range ints {
		ints[i] = int32(i)
	}
	iin := testenv.Must(Upload(d, "ints", ints))(t)
	sums := testenv.Must(Alloc[int32](d, "sums", 2))(t)
	preds := testenv.Must(Alloc[int32](d, "preds", 64))(t)
	if _, err := d.Launch(context.Background(), kern(m, "shflsum"), Config{Grid: 1, Block: 64}, iin, sums, preds); err != nil {
		t.Fatal(err)
	}
	gs := make([]int32, 2)
	if err := sums.Download(gs); err != nil {
		t.Fatal(err)
	}
	if gs[0] != 31*32/2 || gs[1] != (32+63)*32/2 {
		t.Errorf("shflsum: %v", gs)
	}

	cnt := testenv.Must(Upload(d, "count", []int32{0, 0, -1, 1000, 0, -7}))(t)
	old := testenv.Must(Alloc[int32](d, "old", 64))(t)
	fsum := testenv.Must(Upload(d, "fsum", []float32{0}))(t)
	if _, err := d.Launch(context.Background(), kern(m, "atomics"), Config{Grid: 1, Block: 64}, cnt, old, fsum); err != nil {
		t.Fatal(err)
	}
	gc := make([]int32, 6)
	if err := cnt.Download(gc); err != nil {
		t.Fatal(err)
	}
	if gc[0] != 64 || gc[1] != 64*63/2 || gc[4] != 1 {
		t.Errorf("atomics: %v", gc)
	}

	dout := testenv.Must(Alloc[float32](d, "dout", 64))(t)
	if _, err := d.Launch(context.Background(), kern(m, "dynrev"), Config{Grid: 1, Block: 64, Shared: 256}, bin, dout); err != nil {
		t.Fatal(err)
	}
	gd := make([]float32, 64)
	if err := dout.Download(gd); err != nil {
		t.Fatal(err)
	}
	if gd[0] != in[63] || gd[63] != in[0] {
		t.Errorf("dynrev: %v", gd[:4])
	}
}

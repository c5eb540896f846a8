//go:build cuda

package gpuext

import (
	"testing"

	"github.com/warplab/warplab/internal/testenv"
	"github.com/warplab/warplab/notebooks/ptxcache"
	"github.com/warplab/warplab/sim"
)

// TestGPUNotebookCUDA runs the kernels of notebooks/00-first-kernel on the
// GPU through the same package API as on the simulator: the repository's
// PTX, loaded by the driver (the GPU host has no nvcc), with the results
// checked and the times measured beside the simulator's modeled ones.
func TestGPUNotebookCUDA(t *testing.T) {
	mods := map[string]*Module{}
	for _, e := range repoEntries(t) {
		if e.ext != ".ptx" {
			continue
		}
		m, _, err := CompileOptions{Repo: ptxcache.FS, NVCC: "/nonexistent/nvcc"}.Compile(e.name, e.src)
		if err != nil {
			t.Fatal(err)
		}
		mods[e.name] = m
	}
	if mods["saxpy"] == nil || mods["strided_copy"] == nil {
		t.Fatalf("notebooks/ptxcache lacks saxpy or strided_copy (has %d PTX entries)", len(mods))
	}
	gpu := openGPUT(t, Options{PTXOnly: true})
	simd := openSimT(t, "sim:h200")
	const n = 1 << 22
	hx, hy := make([]float32, n), make([]float32, n)
	for i := range hx {
		hx[i], hy[i] = float32(i%17), float32(i%5)
	}
	for _, d := range []*Device{gpu, simd} {
		x := testenv.Must(Upload(d, "x", hx))(t)
		y := testenv.Must(Upload(d, "y", hy))(t)
		if _, err := d.Launch(mods["saxpy"], "saxpy", sim.Dim1(n/256), sim.Dim1(256), 0, int32(n), float32(2.5), x, y); err != nil {
			t.Fatalf("%s: saxpy: %v", d.Kind(), err)
		}
		got := make([]float32, n)
		if err := y.Download(got); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if want := 2.5*hx[i] + hy[i]; got[i] != want {
				t.Fatalf("%s: saxpy y[%d] = %v, want %v", d.Kind(), i, got[i], want)
			}
		}
		for _, stride := range []int{1, 8} {
			src := testenv.Must(Alloc[float32](d, "src", n/8*stride))(t)
			dst := testenv.Must(Alloc[float32](d, "dst", n/8))(t)
			tm, err := d.Time(func() error {
				_, err := d.Launch(mods["strided_copy"], "strided_copy", sim.Dim1(n/8/256), sim.Dim1(256), 0, int32(n/8), int32(stride), src, dst)
				return err
			}, -1, 0)
			if err != nil {
				t.Fatalf("%s: strided_copy stride %d: %v", d.Kind(), stride, err)
			}
			t.Logf("%s strided_copy stride %d, %d outputs: %v", d.Kind(), stride, n/8, tm)
		}
	}
}

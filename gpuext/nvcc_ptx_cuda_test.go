//go:build cuda

package gpuext

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/warplab/warplab/internal/testenv"
	"github.com/warplab/warplab/notebooks/ptxcache"
	"github.com/warplab/warplab/sim"
)

// TestGPUNotebookCUDA runs the kernels of notebooks/00-first-kernel on the
// GPU through the same package API as on the simulator: the repository's
// PTX, loaded by the driver (the GPU host has no nvcc), with the results
// checked on both, and each kernel's time measured on the GPU beside the
// simulator's modeled time (an H200 model). The sizes are larger than the
// notebook's, so that a launch takes longer than its overhead.
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
	for _, name := range []string{"saxpy", "strided_copy", "branch", "transpose"} {
		if mods[name] == nil {
			t.Fatalf("notebooks/ptxcache lacks %s (has %d PTX entries)", name, len(mods))
		}
	}
	gpu := openGPUT(t, Options{PTXOnly: true})
	simd := openSimT(t, "sim:h200")
	times := map[string][2]Timing{} // case -> GPU, simulator
	record := func(d *Device, what string, f func() error) {
		t.Helper()
		tm, err := d.Time(f, -1, 0)
		if err != nil {
			t.Fatalf("%s: %s: %v", d.Kind(), what, err)
		}
		i := 0
		if d.Kind() == Sim {
			i = 1
		}
		v := times[what]
		v[i] = tm
		times[what] = v
		t.Logf("%s %s: %v", d.Kind(), what, tm)
	}
	const n = 1 << 22
	hx, hy := make([]float32, n), make([]float32, n)
	for i := range hx {
		hx[i], hy[i] = float32(i%17), float32(i%5)
	}
	for _, d := range []*Device{gpu, simd} {
		x := testenv.Must(Upload(d, "x", hx))(t)
		y := testenv.Must(Upload(d, "y", hy))(t)
		if _, err := d.Launch(context.Background(), kern(mods["saxpy"], "saxpy"), Config{Grid: n / 256, Block: 256}, int32(n), float32(2.5), x, y); err != nil {
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
		record(d, fmt.Sprintf("saxpy, %d elements", n), func() error {
			_, err := d.Launch(context.Background(), kern(mods["saxpy"], "saxpy"), Config{Grid: n / 256, Block: 256}, int32(n), float32(2.5), x, y)
			return err
		})
		for _, stride := range []int{1, 8} {
			src := testenv.Must(Alloc[float32](d, "src", n/8*stride))(t)
			dst := testenv.Must(Alloc[float32](d, "dst", n/8))(t)
			record(d, fmt.Sprintf("strided_copy stride %d, %d outputs", stride, n/8), func() error {
				_, err := d.Launch(context.Background(), kern(mods["strided_copy"], "strided_copy"), Config{Grid: n / 8 / 256, Block: 256}, int32(n/8), int32(stride), src, dst)
				return err
			})
			testenv.Must(0, src.Free())(t)
			testenv.Must(0, dst.Free())(t)
		}
		for _, k := range []string{"by_lane", "by_warp"} {
			record(d, fmt.Sprintf("%s, %d elements", k, n), func() error {
				_, err := d.Launch(context.Background(), kern(mods["branch"], k), Config{Grid: n / 256, Block: 256}, int32(n), x, y)
				return err
			})
		}
		testenv.Must(0, x.Free())(t)
		testenv.Must(0, y.Free())(t)
		const m = 2048
		h := make([]float32, m*m)
		for i := range h {
			h[i] = float32(i)
		}
		in := testenv.Must(Upload(d, "in", h))(t)
		out := testenv.Must(Alloc[float32](d, "out", m*m))(t)
		for _, k := range []string{"transpose", "transpose_pad"} {
			launch := func() error {
				_, err := d.Launch(context.Background(), kern(mods["transpose"], k), Config{Grid: sim.Dim3{X: m / 32, Y: m / 32, Z: 1}, Block: sim.Dim3{X: 32, Y: 32, Z: 1}}, int32(m), in, out)
				return err
			}
			testenv.Must(0, out.Fill(-1))(t)
			if err := launch(); err != nil {
				t.Fatalf("%s: %s: %v", d.Kind(), k, err)
			}
			got := make([]float32, m*m)
			testenv.Must(0, out.Download(got))(t)
			for i, v := range got {
				if r, c := i/m, i%m; v != float32(c*m+r) {
					t.Fatalf("%s: %s: out[%d][%d] = %v, want %d", d.Kind(), k, r, c, v, c*m+r)
				}
			}
			record(d, fmt.Sprintf("%s, %d×%d", k, m, m), launch)
		}
	}
	cases := make([]string, 0, len(times))
	for c := range times {
		cases = append(cases, c)
	}
	sort.Strings(cases)
	var b strings.Builder
	fmt.Fprintf(&b, "00-first-kernel's CUDA C, repository PTX (nvcc 11.8, compute_75) JIT-compiled by the driver:\n")
	fmt.Fprintf(&b, "%-40s %14s %14s %8s\n", "kernel", "measured ms", "modeled ms", "ratio")
	for _, c := range cases {
		v := times[c]
		fmt.Fprintf(&b, "%-40s %14.4f %14.4f %8.2f\n", c, v[0].MeanMs, v[1].MeanMs, v[1].MeanMs/v[0].MeanMs)
	}
	fmt.Fprintf(&b, "measured on %s (%s), mean of %d runs after %d warm-ups; modeled on %s", gpu.Name(), gpu.Driver(),
		times[cases[0]][0].Runs, times[cases[0]][0].Warmups, simd.Name())
	t.Log("\n" + b.String())
}

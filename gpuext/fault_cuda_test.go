//go:build cuda

package gpuext

import (
	"errors"
	"strings"
	"testing"

	"github.com/warplab/warplab/internal/testenv"
	"github.com/warplab/warplab/notebooks/ptxcache"
	"github.com/warplab/warplab/sim"
)

// TestGPUFaultRecovery: a kernel that faults on the GPU (an illegal
// address, a __trap()) is reported as a *ContextLostError naming it and
// pointing to the simulator; the context is recreated, so a working kernel
// launched next runs and computes the right answer; buffers, reads in
// flight and modules of the old context say they died with it, and the
// device still closes cleanly. Each fault is followed by SAXPY from the
// notebook's repository PTX.
func TestGPUFaultRecovery(t *testing.T) {
	faults := faultModules(t)
	saxpy := notebookModule(t, "saxpy")
	gpu := openGPUT(t, Options{PTXOnly: true})
	for _, tc := range []struct {
		name, kernel string
		arg          any
		cuda         string // the CUDA error's name, as gorgonia.org/cu spells it
	}{
		{"illegal address", "poke", uint64(8), "IllegalAddress"},
		{"trap", "boom", int32(5), "LaunchFailed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := testenv.Must(Upload(gpu, "old", []float32{1, 2, 3}))(t)
			pend, err := old.ReadAsync(3)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := pend.Wait(); err != nil {
				t.Fatal(err)
			}
			pend, err = old.ReadAsync(3) // queued before the fault, waited on after
			if err != nil {
				t.Fatal(err)
			}
			_, lerr := gpu.Launch(faults[tc.kernel], tc.kernel, sim.Dim1(1), sim.Dim1(32), 0, tc.arg)
			serr := gpu.Synchronize()
			err = errors.Join(lerr, serr)
			var lost *ContextLostError
			if !errors.As(err, &lost) {
				t.Fatalf("after %s: %v; want a *ContextLostError", tc.kernel, err)
			}
			t.Logf("the fault: %v", err)
			if lost.Kernel != tc.kernel || lost.RecreateErr != nil || !strings.Contains(lost.Err.Error(), tc.cuda) ||
				!strings.Contains(err.Error(), `gpuext.Open("sim")`) {
				t.Errorf("ContextLostError %+v", lost)
			}
			if _, err := pend.Wait(); !errors.Is(err, ErrDiedWithContext) {
				t.Errorf("a read queued in the old context: %v; want ErrDiedWithContext", err)
			}
			if err := old.Download(make([]float32, 3)); !errors.Is(err, ErrDiedWithContext) || !strings.Contains(err.Error(), tc.kernel) {
				t.Errorf("a buffer of the old context: %v; want ErrDiedWithContext naming %s", err, tc.kernel)
			}
			if _, err := gpu.Launch(saxpy, "saxpy", sim.Dim1(1), sim.Dim1(32), 0, int32(3), float32(2), old, old); !errors.Is(err, ErrDiedWithContext) {
				t.Errorf("launching with a buffer of the old context: %v", err)
			}
			// The next launch runs, in the new context.
			const n = 1 << 20
			hx, hy := make([]float32, n), make([]float32, n)
			for i := range hx {
				hx[i], hy[i] = float32(i%17), float32(i%5)
			}
			x := testenv.Must(Upload(gpu, "x", hx))(t)
			y := testenv.Must(Upload(gpu, "y", hy))(t)
			if _, err := gpu.Launch(saxpy, "saxpy", sim.Dim1(n/256), sim.Dim1(256), 0, int32(n), float32(2.5), x, y); err != nil {
				t.Fatalf("saxpy after the fault: %v", err)
			}
			got := make([]float32, n)
			if err := y.Download(got); err != nil {
				t.Fatalf("saxpy after the fault: %v", err)
			}
			for i := range got {
				if want := 2.5*hx[i] + hy[i]; got[i] != want {
					t.Fatalf("saxpy after the fault: y[%d] = %v, want %v", i, got[i], want)
				}
			}
			t.Logf("saxpy after the %s fault: all %d elements right", tc.name, n)
			if err := old.Free(); !errors.Is(err, ErrDiedWithContext) {
				t.Errorf("Free of a dead buffer: %v", err)
			}
		})
	}
}

// notebookModule is kernel source name of notebooks/00-first-kernel, from
// the repository's PTX cache (the GPU host has no nvcc 11.8).
func notebookModule(t *testing.T, name string) *Module {
	t.Helper()
	for _, e := range repoEntries(t) {
		if e.name != name || e.ext != ".ptx" {
			continue
		}
		m, _, err := CompileOptions{Repo: ptxcache.FS, NVCC: "/nonexistent/nvcc"}.Compile(e.name, e.src)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	t.Fatalf("notebooks/ptxcache has no PTX named %s", name)
	return nil
}

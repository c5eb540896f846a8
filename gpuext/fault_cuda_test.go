//go:build cuda

package gpuext

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/warplab/warplab/internal/testenv"
	"github.com/warplab/warplab/notebooks/ptxcache"
)

// faultCases are the GPU faults TestGPUFaultRecovery provokes.
var faultCases = []struct {
	name, kernel string
	arg          any
	cuda         string // the CUDA error's name, as gorgonia.org/cu spells it
}{
	{"illegal address", "poke", uint64(8), "IllegalAddress"},
	{"trap", "boom", int32(5), "LaunchFailed"},
}

// TestGPUFaultRecovery: a kernel that faults on the GPU (an illegal
// address, a __trap()) is reported as a *ContextLostError naming it and
// pointing to the simulator; buffers and reads in flight of the old
// context say they died with it; and the next program's launch runs. Each
// fault happens in a child process (this test binary again, running
// TestGPUFaultChild), as a GoNB cell is its own process: CUDA keeps such a
// fault for the rest of a process unless the context can be recreated,
// which the child reports either way. The parent then runs SAXPY from the
// notebook's repository PTX on the GPU and checks every element: the
// "next cell".
func TestGPUFaultRecovery(t *testing.T) {
	saxpy := notebookModule(t, "saxpy")
	for _, tc := range faultCases {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestGPUFaultChild$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), "WARPLAB_FAULT_CHILD="+tc.kernel)
			out, err := cmd.CombinedOutput()
			t.Logf("the faulting program:\n%s", out)
			if err != nil || !strings.Contains(string(out), "--- PASS: TestGPUFaultChild") {
				t.Fatalf("the faulting program: %v", err)
			}
			gpu := openGPUT(t, Options{PTXOnly: true})
			const n = 1 << 20
			hx, hy := make([]float32, n), make([]float32, n)
			for i := range hx {
				hx[i], hy[i] = float32(i%17), float32(i%5)
			}
			x := testenv.Must(Upload(gpu, "x", hx))(t)
			y := testenv.Must(Upload(gpu, "y", hy))(t)
			if _, err := gpu.Launch(context.Background(), kern(saxpy, "saxpy"), Config{Grid: n / 256, Block: 256}, int32(n), float32(2.5), x, y); err != nil {
				t.Fatalf("saxpy in the next program: %v", err)
			}
			got := make([]float32, n)
			if err := y.Download(got); err != nil {
				t.Fatalf("saxpy in the next program: %v", err)
			}
			for i := range got {
				if want := 2.5*hx[i] + hy[i]; got[i] != want {
					t.Fatalf("saxpy in the next program: y[%d] = %v, want %v", i, got[i], want)
				}
			}
			t.Logf("saxpy in the program after the %s fault: all %d elements right", tc.name, n)
		})
	}
}

// TestGPUFaultChild is the faulting program of TestGPUFaultRecovery; it
// runs only when that test starts it (WARPLAB_FAULT_CHILD names the
// kernel).
func TestGPUFaultChild(t *testing.T) {
	kernel := os.Getenv("WARPLAB_FAULT_CHILD")
	if kernel == "" {
		t.Skip("run by TestGPUFaultRecovery in a child process")
	}
	i := slices.IndexFunc(faultCases, func(c struct {
		name, kernel string
		arg          any
		cuda         string
	}) bool {
		return c.kernel == kernel
	})
	if i < 0 {
		t.Fatalf("no fault case for kernel %q", kernel)
	}
	tc := faultCases[i]
	faults := faultModules(t)
	saxpy := notebookModule(t, "saxpy")
	gpu := openGPUT(t, Options{PTXOnly: true})
	old := testenv.Must(Upload(gpu, "old", []float32{1, 2, 3}))(t)
	pend, err := old.ReadAsync(3) // queued before the fault, waited on after
	if err != nil {
		t.Fatal(err)
	}
	_, lerr := gpu.Launch(context.Background(), kern(faults[tc.kernel], tc.kernel), Config{Grid: 1, Block: 32}, tc.arg)
	serr := gpu.Synchronize()
	err = errors.Join(lerr, serr)
	var lost *ContextLostError
	if !errors.As(err, &lost) {
		t.Fatalf("after %s: %v; want a *ContextLostError", tc.kernel, err)
	}
	t.Logf("the fault: %v", err)
	if lost.Kernel != tc.kernel || !strings.Contains(lost.Err.Error(), tc.cuda) || !strings.Contains(err.Error(), `gpuext.Open("sim")`) {
		t.Errorf("ContextLostError %+v", lost)
	}
	if _, err := pend.Wait(); !errors.Is(err, ErrDiedWithContext) {
		t.Errorf("a read queued in the old context: %v; want ErrDiedWithContext", err)
	}
	if err := old.Download(make([]float32, 3)); !errors.Is(err, ErrDiedWithContext) || !strings.Contains(err.Error(), tc.kernel) {
		t.Errorf("a buffer of the old context: %v; want ErrDiedWithContext naming %s", err, tc.kernel)
	}
	// A new launch in this process: it runs when the context was
	// recreated, else it returns the same fault at once.
	x := []float32{1, 2, 3, 4}
	xb, uerr := Upload(gpu, "x", x)
	var yb *Buffer[float32]
	if uerr == nil {
		yb, uerr = Upload(gpu, "y", make([]float32, 4))
	}
	if uerr == nil {
		_, uerr = gpu.Launch(context.Background(), kern(saxpy, "saxpy"), Config{Grid: 1, Block: 32}, int32(4), float32(2), xb, yb)
	}
	var again *ContextLostError
	switch {
	case lost.RecreateErr == nil && uerr != nil:
		t.Errorf("context recreated, but the next launch failed: %v", uerr)
	case lost.RecreateErr != nil && !(errors.As(uerr, &again) && again.Kernel == tc.kernel):
		t.Errorf("no new context, and the next call said %v; want the same *ContextLostError naming %s", uerr, tc.kernel)
	}
	t.Logf("context recreated in this process: %v (next launch: %v)", lost.RecreateErr == nil, uerr)
	// openGPUT's cleanup checks that Close after the fault returns nil.
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

package gpuext

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warplab/warplab/sim"
)

// Kernels that fault on purpose, for TestGPUFaultRecovery (cuda tag) and
// for the simulator's side of the same launches. Their PTX is kept in
// testdata/faultptx (nvcc 11.8, compute_75, made by Compile with Record),
// so the GPU host needs no nvcc; TestFaultPTXRegenerated keeps it fresh.
const (
	pokeCU = `
extern "C" __global__ void poke(unsigned long long addr) {
    *(volatile float *)addr = 1.0f;   // addr is in no buffer: an illegal address
}`
	boomCU = `
extern "C" __global__ void boom(int lane) {
    if (threadIdx.x == lane) __trap();
}`
)

//go:embed testdata/faultptx
var faultPTX embed.FS

// faultModules are poke and boom compiled from testdata/faultptx.
func faultModules(t *testing.T) map[string]*Module {
	t.Helper()
	sub, err := fs.Sub(faultPTX, "testdata/faultptx")
	if err != nil {
		t.Fatal(err)
	}
	mods := map[string]*Module{}
	for name, src := range map[string]string{"poke": pokeCU, "boom": boomCU} {
		m, info, err := CompileOptions{Repo: sub, NVCC: "/nonexistent/nvcc"}.Compile(name, src)
		if err != nil || info.From != "repository" {
			t.Fatalf("%s: not in testdata/faultptx (%v, %+v); regenerate with nvcc 11.8: WARPLAB_FAULTPTX_RECORD=1 go test ./gpuext -run TestFaultPTXRegenerated", name, err, info)
		}
		mods[name] = m
	}
	return mods
}

// TestFaultPTXRegenerated compiles the fault kernels again with nvcc 11.8
// and requires testdata/faultptx byte for byte (WARPLAB_FAULTPTX_RECORD=1
// rewrites it instead).
func TestFaultPTXRegenerated(t *testing.T) {
	nvcc118(t)
	rec := t.TempDir()
	if os.Getenv("WARPLAB_FAULTPTX_RECORD") == "1" {
		rec = "testdata/faultptx"
	}
	for name, src := range map[string]string{"poke": pokeCU, "boom": boomCU} {
		_, info, err := CompileOptions{CacheDir: t.TempDir(), Record: rec}.Compile(name, src)
		if err != nil || info.From != "nvcc" {
			t.Fatalf("%s: %v %+v", name, err, info)
		}
		fresh, err := os.ReadFile(filepath.Join(rec, info.Key+".ptx"))
		if err != nil {
			t.Fatal(err)
		}
		kept, err := fs.ReadFile(faultPTX, "testdata/faultptx/"+info.Key+".ptx")
		if err != nil || !bytes.Equal(fresh, kept) {
			t.Errorf("%s: testdata/faultptx/%s.ptx is not what nvcc 11.8 makes now (%v); WARPLAB_FAULTPTX_RECORD=1 rewrites it", name, info.Key, err)
		}
	}
}

// TestFaultOnSimulator: the launch a GPU's ContextLostError points to
// names the CUDA line, the thread and the block on the simulator, and the
// device stays usable.
func TestFaultOnSimulator(t *testing.T) {
	mods := faultModules(t)
	d := openSimT(t, "sim:t4")
	_, err := d.Launch(context.Background(), kern(mods["poke"], "poke"), Config{Grid: 1, Block: 32}, uint64(8))
	var f *sim.Fault
	if !errors.As(err, &f) || f.Kind != sim.FaultOutOfBounds || !strings.Contains(f.Site, "poke.cu:3") || f.Thread != (sim.Dim3{}) {
		t.Fatalf("poke on the simulator: %v", err)
	}
	_, err = d.Launch(context.Background(), kern(mods["boom"], "boom"), Config{Grid: 2, Block: 32}, int32(5))
	if !errors.As(err, &f) || f.Kind != sim.FaultTrap || !strings.Contains(f.Site, "boom.cu:3") || f.Thread != (sim.Dim3{X: 5}) {
		t.Fatalf("boom on the simulator: %v", err)
	}
	x, err := Upload(d, "x", []float32{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float32, 2)
	if err := x.Download(got); err != nil || got[1] != 2 {
		t.Fatalf("after the fault: %v %v", got, err)
	}
}

// TestContextLostErrorText: the message names the kernel and its launch,
// says the context was recreated and what that means, and points to the
// simulator; without a recreated context it says that the program must run
// again (a notebook cell again: a new process).
func TestContextLostErrorText(t *testing.T) {
	e := &ContextLostError{Device: "NVIDIA H200", Module: "poke", Kernel: "poke", Grid: sim.Dim1(1), Block: sim.Dim1(32),
		Call: "cuCtxSynchronize", Err: errors.New("cuCtxSynchronize: IllegalAddress")}
	for _, want := range []string{"kernel poke.poke<<<grid (1,1,1), block (32,1,1), shared 0 B>>> faulted on NVIDIA H200",
		"recreated", "allocate and upload them again", "the next launch runs", `gpuext.Open("sim")`, `Launch(ctx, kernel poke.poke, Config{Grid: (1,1,1), Block: (32,1,1)`} {
		if !strings.Contains(e.Error(), want) {
			t.Errorf("message lacks %q:\n%s", want, e)
		}
	}
	e.RecreateErr = errors.New("cuDevicePrimaryCtxReset: Unknown")
	for _, want := range []string{"every GPU call of this program now fails", "run the cell again", "new process", "cuDevicePrimaryCtxReset: Unknown"} {
		if !strings.Contains(e.Error(), want) {
			t.Errorf("without a new context, the message lacks %q: %s", want, e)
		}
	}
	if !errors.Is(e, e.Err) {
		t.Error("ContextLostError does not unwrap to the CUDA error")
	}
}

package main

import (
	"context"
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/lessons/lesson"
	"github.com/warplab/warplab/lessons/spmv"
)

// TestSelftestPTXColumn runs the CG and spmv self-tests (their SelfTest) with the PTX column
// on, with no GPU: the "GPU" is a simulator that also runs the PTX, so every
// row must come out the same bits, and the code line names the PTX that ran.
func TestSelftestPTXColumn(t *testing.T) {
	open := func(o gpuext.Options) *gpuext.Device {
		d, err := gpuext.OpenWith("sim", o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d
	}
	testers := selfTesters()
	for _, c := range []struct {
		name string
		rows int
	}{
		{"cg", 0},
		{"spmv", 2 * len(spmv.KernelNames())}, // both seed matrices
	} {
		devs := lesson.Devices{Dev: open(gpuext.Options{}), PTX: open(gpuext.Options{})}
		rows, code, err := testers[c.name].SelfTest(context.Background(), devs)
		if err != nil {
			t.Fatal(err)
		}
		if len(code) != 1 || !strings.Contains(code[0], "nvcc 11.8") || !strings.Contains(code[0], "sm_75") {
			t.Errorf("%s: code lines %q; want one naming nvcc 11.8 and sm_75", c.name, code)
		}
		if len(rows) == 0 || (c.rows > 0 && len(rows) != c.rows) {
			t.Fatalf("%s: %d rows, want %d", c.name, len(rows), c.rows)
		}
		for _, r := range rows {
			if r.PTX != lesson.SameBits() || r.Reference != lesson.OK() {
				t.Errorf("%s %s: reference %q, PTX %q; want ok and the same bits", c.name, r.Kernel, r.Reference, r.PTX)
			}
		}
	}
}

// TestSelfTesters: every lesson with kernels of its own checks them, so the
// self-test covers it (libs' kernels are checked by its own tests).
func TestSelfTesters(t *testing.T) {
	got := selfTesters()
	for _, name := range []string{"cg", "spmv", "tiling"} {
		if got[name] == nil {
			t.Errorf("lesson %s has no SelfTest", name)
		}
	}
}

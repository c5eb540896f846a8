package sim

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
)

// TestPtxasInlineInfo holds withoutInlineInfo to what its comment says:
// the SASS read from a module whose .loc directives lost their inlining
// attributes is the SASS read from the module as nvcc wrote it (each
// lesson's module and the sweep's), and libs.ptx, which ptxas 11.8
// crashes on for sm_90 with them, compiles and reads without them.
func TestPtxasInlineInfo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ptxas and nvdisasm on five modules")
	}
	bin := Ptxas()
	if bin == "" {
		t.Skip("no ptxas on this machine")
	}
	dis, err := nvdisasm()
	if err != nil {
		t.Skip(err)
	}
	asWritten := func(t *testing.T, text []byte) SASSWidths {
		dir := t.TempDir()
		in, cubin := filepath.Join(dir, "k.ptx"), filepath.Join(dir, "k.cubin")
		if err := os.WriteFile(in, text, 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(bin, "-arch=sm_90", "-lineinfo", "-o", cubin, in).CombinedOutput(); err != nil {
			t.Fatalf("ptxas: %v: %s", err, out)
		}
		out, err := exec.Command(dis, "-g", cubin).Output()
		if err != nil {
			t.Fatalf("nvdisasm: %v", err)
		}
		w, err := ParseSASSWidths(out)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	for _, path := range []string{
		"../lessons/spmv/spmv.ptx", "../lessons/cg/cg.ptx", "../lessons/tiling/tiling.ptx",
		"../internal/sweep/kernels.ptx",
	} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if reflect.DeepEqual(withoutInlineInfo(text), text) {
				t.Fatalf("%s has no inlining attributes to drop", path)
			}
			got, _, err := PtxasSharedWidths(context.Background(), text, "sm_90")
			if err != nil {
				t.Fatal(err)
			}
			if want := asWritten(t, text); !reflect.DeepEqual(got, want) {
				t.Errorf("SASS read without the inlining attributes differs from the module's own")
			}
		})
	}
	t.Run("libs.ptx", func(t *testing.T) {
		text, err := os.ReadFile("../lessons/libs/libs.ptx")
		if err != nil {
			t.Fatal(err)
		}
		w, _, err := PtxasSharedWidths(context.Background(), text, "sm_90")
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"spmvVector4", "spmvTile", "spmvMergePath"} {
			if len(w[k]) == 0 {
				t.Errorf("no SASS lines read for %s", k)
			}
		}
	})
}

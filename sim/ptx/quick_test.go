package ptx

import (
	"os"
	"testing"
)

func TestQuickLessons(t *testing.T) {
	for _, f := range []string{"../../lessons/spmv/spmv.ptx", "../../lessons/tiling/tiling.ptx", "../../lessons/cg/cg.ptx", "../../gpuext/testdata/kernels.ptx", "../../internal/launchbench/empty.ptx"} {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Parse(f, string(src))
		if err != nil {
			t.Errorf("%v", err)
			for _, e := range err.(ErrorList) {
				t.Log(e)
			}
			continue
		}
		n := 0
		for _, k := range m.Kernels {
			n += len(k.Instrs)
		}
		t.Logf("%s: %d kernels, %d instrs, compiler %q", f, len(m.Kernels), n, m.Compiler)
	}
}

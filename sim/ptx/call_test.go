package ptx

import (
	"os"
	"testing"
)

// TestFlattenCalls: a kernel's calls resolve to the module's functions and
// built-ins; Flatten appends the functions it reaches with their registers
// and variables renumbered.
func TestFlattenCalls(t *testing.T) {
	src, err := os.ReadFile("../testdata/corpus/calls.ptx")
	if err != nil {
		t.Skip(err)
	}
	m, err := Parse("calls.ptx", string(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range m.Kernels {
		flat, err := m.Flatten(k)
		if err != nil {
			t.Fatalf("%s: %v", k.Name, err)
		}
		for i := range flat.Instrs {
			in := &flat.Instrs[i]
			if in.Guard >= int32(len(flat.Regs)) {
				t.Errorf("%s: guard out of range", k.Name)
			}
			if c := in.Call; c != nil && c.Callee >= int32(len(flat.Funcs)) {
				t.Errorf("%s: callee out of range", k.Name)
			}
			if in.Op == OpBra && (in.Target > int32(len(flat.Instrs)) || in.Reconv > int32(len(flat.Instrs))) {
				t.Errorf("%s: branch out of range", k.Name)
			}
		}
		t.Logf("%s: %d instructions (%d its own), %d functions", k.Name, len(flat.Instrs), flat.CodeEnd, len(flat.Funcs))
	}
}

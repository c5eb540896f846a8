package cg

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKernelSource(t *testing.T) {
	for _, name := range []string{kSpMVThreadPerRow, kSpMVSubwarp, kSpMVStencil27, kDdotPartial} {
		src, err := KernelSource(name)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(src, "__global__ void "+name+"(") || !strings.HasSuffix(src, "}\n") {
			t.Errorf("KernelSource(%s) =\n%s", name, src)
		}
	}
}

// The cache keeps one computation per key for the session; a second call
// reads it back, and a broken file is computed again.
func TestCachedStages(t *testing.T) {
	key := fmt.Sprintf("test-%d", os.Getpid())
	calls := 0
	compute := func() ([]*StageResult, error) {
		calls++
		rs := make([]*StageResult, Stages)
		for s := range rs {
			rs[s] = &StageResult{Stage: s, Name: StageName(s)}
		}
		return rs, nil
	}
	t.Cleanup(func() {
		m, err := filepath.Glob(filepath.Join(os.TempDir(), "warplab-cg-"+key+"-*"))
		if err != nil {
			t.Error(err)
		}
		for _, f := range m {
			if err := os.Remove(f); err != nil {
				t.Error(err)
			}
		}
	})
	for i := range 2 {
		rs, err := cachedStages(key, compute)
		if err != nil || len(rs) != Stages || rs[8].Name != "matrix-free" {
			t.Fatalf("call %d: %v, %d stages", i, err, len(rs))
		}
	}
	if calls != 1 {
		t.Errorf("computed %d times, want once", calls)
	}
	m, err := filepath.Glob(filepath.Join(os.TempDir(), "warplab-cg-"+key+"-*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 1 {
		t.Fatalf("cache files %v", m)
	}
	if err := os.WriteFile(m[0], []byte("{broken"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := cachedStages(key, compute); err != nil || calls != 2 {
		t.Errorf("broken cache: %v, computed %d times, want 2", err, calls)
	}
}

func TestNotebookTables(t *testing.T) {
	p, err := Generate(Cube(6), GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r0, err := SolveCPU(p, SolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	prof, line := ProfileTable(r0)
	if len(prof.Rows) != len(r0.Kernels) || !strings.HasPrefix(line, "stage 0 at 6³: 149 iterations") || !strings.Contains(line, "SpMV share") {
		t.Errorf("ProfileTable: %q %q", prof.Rows, line)
	}
	rs, err := Recorded()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		tab   [][]string
		rows  int
		first string
	}{
		{"host timers", HostTimersTable(rs, RecordedLabel()).Rows, 0, "1"},
		{"idle", IdleTable(rs, RecordedLabel()).Rows, 6, "3"},
	}
	for _, tt := range tests {
		if len(tt.tab) == 0 || tt.tab[0][0] != tt.first || (tt.rows > 0 && len(tt.tab) != tt.rows) {
			t.Errorf("%s table: %q", tt.name, tt.tab)
		}
	}
	if got := MeasuredLine(rs[8]); !strings.HasPrefix(got, "stage 8 matrix-free          17.5 ms measured; 898 launches") {
		t.Errorf("MeasuredLine: %q", got)
	}
	if got := StageLine(rs[8]); !strings.HasPrefix(got, "stage 8 matrix-free") {
		t.Errorf("StageLine: %q", got)
	}
}

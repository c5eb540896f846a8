package gpuext

import (
	"context"
	"testing"

	"github.com/warplab/warplab/internal/testenv"
)

// TestLinesArrays: SAXPY's line y[i] = a*x[i] + y[i] has two loads and a
// store; each row names its array by the .cu parameter its address comes
// from (x, y, y), so the two loads read apart (the test module's PTX has
// no line information, so the names come from the address alone).
func TestLinesArrays(t *testing.T) {
	d := openSimT(t, "sim:h200")
	const n = 1000
	x := testenv.Must(Alloc[float32](d, "x", n))(t)
	y := testenv.Must(Alloc[float32](d, "y", n))(t)
	l, err := d.Launch(context.Background(), kern(saxpyModule(), "saxpy"), Config{Grid: 4, Block: 256}, int32(n), float32(2), x, y)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range l.Lines() {
		got = append(got, r.Array+" "+string(r.Op))
	}
	want := []string{"x ld", "y ld", "y st"}
	if len(got) != len(want) {
		t.Fatalf("rows %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("rows %q, want %q", got, want)
			break
		}
	}
	if tab := l.LinesTable(); len(tab.Rows) != 3 || tab.Rows[0][1] != "x[]" || tab.Rows[1][1] != "y[]" {
		t.Errorf("LinesTable rows %q: want arrays x[] and y[]", tab.Rows)
	}
}

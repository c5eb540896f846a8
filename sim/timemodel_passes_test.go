package sim

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestParseSASSLoops: an LDG counts at its source line in the smallest
// loop (backward branch to a label) that holds it; loops in listing order;
// LDGs outside every loop, and a forward branch, make no loop.
func TestParseSASSLoops(t *testing.T) {
	listing := `.text.rows:
	//## File "k.cu", line 5
        /*0000*/                   LDG.E.CONSTANT R8, [R4.64] ;
        /*0010*/              @!P0 BRA ` + "`" + `(.L_x_9) ;
.L_x_1:
	//## File "k.cu", line 6
        /*0020*/                   LDG.E.CONSTANT R9, [R8.64] ;
        /*0030*/                   LDG.E.128.CONSTANT R12, [R8.64+0x10] ;
        /*0040*/               @P1 BRA ` + "`" + `(.L_x_1) ;
.L_x_2:
        /*0050*/                   LDG.E R9, [R8.64] ;
.L_x_3:
        /*0060*/                   LDG.E R10, [R8.64] ;
        /*0070*/                   LDG.E R11, [R8.64] ;
	//## File "k.cu", line 7
        /*0080*/                   LDG.E R11, [R6.64] ;
        /*0090*/               @P2 BRA ` + "`" + `(.L_x_3) ;
	//## File "k.cu", line 6
        /*00a0*/               @P3 BRA ` + "`" + `(.L_x_2) ;
.L_x_9:
        /*00b0*/                   EXIT ;
.text.other:
	//## File "k.cu", line 6
        /*0000*/                   LDG.E R9, [R8.64] ;
`
	w, err := ParseSASSWidths([]byte(listing))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		kernel string
		line   int
		want   []int
	}{
		{"rows", 5, nil},            // outside every loop
		{"rows", 6, []int{2, 1, 2}}, // .L_x_1, then .L_x_2's own LDG, then the inner .L_x_3's
		{"rows", 7, []int{1}},       // only the inner loop
		{"other", 6, nil},           // no branch back
	}
	for _, tc := range tests {
		got := w[tc.kernel][SourceLine{File: "k.cu", Line: tc.line}].LoopLoads
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s line %d: loop loads %v, want %v", tc.kernel, tc.line, got, tc.want)
		}
	}
}

// spmvThreadRounds runs the SpMV lesson's spmvCsrThreadPerRow on one warp
// of 32 rows, row 0 long (n entries) and the rest 1 entry, with the loop
// passes of sass (nil: the PTX's), and returns the launch's load rounds,
// y and the kernel.
func spmvThreadRounds(t *testing.T, sass SASSWidths, n int) (int64, []float32, *PTXKernel, int) {
	t.Helper()
	mod := parsePTXFile(t, "../lessons/spmv/spmv.ptx")
	k, err := NewPTXKernel(mod, "spmvCsrThreadPerRow")
	if err != nil {
		t.Fatal(err)
	}
	loops := k.SetLoadPasses(sass, "test")
	rowPtr := []int32{0}
	var col []int32
	var val []float32
	for r := 0; r < 32; r++ {
		m := 1
		if r == 0 {
			m = n
		}
		for j := 0; j < m; j++ {
			col = append(col, int32((r+j)%32))
			val = append(val, float32(j%5))
		}
		rowPtr = append(rowPtr, int32(len(col)))
	}
	x := make([]float32, 32)
	for i := range x {
		x[i] = float32(i%3) - 1
	}
	d := NewDevice(testModel(t, "h200"))
	y := mustUpload(t, d, "y", make([]float32, 32))
	st, err := d.LaunchPTX(context.Background(), k, Dim1(1), Dim1(32), 0,
		mustUpload(t, d, "rowPtr", rowPtr), mustUpload(t, d, "col", col), mustUpload(t, d, "val", val),
		mustUpload(t, d, "x", x), y, uint64(32))
	if err != nil {
		t.Fatal(err)
	}
	return st.LoadRounds(), y.Data, k, loops
}

// TestLoadPassesAsCompiled: nvcc's PTX walks spmvCsrThreadPerRow's row 4
// entries a pass (a remainder loop of 1 entry first); ptxas 11.8's SASS for
// sm_90 has the same remainder loop (3 LDG) and a main loop of 16 entries
// (48 LDG). With the SASS's passes, four PTX passes of the main loop are
// one round group: a row of 4m entries waits 2 rounds a 16 entries where
// the PTX says 2 a 4. The results are the same. Where ptxas is on the
// machine the real SASS must say what the canned one does.
func TestLoadPassesAsCompiled(t *testing.T) {
	canned := SASSWidths{"spmvCsrThreadPerRow": {{File: "spmv.cu", Line: 66}: {LoopLoads: []int{3, 48}}}}
	// The warp's rounds besides the row loop: rowPtr[row], rowPtr[row+1]
	// (one round), and lanes 1..31's single entry, which is the remainder
	// loop's one pass (two rounds: col and val, then x).
	const other = 1 + 2
	for _, tc := range []struct {
		n         int
		ptx, sass int64
		note      string
	}{
		{n: 64, ptx: other + 2*16, sass: other + 2*4, note: "16 PTX passes, 4 compiled"},
		{n: 400, ptx: other + 2*100, sass: other + 2*25, note: "100 PTX passes, 25 compiled"},
		{n: 8, ptx: other + 2*2, sass: other + 2*1, note: "2 PTX passes, the SASS's 8-entry tail"},
		{n: 6, ptx: other + 2 + 2, sass: other + 2 + 2, note: "a second remainder pass, then one main pass"},
	} {
		plainR, want, k, _ := spmvThreadRounds(t, nil, tc.n)
		if n, from := k.LoadPasses(); n != 0 || !strings.Contains(from, "PTX passes") {
			t.Errorf("no SASS: LoadPasses %d, %q", n, from)
		}
		gotR, got, k, loops := spmvThreadRounds(t, canned, tc.n)
		if loops != 1 {
			t.Errorf("n=%d: %d loops unrolled further, want 1 (the main loop)", tc.n, loops)
		}
		if n, from := k.LoadPasses(); n != 1 || from != "test" {
			t.Errorf("LoadPasses %d, %q", n, from)
		}
		if plainR != tc.ptx || gotR != tc.sass {
			t.Errorf("row of %d (%s): %d rounds from the PTX, %d as compiled; want %d and %d", tc.n, tc.note, plainR, gotR, tc.ptx, tc.sass)
		}
		if !slices.Equal(got, want) {
			t.Errorf("row of %d: y %v as compiled, %v from the PTX", tc.n, got, want)
		}
	}
	sass := ptxasSASS(t, "../lessons/spmv/spmv.ptx", "the canned SASS only")
	if got := sass["spmvCsrThreadPerRow"][SourceLine{File: "spmv.cu", Line: 66}].LoopLoads; !slices.Equal(got, []int{3, 48}) {
		t.Errorf("ptxas's SASS: the row loops' LDGs at spmv.cu:66 %v, want [3 48]", got)
	}
	if got := sass["spmvCsrThreadPerRow_unroll1"][SourceLine{File: "spmv.cu", Line: 88}].LoopLoads; !slices.Equal(got, []int{3}) {
		t.Errorf("ptxas's SASS: the unroll 1 loop's LDGs at spmv.cu:88 %v, want [3]", got)
	}
}

// ptxasSASS is ptxas's SASS of the PTX module at path for sm_90 (ptxas
// -lineinfo, nvdisasm -g: PtxasSharedWidths). Where the machine has no
// ptxas the test is skipped, saying what it checked without (without).
func ptxasSASS(t *testing.T, path, without string) SASSWidths {
	t.Helper()
	if Ptxas() == "" {
		t.Skip("no ptxas on this machine: " + without)
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sass, _, err := PtxasSharedWidths(context.Background(), text, "sm_90")
	if err != nil {
		t.Fatal(err)
	}
	return sass
}

// TestPairLoops: PTX loops pair with the SASS's in order; where ptxas
// unrolled a loop again and left remainder loops beside it, those go
// unpaired; a listing that fits no such pairing pairs nothing.
func TestPairLoops(t *testing.T) {
	for _, c := range []struct {
		name      string
		ptx, sass []int
		want      []int
	}{
		{"as many of each", []int{3, 12}, []int{3, 48}, []int{0, 1}},
		{"as many, not multiples (the factor says so)", []int{3, 12}, []int{5, 7}, []int{0, 1}},
		{"matmulNaive: 8 unrolled to 32, its remainder of 8", []int{8, 2}, []int{32, 8, 2}, []int{0, 2}},
		{"a remainder after each of two copies", []int{3, 12, 3, 12}, []int{3, 48, 36, 3, 48}, []int{0, 1, 3, 4}},
		{"one loop, unrolled with a remainder", []int{4}, []int{16, 4}, []int{0}},
		{"a remainder before its loop", []int{4}, []int{4, 16}, nil},
		{"more PTX loops than SASS", []int{4, 4}, []int{16}, nil},
		{"an extra loop of other loads", []int{4}, []int{16, 3}, nil},
		{"an extra loop as long as its own", []int{4}, []int{16, 16}, nil},
	} {
		if got := pairLoops(c.ptx, c.sass); !slices.Equal(got, c.want) {
			t.Errorf("%s: pairLoops(%v, %v) = %v, want %v", c.name, c.ptx, c.sass, got, c.want)
		}
	}
}

package sim

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/warplab/warplab/sim/ptx"
)

// unrolledRows is a small PTX kernel with an unrolled shared loop: each of
// 32 threads stores and then loads the 8 words of its own 128-byte row
// (a 32-way conflicted column per word), through one 16-byte-aligned base
// register at offsets 0..28. ptxas 11.8 for sm_90 makes the 8 scalar
// stores 2 STS.128 and the 8 loads 2 LDS.128 (source lines 6 and 8).
//
// The kernel is testdata/unroll_rows.ptx (gpuext's SASSWidths test reads
// it too).
func unrolledRows(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/unroll_rows.ptx")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestParseSASSWidths reads nvdisasm -g listings: widths by suffix, the
// source line from the latest line comment, kernels by their .text label.
func TestParseSASSWidths(t *testing.T) {
	listing := `.text.rowSum:
	//## File "/tmp/x/unroll.cu", line 6
        /*00f0*/                   STS.128 [R0], R12 ;
        /*0100*/                   STS [R0+0x20], R3 ;
	//## File "unroll.cu", line 8
        /*0140*/                   LDS.128 R8, [R0] ;
        /*0150*/               @P0 LDS.64 R4, [R0+0x10] ;
        /*0160*/                   LDS.U8 R4, [R0+0x18] ;
        /*0170*/                   LDSM.16.M88.4 R4, [R0] ;
.text.other:
	//## File "unroll.cu", line 8
        /*0010*/                   LDS R2, [R0] ;
`
	w, err := ParseSASSWidths([]byte(listing))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		kernel string
		line   int
		loads  map[int]int
		stores map[int]int
	}{
		{"rowSum", 6, map[int]int{}, map[int]int{128: 1, 32: 1}},
		{"rowSum", 8, map[int]int{128: 1, 64: 1, 8: 1}, map[int]int{}},
		{"other", 8, map[int]int{32: 1}, map[int]int{}},
	}
	for _, tc := range tests {
		got := w[tc.kernel][SourceLine{File: "unroll.cu", Line: tc.line}]
		if !sameCounts(got.Loads, tc.loads) || !sameCounts(got.Stores, tc.stores) {
			t.Errorf("%s line %d: loads %v stores %v, want %v and %v", tc.kernel, tc.line, got.Loads, got.Stores, tc.loads, tc.stores)
		}
	}
}

func sameCounts(a, b map[int]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// rowSumStats runs unrolledRows on one warp, with the SASS widths when
// sass is not nil, and returns the launch's counters and output.
func rowSumStats(t *testing.T, sass SASSWidths) (*Stats, []float32, *PTXKernel, int) {
	t.Helper()
	mod, err := ptx.Parse("unroll.ptx", unrolledRows(t))
	if err != nil {
		t.Fatal(err)
	}
	k, err := NewPTXKernel(mod, "rowSum")
	if err != nil {
		t.Fatal(err)
	}
	groups := k.SetSharedWidths(sass, "test")
	d := NewDevice(testModel(t, "h200"))
	out := mustUpload(t, d, "out", make([]float32, 32))
	st, err := d.LaunchPTX(context.Background(), k, Dim1(1), Dim1(32), 0, out)
	if err != nil {
		t.Fatal(err)
	}
	return st, out.Data, k, groups
}

// TestSharedWidthsAsCompiled: where ptxas is on the machine, the unrolled
// loop's 8 word stores and 8 word loads are 2 STS.128 and 2 LDS.128 in the
// SASS, and the time model's counters take the merged accesses: 2 requests
// of 4 quarter-warps × 8 wavefronts each (the 32 lanes' rows are 128 bytes
// apart, so a quarter-warp's 8 lanes hit the same 4 banks), 64 wavefronts,
// where the PTX's widths give 8 requests of 32 (256). The kernel's results
// are the same either way. Without ptxas the PTX's widths stand and
// AccessWidths says so.
func TestSharedWidthsAsCompiled(t *testing.T) {
	plain, want, k, _ := rowSumStats(t, nil)
	if n, from := k.AccessWidths(); n != 0 || !strings.Contains(from, "PTX widths") {
		t.Errorf("no SASS: AccessWidths %d, %q; want 0 and the PTX's widths", n, from)
	}
	for _, b := range []Banked{plain.SharedLoad, plain.SharedStore} {
		if b.Requests != 8 || b.Wavefronts != 256 {
			t.Fatalf("PTX widths: %+v, want 8 requests of 32 wavefronts", b)
		}
	}
	if Ptxas() == "" {
		t.Skip("no ptxas on this machine: the PTX's widths only")
	}
	sass, from, err := PtxasSharedWidths(context.Background(), []byte(unrolledRows(t)), "sm_90")
	if err != nil {
		t.Fatal(err)
	}
	line := sass["rowSum"][SourceLine{File: "unroll.cu", Line: 8}]
	if line.Loads[128] != 2 {
		t.Fatalf("SASS at line 8: %v (%s), want 2 LDS.128", line.Loads, from)
	}
	st, got, k, groups := rowSumStats(t, sass)
	if groups != 4 {
		t.Errorf("%d merged groups, want 4 (2 of stores, 2 of loads)", groups)
	}
	if n, f := k.AccessWidths(); n != 4 || f != "test" {
		t.Errorf("AccessWidths %d, %q", n, f)
	}
	for name, b := range map[string]Banked{"loads": st.SharedLoad, "stores": st.SharedStore} {
		if b.Requests != 2 || b.Wavefronts != 64 {
			t.Errorf("%s as compiled: %+v, want 2 requests of 32 wavefronts", name, b)
		}
	}
	for i := range want {
		if got[i] != want[i] || got[i] != float32(8*i) {
			t.Fatalf("out[%d] = %v with widths, %v without, want %d", i, got[i], want[i], 8*i)
		}
	}
	if st.WarpInstructions != plain.WarpInstructions {
		t.Errorf("warp instructions %d with widths, %d without", st.WarpInstructions, plain.WarpInstructions)
	}
}

// TestGemmWidths: the sweep's shared-memory GEMMs on a 64 × 64 product,
// their 64 PTX word loads a tile step as ptxas 11.8's SASS for sm_90 has
// them. As[ty][k..k+3] is one LDS.128 that every lane of a warp reads at
// one address: 2 wavefronts (the H200's broadcast rate, sharedwide.cu), 8
// of them a step, where the PTX's 32 word broadcasts take 32. Bs stays
// word loads, 1 wavefront each, in gemmShared and gemmSharedPadded (48 a
// warp and step, where the word loads take 64); gemmSharedConflict reads Bs[tx][k..k+3] as 8 LDS.128
// whose lanes are 128 bytes apart, 4 quarter-warps of 8 wavefronts each
// (8·2 + 8·32 = 272, where the word loads cost 32 + 32·32 = 1,056). The
// results are the same either way.
func TestGemmWidths(t *testing.T) {
	if testing.Short() {
		t.Skip("ptxas on the sweep's module")
	}
	mod := parsePTXFile(t, "../internal/sweep/kernels.ptx")
	sass := ptxasSASS(t, "../internal/sweep/kernels.ptx", "nothing checked")
	const n = 64
	for _, tc := range []struct {
		kernel        string
		groups        int
		ptxWf, sassWf int64 // shared load wavefronts a warp and tile step
	}{
		{"gemmShared", 8, 64, 48},
		// 16 groups marked at the line, as its count of LDS.128 there
		// cannot tell which; Bs's rows are 33 words apart, so its
		// groups are never aligned and stay word loads.
		{"gemmSharedPadded", 16, 64, 48},
		{"gemmSharedConflict", 16, 1056, 272},
	} {
		var waves [2]int64
		var outs [2][]float32
		for i, s := range []SASSWidths{nil, sass} {
			k, err := NewPTXKernel(mod, tc.kernel)
			if err != nil {
				t.Fatal(err)
			}
			groups := k.SetSharedWidths(s, "test")
			if s != nil && groups != tc.groups {
				t.Errorf("%s: %d merged groups, want %d", tc.kernel, groups, tc.groups)
			}
			d := NewDevice(testModel(t, "h200"))
			a := make([]float32, n*n)
			for j := range a {
				a[j] = float32(j%7) - 3
			}
			A, B := mustUpload(t, d, "a", a), mustUpload(t, d, "b", a)
			C := mustUpload(t, d, "c", make([]float32, n*n))
			st, err := d.LaunchPTX(context.Background(), k, Dim2(n/32, n/32), Dim2(32, 32), 0, A, B, C, int32(n))
			if err != nil {
				t.Fatal(err)
			}
			waves[i], outs[i] = st.SharedLoad.Wavefronts, C.Data
		}
		warpSteps := int64(n/32*n/32) * 32 * (n / 32)
		if waves[0] != warpSteps*tc.ptxWf || waves[1] != warpSteps*tc.sassWf {
			t.Errorf("%s: shared load wavefronts %d (PTX) and %d (SASS), want %d and %d", tc.kernel, waves[0], waves[1], warpSteps*tc.ptxWf, warpSteps*tc.sassWf)
		}
		for j := range outs[0] {
			if outs[0][j] != outs[1][j] {
				t.Fatalf("%s: C[%d] = %v with widths, %v without", tc.kernel, j, outs[1][j], outs[0][j])
			}
		}
	}
}

// TestWideWavefronts holds wideWavefronts to the H200's rows of
// sharedwide.cu (evidence/timemodel-sharedwide-h200-2026-12-05): 32-, 64-
// and 128-bit shared loads, every lane at one address (bcast), lane l at l
// × width (seq) and lanes l and l + 16 at one address (half), at 64 warps
// an SM. The SM serves a wavefront a cycle (32-bit loads: 0.99 requests a
// cycle), so a row's requests an SM a cycle is 1 over the access's
// wavefronts; the rule's must be within 10% of each row. The phases alone
// (the rule before the bcast rows) miss both broadcasts by half or more.
func TestWideWavefronts(t *testing.T) {
	rows := readMicrobench(t, "../evidence/timemodel-sharedwide-h200-2026-12-05/sharedwide.csv")
	width := map[string]uint64{"sh_ld32": 4, "sh_ld64": 8, "sh_ld128": 16}
	lane := map[string]func(l int) int{
		"pattern=bcast": func(int) int { return 0 },
		"pattern=seq":   func(l int) int { return l },
		"pattern=half":  func(l int) int { return l & 15 },
	}
	var words [128]uint32
	n := 0
	for _, r := range rows {
		wb, ok := width[r.Name]
		if !ok || wb == 4 {
			continue
		}
		var off [32]uint64
		for l := range off {
			off[l] = uint64(lane[r.Param](l)) * wb
		}
		wf, _, lanes := wideWavefronts(off[:], ^uint32(0), wb, true, words[:])
		if lanes != 32 {
			t.Errorf("%s %s: %d lanes, want 32", r.Name, r.Param, lanes)
		}
		if got := 1 / float64(wf); math.Abs(got-r.Value)/r.Value > 0.10 {
			t.Errorf("%s %s: %d wavefronts, %.3f requests a cycle; the H200 %.3f", r.Name, r.Param, wf, got, r.Value)
		}
		n++
	}
	if n != 6 {
		t.Fatalf("%d rows of 64- and 128-bit loads, want 6", n)
	}
}

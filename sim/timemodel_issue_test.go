package sim

import (
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/warplab/warplab/sim/timing"
)

// TestIssueRounds: in-order issue waits once for each load result read
// before it is ready; loads issued before the first wait share its round;
// a value carried around the loop counts in the steady state; a wide
// destination's second register, a guard predicate and an overwritten
// pending register all wait.
func TestIssueRounds(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string // instructions, one a line
		want int
	}{
		{"no loads", "IADD3 R1, R1, 0x1, RZ\nFFMA R2, R1, R1, R2", 0},
		{"two loads, one wait", "LDG.E R4, [R2.64]\nLDG.E R5, [R2.64+0x4]\nFADD R6, R4, R5\nFADD R7, R7, R6", 1},
		{"a gather: two", "LDG.E R4, [R2.64]\nIMAD.WIDE R8, R4, 0x4, R10\nLDG.E R9, [R8.64]\nFADD R7, R7, R9", 2},
		{"use between loads: two", "LDG.E R4, [R2.64]\nFADD R7, R7, R4\nLDG.E R5, [R2.64+0x4]\nFADD R7, R7, R5", 2},
		{"a load overwritten the next pass waits for", "LDG.E R4, [R2.64]\nIADD3 R2, R2, 0x4, RZ", 1},
		{"carried: a load read next pass", "FADD R7, R7, R4\nLDG.E R4, [R2.64]\nIADD3 R2, R2, 0x4, RZ", 1},
		{"wide: the pair's high half", "LDG.E.64 R4, [R2.64]\nDADD R8, R8, R6\nMOV R9, R5", 1},
		{"guard", "LDG.E R4, [R2.64]\nISETP.NE.AND P0, PT, R4, RZ, PT\n@P0 FADD R7, R7, R1", 1},
		{"overwrite a pending register", "LDG.E R4, [R2.64]\nMOV R4, R1\nLDG.E R5, [R2.64+0x4]\nFADD R7, R7, R5", 2},
		{"store of a loaded value", "LDG.E R4, [R2.64]\nSTG.E [R6.64], R4", 1},
		{"address pair from IMAD.WIDE's high half", "LDG.E R4, [R2.64]\nIMAD.WIDE R8, R1, 0x4, R10\nMOV R9, R4\nLDG.E R5, [R8.64]\nFADD R7, R7, R5", 2},
	} {
		var body []sassIssue
		for _, l := range strings.Split(tc.body, "\n") {
			body = append(body, parseSASSIssue(l+" ;"))
		}
		if got := issueRounds(body); got != tc.want {
			t.Errorf("%s: %d rounds, want %d", tc.name, got, tc.want)
		}
	}
}

// TestParseSASSIssue: what an instruction writes and reads.
func TestParseSASSIssue(t *testing.T) {
	for _, tc := range []struct {
		text       string
		long       bool
		dest, srcs []string
	}{
		{"LDG.E.CONSTANT R9, [R16.64+-0x100] ;", true, []string{"R9"}, []string{"R16", "R17"}},
		{"LDG.E.128.CONSTANT R12, [R8.64+0x10] ;", true, []string{"R12", "R13", "R14", "R15"}, []string{"R8", "R9"}},
		{"IMAD.WIDE R8, R9, 0x4, R12.reuse ;", false, []string{"R8", "R9"}, []string{"R9", "R12"}},
		{"IADD3 R14, P2, R14, 0x80, RZ ;", false, []string{"R14", "P2"}, []string{"R14"}},
		{"ISETP.GE.AND P0, PT, R8, R3, PT ;", false, []string{"P0"}, []string{"R8", "R3"}},
		{"IADD3.X R17, RZ, R17, RZ, P2, !PT ;", false, []string{"R17"}, []string{"R17", "P2"}},
		{"@!P1 BRA `(.L_x_13) ;", false, nil, []string{"P1"}},
		{"STG.E [R2.64], R5 ;", false, nil, []string{"R2", "R3", "R5"}},
		{"LDG.E R4, desc[UR4][R2.64] ;", true, []string{"R4"}, []string{"UR4", "R2", "R3"}},
		{"EXIT ;", false, nil, nil},
	} {
		got := parseSASSIssue(tc.text)
		if got.long != tc.long || !slices.Equal(got.dest, tc.dest) || !slices.Equal(got.srcs, tc.srcs) {
			t.Errorf("%q: long %v writes %v reads %v; want %v, %v, %v", tc.text, got.long, got.dest, got.srcs, tc.long, tc.dest, tc.srcs)
		}
	}
}

// TestIssueRoundsAsPtxas: ptxas 11.8's SASS for sm_90 of the SpMV
// lesson's row loops, where ptxas is on the machine. The remainder loop (one
// element a pass: col and val, then x) waits twice a pass, as the PTX's
// levels say; the 16-element main loop of both kernels waits five times a
// pass where the PTX's grouping says two, and a round spans 4 × 2 / 5 =
// 1.6 PTX passes (Span 13).
func TestIssueRoundsAsPtxas(t *testing.T) {
	sass := ptxasSASS(t, "../lessons/spmv/spmv.ptx", "the scoreboard's canned listings only (TestIssueRounds)")
	for _, tc := range []struct {
		kernel string
		line   int
		want   []int
	}{
		{"spmvCsrThreadPerRow", 66, []int{2, 5}},
		{"spmvCsrWarpPerRow", 123, []int{2, 5}},
		{"spmvCsrThreadPerRow_unroll1", 88, []int{2}},
	} {
		if got := sass[tc.kernel][SourceLine{File: "spmv.cu", Line: tc.line}].LoopRounds; !slices.Equal(got, tc.want) {
			t.Errorf("%s spmv.cu:%d: the loops' waits a pass %v, want %v", tc.kernel, tc.line, got, tc.want)
		}
	}
	if got := passSpan(4, 2, 5); got != 13 {
		t.Errorf("passSpan(4, 2, 5) = %d, want 13", got)
	}
}

// TestPassSplit: a compiled pass that waits more often than its PTX
// passes' rounds stands for more rounds a PTX round (passSplit, in
// timing.PassUnit parts); one that waits as often or less splits
// nothing (passSpan's case). And libs' float4 walk as ptxas 11.8 compiles
// it for sm_90: nvcc's PTX pass (four int4 of columns, their sixteen
// gathers: two rounds) waits six times in the SASS, three a PTX round.
func TestPassSplit(t *testing.T) {
	for _, c := range []struct {
		factor, levels, rounds int
		want                   uint8
	}{
		{1, 2, 6, 3 * timing.PassUnit},
		{4, 2, 5, 0},  // spmvCsrThreadPerRow: rounds merge (Span 13)
		{1, 2, 2, 0},  // as the PTX
		{1, 2, 3, 12}, // 1.5
		{1, 0, 4, 0},  // no rounds in the PTX
		{1, 2, -1, 0}, // no single count in the SASS
		{1, 1, 1000, 255},
	} {
		if got := passSplit(c.factor, c.levels, c.rounds); got != c.want {
			t.Errorf("passSplit(%d, %d, %d) = %d, want %d", c.factor, c.levels, c.rounds, got, c.want)
		}
	}
	sass := ptxasSASS(t, "../lessons/libs/libs.ptx", "passSplit's table only")
	m := parsePTXFile(t, "../lessons/libs/libs.ptx")
	k, err := NewPTXKernel(m, "spmvVector4V4")
	if err != nil {
		t.Fatal(err)
	}
	k.SetLoadPasses(sass, "ptxas")
	// valLine is rowPartial's float4 of val (found by its text, so that
	// comments above it may move it): one in nvcc's remainder loop (its
	// SASS waits twice, as the PTX), four in its main loop (split).
	src, err := os.ReadFile("../lessons/libs/libs.cu")
	if err != nil {
		t.Fatal(err)
	}
	valLine := 0
	for i, l := range strings.Split(string(src), "\n") {
		if strings.Contains(l, "const float4 v = val4[q];") {
			valLine = i + 1
			break
		}
	}
	split := map[uint8]int{}
	for i := range k.code[:k.kend] {
		x := &k.code[i]
		if x.in == nil || x.tmRound == tmNoLoad {
			continue
		}
		if sl, ok := k.sourceLine(x.in); ok && sl.Line == valLine {
			split[x.tmSplit]++
		}
	}
	if want := map[uint8]int{0: 1, 3 * timing.PassUnit: 4}; !maps.Equal(split, want) {
		t.Errorf("spmvVector4V4 libs.cu:%d: loads by split %v, want %v", valLine, split, want)
	}
}

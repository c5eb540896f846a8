package ptx

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lessonPTX lists every PTX file of the repository the simulator must run:
// the lessons' and gpuext's test kernels, and this package's testdata.
func lessonPTX(t testing.TB) []string {
	t.Helper()
	files := []string{
		"../../lessons/spmv/spmv.ptx",
		"../../lessons/tiling/tiling.ptx",
		"../../lessons/cg/cg.ptx",
		"../../internal/launchbench/empty.ptx",
	}
	more, err := filepath.Glob("../../gpuext/testdata/*.ptx")
	if err != nil {
		t.Fatal(err)
	}
	local, err := filepath.Glob("testdata/*.ptx")
	if err != nil {
		t.Fatal(err)
	}
	return append(append(files, more...), local...)
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustParse(t testing.TB, name, src string) *Module {
	t.Helper()
	m, err := Parse(name, src)
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, errorLines(err))
	}
	return m
}

func mustKernel(t testing.TB, m *Module, name string) *Kernel {
	t.Helper()
	k, err := m.Kernel(name)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// errorLines spells every error of a list, one a line.
func errorLines(err error) string {
	var l ErrorList
	if errors.As(err, &l) {
		var b strings.Builder
		for _, e := range l {
			b.WriteString("\n\t" + e.Error())
		}
		return b.String()
	}
	return err.Error()
}

// TestLessonsParse: every PTX file in the repository parses and checks with
// no error, every kernel ends in ret or exit, every branch has a target
// and a reconvergence point inside the kernel.
func TestLessonsParse(t *testing.T) {
	for _, f := range lessonPTX(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src := readFile(t, f)
			m := mustParse(t, filepath.Base(f), src)
			if len(m.Kernels) == 0 {
				t.Fatal("no kernels")
			}
			if !strings.HasPrefix(m.Compiler, "Cuda compilation tools, release ") {
				t.Errorf("Compiler = %q", m.Compiler)
			}
			if m.Version == "" || m.Target == "" || m.AddressSize != 64 {
				t.Errorf("header: version %q target %q address size %d", m.Version, m.Target, m.AddressSize)
			}
			lines := strings.Split(src, "\n")
			for _, k := range m.Kernels {
				n := int32(len(k.Instrs))
				for i, in := range k.Instrs {
					if in.Line < 1 || int(in.Line) > len(lines) || !strings.Contains(collapseSpace(lines[in.Line-1]), in.Text) {
						t.Errorf("%s[%d]: line %d does not hold %q", k.Name, i, in.Line, in.Text)
					}
					if in.Op == OpBra && (in.Target < 0 || in.Target > n || in.Reconv < 0 || in.Reconv > n) {
						t.Errorf("%s[%d] %q: target %d reconv %d of %d", k.Name, i, in.Text, in.Target, in.Reconv, n)
					}
				}
				if last := k.Instrs[n-1]; last.Op != OpRet && last.Op != OpExit && last.Op != OpBra {
					t.Errorf("%s ends in %q", k.Name, last.Text)
				}
			}
		})
	}
}

// find returns the kernel's first instruction whose text is text.
func find(t *testing.T, k *Kernel, text string) *Instr {
	t.Helper()
	for i := range k.Instrs {
		if k.Instrs[i].Text == text {
			return &k.Instrs[i]
		}
	}
	t.Fatalf("%s has no %q", k.Name, text)
	return nil
}

func regName(k *Kernel, r int32) string {
	if r < 0 || int(r) >= len(k.Regs) {
		return "-"
	}
	return k.Regs[r].Name
}

// lineOf is the 1-based line of the first occurrence of s in src.
func lineOf(src, s string) int32 {
	i := strings.Index(src, s)
	if i < 0 {
		return -1
	}
	return int32(strings.Count(src[:i], "\n") + 1)
}

// TestLessonSpotChecks checks decoded fields of instructions the lessons
// rely on: a .nc load with an offset, a shuffle with its predicate output,
// mov packing two halves, a variable's address, the inlined_at caller.
func TestLessonSpotChecks(t *testing.T) {
	src := readFile(t, "../../lessons/spmv/spmv.ptx")
	m := mustParse(t, "spmv.ptx", src)
	k, err := m.Kernel("spmvCsrThreadPerRow")
	if err != nil {
		t.Fatal(err)
	}
	in := find(t, k, "ld.global.nc.u32 %r2, [%rd27+4];")
	a := in.Src[0]
	if in.Op != OpLd || in.Space != SpaceGlobal || !in.NC || in.Type != U32 || in.Vec != 1 ||
		in.NDst != 1 || in.NSrc != 1 || regName(k, in.Dst[0].Reg) != "%r2" ||
		a.Kind != OpdAddr || regName(k, a.Reg) != "%rd27" || a.Imm != 4 || a.Var != -1 || a.Param != -1 {
		t.Errorf("decoded %+v", *in)
	}
	if want := lineOf(src, "ld.global.nc.u32 \t%r2, [%rd27+4];"); in.Line != want {
		t.Errorf("line %d, want %d", in.Line, want)
	}
	if m.SourceLine(in.Loc) == "" || !strings.HasPrefix(m.SourceLine(in.Loc), "spmv.cu:") {
		t.Errorf("SourceLine = %q", m.SourceLine(in.Loc))
	}
	in = find(t, k, "ld.param.u64 %rd17, [spmvCsrThreadPerRow_param_0];")
	if in.Space != SpaceParam || in.Src[0].Param != 0 || in.Src[0].Reg != -1 {
		t.Errorf("ld.param decoded %+v", in.Src[0])
	}
	in = find(t, k, "mov.u32 %r11, %ctaid.x;")
	if in.Src[0].Kind != OpdSpecial || in.Src[0].Special != SpecialCtaidX {
		t.Errorf("special decoded %+v", in.Src[0])
	}
	in = find(t, k, "mul.wide.u32 %rd23, %r11, %r12;")
	if in.Mul != MulWide || in.Type != U32 {
		t.Errorf("mul.wide decoded %+v", *in)
	}
	in = find(t, k, "setp.ge.u64 %p1, %rd4, %rd22;")
	if in.Cmp != CmpGe || in.Type != U64 || k.Regs[in.Dst[0].Reg].Type != Pred {
		t.Errorf("setp decoded %+v", *in)
	}
	in = find(t, k, "@%p1 bra $L__BB0_9;")
	if regName(k, in.Guard) != "%p1" || in.GuardNeg || k.Instrs[in.Target].Op != OpRet || in.Reconv != in.Target {
		t.Errorf("bra decoded %+v", *in)
	}

	src = readFile(t, "../../lessons/cg/cg.ptx")
	m = mustParse(t, "cg.ptx", src)
	k, err = m.Kernel("spmvCsrSubwarp")
	if err != nil {
		t.Fatal(err)
	}
	var sh *Instr
	for i := range k.Instrs {
		if k.Instrs[i].Op == OpShfl {
			sh = &k.Instrs[i]
			break
		}
	}
	if sh == nil || sh.Shfl != ShflDown || !sh.Sync || sh.Type != B32 || sh.NDst != 2 || sh.NSrc != 4 ||
		k.Regs[sh.Dst[1].Reg].Type != Pred {
		t.Fatalf("shfl decoded %+v", sh)
	}
	if got := m.SourceLine(sh.Loc); !strings.HasPrefix(got, "sm_30_intrinsics.hpp:") {
		t.Errorf("shfl SourceLine(Loc) = %q", got)
	}
	if got := m.SourceLine(sh.Caller); !strings.HasPrefix(got, "cg.cu:") {
		t.Errorf("shfl SourceLine(Caller) = %q, want the cg.cu line that called __shfl_down_sync", got)
	}
	in = find(t, k, "mov.b64 %fd13, {%r30,%r31};")
	if in.Src[0].Kind != OpdVec || len(in.Src[0].Vec) != 2 || regName(k, in.Src[0].Vec[0]) != "%r30" {
		t.Errorf("mov pack decoded %+v", in.Src[0])
	}
	k = mustKernel(t, m, "ddotPartial")
	in = find(t, k, "mov.u32 %r7, _ZZ11ddotPartialE2sh;")
	if in.Src[0].Kind != OpdSym {
		t.Fatalf("mov of a symbol decoded %+v", in.Src[0])
	}
	if v := k.Vars[in.Src[0].Var]; v.Name != "_ZZ11ddotPartialE2sh" || v.Space != SpaceShared || v.Size != 2048 || v.Align != 8 {
		t.Errorf("shared variable %+v", *v)
	}

	m = mustParse(t, "tiling.ptx", readFile(t, "../../lessons/tiling/tiling.ptx"))
	if v := m.Vars[0]; v.Name != "smem" || !v.Extern || v.Size != 0 || v.Align != 16 || v.Space != SpaceShared {
		t.Errorf("dynamic shared %+v", *v)
	}

	m = mustParse(t, "kernels.ptx", readFile(t, "../../gpuext/testdata/kernels.ptx"))
	k = mustKernel(t, m, "params")
	var offs []int
	for _, p := range k.Params {
		offs = append(offs, p.Offset)
	}
	if got := strings.Trim(strings.Join(strings.Fields(strings.Trim(fmtInts(offs), "[]")), ","), ","); got != "0,8,16,24,32,40,48" || k.ParamBytes != 56 {
		t.Errorf("param offsets %v, %d bytes", offs, k.ParamBytes)
	}
}

func fmtInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = itoa(int64(x))
	}
	return strings.Join(s, " ")
}

// kernelSrc wraps a kernel body in a module header, so snippets stay short.
// The body's first line is line 7.
func kernelSrc(params, body string) string {
	return ".version 7.8\n.target sm_75\n.address_size 64\n\n.visible .entry k(" + params + ")\n{\n" + body + "\n}\n"
}

const regs = `	.reg .pred %p<8>;
	.reg .b16 %rs<8>;
	.reg .f32 %f<8>;
	.reg .b32 %r<16>;
	.reg .f64 %fd<8>;
	.reg .b64 %rd<16>;
`

// TestDirectives checks the module- and kernel-scope directives one by one.
func TestDirectives(t *testing.T) {
	src := `// warplab: source sha256 0 of x.cu, nvcc 12.4, -arch=compute_75
//
// Generated by NVIDIA NVVM Compiler
// Cuda compilation tools, release 12.4, V12.4.131
/* a block
   comment */
.version 8.4
.target sm_75
.address_size 64

	// .globl	k
.global .align 4 .b8 table[12] = {1, 2, 3, 4, 5};
.global .align 4 .u32 counter;
.const .align 4 .f32 coef[3] = {0f3F800000, 2, -1.5};
.const .align 8 .u64 big = 0xFFFFFFFFFFFFFFFF;
.global .align 2 .s16 neg[2] = {-1, -2};
.global .align 4 .b8 nested[2][2] = {{1, 2}, {3, 4}};
.extern .shared .align 16 .b8 dyn[];
.shared .align 4 .f32 a, b;
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.func helper(.param .b32 x) { .reg .b32 %r<2>; ret; }

.visible .entry k(
	.param .u64 .ptr .global .align 8 k_param_0,
	.param .align 4 .b8 k_param_1[12],
	.param .u8 k_param_2,
	.param .f64 k_param_3
)
.maxntid 256, 1, 1
.minnctapersm 2
.maxnreg 64
{
	.local .align 8 .b8 __local_depot0[16];
	.reg .b64 %SP;
	.reg .b64 %SPL;
	.reg .pred %p<3>;
	.reg .b32 %r<9>;
	.reg .b64 %rd<4>;
	.shared .align 4 .b8 tile[1024];

	.loc 1 10 3
	mov.u64 %SPL, __local_depot0;
	cvta.local.u64 %SP, %SPL;
	ld.param.u64 %rd1, [k_param_0];
	ld.param.u32 %r1, [k_param_1+8];
	.pragma "nounroll";
	.loc 1 11 5, function_name $L__info_string0, inlined_at 1 20 7
	st.local.u32 [%SPL+4], %r1;
	{
	.reg .b32 %r<2>;
	mov.u32 %r1, tile;
	}
	ld.shared.f32 %r2, [tile+8];
	ld.global.u32 %r3, [table+-4];
	ld.const.f32 %r4, [coef];
	ret;
}
	.file	1 "/home/u/src/x.cu", 1700000000, 1234
	.section	.debug_str
	{
$L__info_string0:
.b8 95,90,0
	}
`
	m := mustParse(t, "x.ptx", src)
	if m.Compiler != "Cuda compilation tools, release 12.4, V12.4.131" || m.Version != "8.4" || m.Target != "sm_75" {
		t.Errorf("header %q %q %q", m.Compiler, m.Version, m.Target)
	}
	byName := map[string]*Var{}
	for _, v := range m.Vars {
		byName[v.Name] = v
	}
	checks := []struct {
		name  string
		space Space
		size  int
		align int
		init  []byte
	}{
		{"table", SpaceGlobal, 12, 4, []byte{1, 2, 3, 4, 5, 0, 0, 0, 0, 0, 0, 0}},
		{"counter", SpaceGlobal, 4, 4, nil},
		{"coef", SpaceConst, 12, 4, []byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 0, 0, 0xc0, 0xbf}},
		{"big", SpaceConst, 8, 8, []byte{255, 255, 255, 255, 255, 255, 255, 255}},
		{"neg", SpaceGlobal, 4, 2, []byte{0xff, 0xff, 0xfe, 0xff}},
		{"nested", SpaceGlobal, 4, 4, []byte{1, 2, 3, 4}},
		{"dyn", SpaceShared, 0, 16, nil},
		{"a", SpaceShared, 4, 4, nil},
		{"b", SpaceShared, 4, 4, nil},
	}
	for _, c := range checks {
		v := byName[c.name]
		if v == nil {
			t.Errorf("no variable %s", c.name)
			continue
		}
		if v.Space != c.space || v.Size != c.size || v.Align != c.align || string(v.Init) != string(c.init) {
			t.Errorf("%s = %+v, want space %d size %d align %d init %v", c.name, *v, c.space, c.size, c.align, c.init)
		}
	}
	if !byName["dyn"].Extern {
		t.Error("dyn not extern")
	}
	k, err := m.Kernel("k")
	if err != nil {
		t.Fatal(err)
	}
	wantParams := []Param{
		{Name: "k_param_0", Type: U64, Size: 8, Align: 8, Offset: 0, Ptr: true},
		{Name: "k_param_1", Type: B8, Size: 12, Align: 4, Offset: 8},
		{Name: "k_param_2", Type: U8, Size: 1, Align: 1, Offset: 20},
		{Name: "k_param_3", Type: F64, Size: 8, Align: 8, Offset: 24},
	}
	for i, p := range wantParams {
		if i >= len(k.Params) || k.Params[i] != p {
			t.Errorf("param %d = %+v, want %+v", i, k.Params[i:], p)
		}
	}
	if k.ParamBytes != 32 || k.MaxNTid != [3]int{256, 1, 1} {
		t.Errorf("ParamBytes %d MaxNTid %v", k.ParamBytes, k.MaxNTid)
	}
	// The module variables the kernel names, in module order, then its own.
	var names []string
	for _, v := range k.Vars {
		names = append(names, v.Name)
	}
	if got := strings.Join(names, " "); got != "table coef __local_depot0 tile" || k.Vars[2].Space != SpaceLocal {
		t.Errorf("kernel vars %s", got)
	}
	in := find(t, k, "mov.u64 %SPL, __local_depot0;")
	if in.Loc != (Loc{1, 10, 3}) || in.Caller != (Loc{}) || m.SourceLine(in.Loc) != "x.cu:10" {
		t.Errorf("loc %+v caller %+v %q", in.Loc, in.Caller, m.SourceLine(in.Loc))
	}
	in = find(t, k, "st.local.u32 [%SPL+4], %r1;")
	if in.Loc != (Loc{1, 11, 5}) || in.Caller != (Loc{1, 20, 7}) {
		t.Errorf("inlined loc %+v caller %+v", in.Loc, in.Caller)
	}
	if in.Src[0].Kind != OpdAddr || regName(k, in.Src[0].Reg) != "%SPL" || in.Src[0].Imm != 4 {
		t.Errorf("st address %+v", in.Src[0])
	}
	// The nested scope's %r1 is its own register.
	inner := find(t, k, "mov.u32 %r1, tile;")
	outer := find(t, k, "ld.param.u32 %r1, [k_param_1+8];")
	if inner.Dst[0].Reg == outer.Dst[0].Reg || k.Vars[inner.Src[0].Var].Name != "tile" {
		t.Errorf("scoped register: inner %d outer %d", inner.Dst[0].Reg, outer.Dst[0].Reg)
	}
	if outer.Src[0].Param != 1 || outer.Src[0].Imm != 8 {
		t.Errorf("param address %+v", outer.Src[0])
	}
	in = find(t, k, "ld.global.u32 %r3, [table+-4];")
	if k.Vars[in.Src[0].Var].Name != "table" || int64(in.Src[0].Imm) != -4 || in.Src[0].Reg != -1 {
		t.Errorf("symbol address %+v", in.Src[0])
	}
	if m.SourceLine(Loc{}) != "" || m.SourceLine(Loc{File: 7, Line: 1}) != "" {
		t.Error("SourceLine of no line info is not empty")
	}
	if _, err := m.Kernel("nope"); err == nil || !strings.Contains(err.Error(), "kernels: k") {
		t.Errorf("Kernel(nope) = %v", err)
	}
}

// TestOperands checks each operand form and immediate spelling.
func TestOperands(t *testing.T) {
	type check func(k *Kernel, in *Instr) bool
	imm := func(i int, v uint64) check {
		return func(k *Kernel, in *Instr) bool { return in.Src[i].Kind == OpdImm && in.Src[i].Imm == v }
	}
	f32 := func(f float32) uint64 { return uint64(math.Float32bits(f)) }
	cases := []struct {
		text string
		ok   check
	}{
		{"add.s32 %r1, %r2, -1;", imm(1, 0xFFFFFFFF)},
		{"add.s64 %rd1, %rd2, -1;", imm(1, math.MaxUint64)},
		{"add.s32 %r1, %r2, 0x7fffffff;", imm(1, 0x7fffffff)},
		{"and.b32 %r1, %r2, 0b1010;", imm(1, 10)},
		{"and.b32 %r1, %r2, 017;", imm(1, 15)},
		{"add.u32 %r1, %r2, 10U;", imm(1, 10)},
		{"add.s16 %rs1, %rs2, -2;", imm(1, 0xFFFE)},
		{"mov.f32 %f1, 0f3F800000;", imm(0, f32(1))},
		{"mov.f32 %f1, 1;", imm(0, f32(1))},
		{"mov.f32 %f1, -3;", imm(0, f32(-3))},
		{"mov.f32 %f1, 0.5;", imm(0, f32(0.5))},
		{"mov.f32 %f1, 0d3FF0000000000000;", imm(0, f32(1))},
		{"mov.f64 %fd1, 0d3FF0000000000000;", imm(0, math.Float64bits(1))},
		{"mov.f64 %fd1, 2;", imm(0, math.Float64bits(2))},
		{"mov.f64 %fd1, 0f3F800000;", imm(0, math.Float64bits(1))},
		{"mov.b32 %r1, 0f3F800000;", imm(0, 0x3F800000)},
		{"mov.u32 %r1, WARP_SZ;", imm(0, 32)},
		{"mov.pred %p1, 1;", imm(0, 1)},
		{"shl.b64 %rd1, %rd2, 3;", imm(1, 3)},
		{"mov.u32 %r1, %laneid;", func(k *Kernel, in *Instr) bool { return in.Src[0].Special == SpecialLaneID }},
		{"mov.u32 %r1, %lanemask_lt;", func(k *Kernel, in *Instr) bool { return in.Src[0].Special == SpecialLaneMaskLt }},
		{"mov.u32 %r1, %nctaid.z;", func(k *Kernel, in *Instr) bool { return in.Src[0].Special == SpecialNctaidZ }},
		{"cvt.u64.u32 %rd1, %tid.y;", func(k *Kernel, in *Instr) bool { return in.Src[0].Special == SpecialTidY && in.SrcType == U32 }},
		{"setp.lt.and.s32 %p1|%p2, %r1, %r2, !%p3;", func(k *Kernel, in *Instr) bool {
			return in.NDst == 2 && regName(k, in.Dst[1].Reg) == "%p2" && in.Bool == BoolAnd && in.Src[2].Neg && regName(k, in.Src[2].Reg) == "%p3"
		}},
		{"setp.nan.f32 %p1, %f1, 0f00000000;", func(k *Kernel, in *Instr) bool { return in.Cmp == CmpNan && in.NDst == 1 }},
		{"@!%p2 add.s32 %r1, %r1, 1;", func(k *Kernel, in *Instr) bool { return regName(k, in.Guard) == "%p2" && in.GuardNeg }},
		{"ld.global.v4.f32 {%f1, %f2, _, %f4}, [%rd1+16];", func(k *Kernel, in *Instr) bool {
			v := in.Dst[0]
			return in.Vec == 4 && v.Kind == OpdVec && len(v.Vec) == 4 && v.Vec[2] == -1 && regName(k, v.Vec[3]) == "%f4" && in.Src[0].Imm == 16
		}},
		{"st.shared.v2.u32 [%r1], {%r2, %r3};", func(k *Kernel, in *Instr) bool {
			return in.NDst == 0 && in.NSrc == 2 && in.Src[1].Kind == OpdVec && in.Vec == 2 && in.Space == SpaceShared
		}},
		{"ld.u32 %r1, [%rd1];", func(k *Kernel, in *Instr) bool { return in.Space == SpaceGeneric }},
		{"ld.global.u8 %rs1, [%rd1];", func(k *Kernel, in *Instr) bool { return in.Type == U8 }},
		{"ld.global.s8 %r1, [%rd1];", func(k *Kernel, in *Instr) bool { return in.Type == S8 }},
		{"ld.global.L1::evict_last.u32 %r1, [%rd1];", func(k *Kernel, in *Instr) bool { return in.Op == OpLd }},
		{"ld.shared::cta.u32 %r1, [%r2];", func(k *Kernel, in *Instr) bool { return in.Space == SpaceShared }},
		{"ld.global.u32 %r1, [0];", func(k *Kernel, in *Instr) bool { return in.Src[0].Reg == -1 && in.Src[0].Var == -1 }},
		{"mov.b64 {%r1, %r2}, %rd1;", func(k *Kernel, in *Instr) bool { return in.Dst[0].Kind == OpdVec && len(in.Dst[0].Vec) == 2 }},
		{"mov.b32 %r1, {%rs1, %rs2};", func(k *Kernel, in *Instr) bool { return in.Src[0].Kind == OpdVec }},
		{"mov.b32 %f1, %r1;", func(k *Kernel, in *Instr) bool { return in.Op == OpMov }},
		{"shfl.sync.bfly.b32 %r1|%p1, %r2, 16, 31, -1;", func(k *Kernel, in *Instr) bool {
			return in.Shfl == ShflBfly && in.Src[3].Imm == 0xFFFFFFFF && in.NDst == 2
		}},
		{"shfl.sync.idx.b32 %r1, %r2, 0, 31, -1;", func(k *Kernel, in *Instr) bool { return in.Shfl == ShflIdx && in.NDst == 1 }},
		{"vote.sync.ballot.b32 %r1, !%p1, -1;", func(k *Kernel, in *Instr) bool {
			return in.Vote == VoteBallot && in.Src[0].Neg && in.Type == B32
		}},
		{"vote.sync.all.pred %p1, %p2, %r1;", func(k *Kernel, in *Instr) bool { return in.Vote == VoteAll }},
		{"atom.global.add.f32 %f1, [%rd1], %f2;", func(k *Kernel, in *Instr) bool {
			return in.Atom == AtomAdd && in.Space == SpaceGlobal && in.NDst == 1 && in.NSrc == 2
		}},
		{"atom.shared.cas.b32 %r1, [%r2], %r3, %r4;", func(k *Kernel, in *Instr) bool { return in.Atom == AtomCAS && in.NSrc == 3 }},
		{"atom.add.u64 %rd1, [%rd2], 1;", func(k *Kernel, in *Instr) bool { return in.Space == SpaceGeneric }},
		{"atom.relaxed.gpu.global.max.s32 %r1, [%rd1], %r2;", func(k *Kernel, in *Instr) bool { return in.Atom == AtomMax && in.Scope == ".gpu" }},
		{"red.global.add.f32 [%rd1], %f1;", func(k *Kernel, in *Instr) bool { return in.Op == OpRed && in.NDst == 0 && in.NSrc == 2 }},
		{"red.shared.xor.b32 [%r1], %r2;", func(k *Kernel, in *Instr) bool { return in.Atom == AtomXor }},
		{"bar.sync 0;", func(k *Kernel, in *Instr) bool { return in.Op == OpBar && in.Sync && in.NSrc == 1 }},
		{"barrier.sync.aligned 1, 64;", func(k *Kernel, in *Instr) bool { return in.Op == OpBar && in.NSrc == 2 && in.Src[1].Imm == 64 }},
		{"barrier.sync %r1;", func(k *Kernel, in *Instr) bool { return in.Src[0].Kind == OpdReg }},
		{"bar.warp.sync -1;", func(k *Kernel, in *Instr) bool {
			return in.Op == OpMembar && in.Sync && in.NSrc == 1 && in.Src[0].Imm == 0xFFFFFFFF
		}},
		{"membar.gl;", func(k *Kernel, in *Instr) bool { return in.Op == OpMembar && in.Scope == ".gl" }},
		{"fence.acq_rel.gpu;", func(k *Kernel, in *Instr) bool { return in.Op == OpMembar && in.Scope == ".gpu" }},
		{"fence.sc.cta;", func(k *Kernel, in *Instr) bool { return in.Op == OpMembar }},
		{"cvt.rn.f32.s32 %f1, %r1;", func(k *Kernel, in *Instr) bool { return in.Round == RoundRN && in.Type == F32 && in.SrcType == S32 }},
		{"cvt.rzi.s32.f32 %r1, %f1;", func(k *Kernel, in *Instr) bool { return in.Round == RoundRZI }},
		{"cvt.rn.ftz.sat.f32.f64 %f1, %fd1;", func(k *Kernel, in *Instr) bool { return in.Ftz && in.Sat }},
		{"cvt.f64.f32 %fd1, %f1;", func(k *Kernel, in *Instr) bool { return in.Round == RoundNone }},
		{"cvt.rni.f32.f32 %f1, %f2;", func(k *Kernel, in *Instr) bool { return in.Round == RoundRNI }},
		{"cvt.u16.u32 %rs1, %r1;", func(k *Kernel, in *Instr) bool { return in.Type == U16 }},
		{"cvt.s64.s16 %rd1, %rs1;", func(k *Kernel, in *Instr) bool { return in.SrcType == S16 }},
		{"cvta.shared.u64 %rd1, %rd2;", func(k *Kernel, in *Instr) bool { return !in.CvtaTo && in.Space == SpaceShared }},
		{"cvta.to.global.u64 %rd1, %rd2;", func(k *Kernel, in *Instr) bool { return in.CvtaTo && in.Space == SpaceGlobal }},
		{"prefetch.global.L2 [%rd1];", func(k *Kernel, in *Instr) bool { return in.Op == OpMembar && in.Prefetch && in.Src[0].Kind == OpdAddr }},
		{"addc.cc.u32 %r1, %r2, %r3;", func(k *Kernel, in *Instr) bool {
			return in.CarryIn && in.CarryOut && in.NSrc == 3 && in.NDst == 2 && in.Src[2].Reg == in.Dst[1].Reg && k.Regs[in.Dst[1].Reg].Name == "%cc"
		}},
		{"mad.wide.s32 %rd1, %r1, 4, %rd2;", func(k *Kernel, in *Instr) bool { return in.Mul == MulWide && in.Type == S32 }},
		{"mad.lo.s32 %r1, %r2, %r3, %r4;", func(k *Kernel, in *Instr) bool { return in.Mul == MulLo }},
		{"mul.hi.u32 %r1, %r2, %r3;", func(k *Kernel, in *Instr) bool { return in.Mul == MulHi }},
		{"mul.rn.f64 %fd1, %fd2, %fd3;", func(k *Kernel, in *Instr) bool { return in.Round == RoundRN && in.Mul == MulNone }},
		{"fma.rn.ftz.sat.f32 %f1, %f2, %f3, %f4;", func(k *Kernel, in *Instr) bool { return in.Ftz && in.Sat }},
		{"div.full.f32 %f1, %f2, %f3;", func(k *Kernel, in *Instr) bool { return in.Full }},
		{"div.approx.ftz.f32 %f1, %f2, %f3;", func(k *Kernel, in *Instr) bool { return in.Approx && in.Ftz }},
		{"div.rn.f64 %fd1, %fd2, %fd3;", func(k *Kernel, in *Instr) bool { return in.Round == RoundRN }},
		{"div.s32 %r1, %r2, %r3;", func(k *Kernel, in *Instr) bool { return in.Op == OpDiv }},
		{"rem.u64 %rd1, %rd2, 10;", func(k *Kernel, in *Instr) bool { return in.Op == OpRem }},
		{"rcp.rn.f64 %fd1, %fd2;", func(k *Kernel, in *Instr) bool { return in.Op == OpRcp }},
		{"rcp.approx.ftz.f64 %fd1, %fd2;", func(k *Kernel, in *Instr) bool { return in.Approx && in.Ftz }},
		{"sqrt.approx.f32 %f1, %f2;", func(k *Kernel, in *Instr) bool { return in.Approx }},
		{"rsqrt.approx.ftz.f32 %f1, %f2;", func(k *Kernel, in *Instr) bool { return in.Op == OpRsqrt }},
		{"ex2.approx.ftz.f32 %f1, %f2;", func(k *Kernel, in *Instr) bool { return in.Op == OpEx2 }},
		{"lg2.approx.f32 %f1, %f2;", func(k *Kernel, in *Instr) bool { return in.Op == OpLg2 }},
		{"min.ftz.f32 %f1, %f2, %f3;", func(k *Kernel, in *Instr) bool { return in.Op == OpMin && in.Ftz }},
		{"max.u64 %rd1, %rd2, %rd3;", func(k *Kernel, in *Instr) bool { return in.Op == OpMax }},
		{"abs.s32 %r1, %r2;", func(k *Kernel, in *Instr) bool { return in.Op == OpAbs }},
		{"neg.f64 %fd1, %fd2;", func(k *Kernel, in *Instr) bool { return in.Op == OpNeg }},
		{"not.pred %p1, %p2;", func(k *Kernel, in *Instr) bool { return in.Type == Pred }},
		{"or.pred %p1, %p2, %p3;", func(k *Kernel, in *Instr) bool { return in.Op == OpOr }},
		{"xor.b64 %rd1, %rd2, %rd3;", func(k *Kernel, in *Instr) bool { return in.Op == OpXor }},
		{"popc.b64 %r1, %rd1;", func(k *Kernel, in *Instr) bool { return in.Type == B64 }},
		{"clz.b32 %r1, %r2;", func(k *Kernel, in *Instr) bool { return in.Op == OpClz }},
		{"brev.b32 %r1, %r2;", func(k *Kernel, in *Instr) bool { return in.Op == OpBrev }},
		{"bfe.s32 %r1, %r2, 8, 4;", func(k *Kernel, in *Instr) bool { return in.NSrc == 3 }},
		{"bfi.b64 %rd1, %rd2, %rd3, 8, 4;", func(k *Kernel, in *Instr) bool { return in.NSrc == 4 }},
		{"selp.f32 %f1, 0f3F800000, %f2, %p1;", func(k *Kernel, in *Instr) bool { return in.Src[0].Imm == f32(1) }},
		{"shr.s32 %r1, %r2, %r3;", func(k *Kernel, in *Instr) bool { return in.Type == S32 }},
		{"sub.sat.s32 %r1, %r2, %r3;", func(k *Kernel, in *Instr) bool { return in.Sat }},
		{"add.rz.ftz.f32 %f1, %f2, %f3;", func(k *Kernel, in *Instr) bool { return in.Round == RoundRZ }},
		{"exit;", func(k *Kernel, in *Instr) bool { return in.Op == OpExit }},
		{"ret.uni;", func(k *Kernel, in *Instr) bool { return in.Op == OpRet && in.Uni }},
	}
	for _, c := range cases {
		src := kernelSrc("", regs+"\t"+c.text+"\n\tret;")
		m, err := Parse("op.ptx", src)
		if err != nil {
			t.Errorf("%s: %v", c.text, errorLines(err))
			continue
		}
		k := m.Kernels[0]
		in := &k.Instrs[0]
		if in.Text != c.text || in.Line != 13 {
			t.Errorf("%s: Text %q Line %d", c.text, in.Text, in.Line)
		}
		if !c.ok(k, in) {
			t.Errorf("%s: decoded %+v", c.text, *in)
		}
	}
}

// TestInlineAsmRegisters: inline asm declares registers without a %, in
// a nested scope.
func TestInlineAsmRegisters(t *testing.T) {
	m := mustParse(t, "asm.ptx", kernelSrc("", regs+`
	{
	.reg .pred p;
	.reg .b64 addr;
	setp.ne.b32 p, %r1, 0;
	selp.u32 %r2, 1, 0, p;
	@!p bra $L;
	cvta.to.global.u64 addr, %rd1;
	ld.global.u32 %r3, [addr+4];
	}
$L:
	ret;`))
	k := m.Kernels[0]
	if in := k.Instrs[2]; regName(k, in.Guard) != "p" || !in.GuardNeg {
		t.Errorf("guard %+v", in)
	}
	if in := k.Instrs[4]; regName(k, in.Src[0].Reg) != "addr" || in.Src[0].Imm != 4 {
		t.Errorf("address %+v", in.Src[0])
	}
}

// TestOldLabels: the label spellings of older nvcc (BB0_3, $BB0_3) work too.
func TestOldLabels(t *testing.T) {
	m := mustParse(t, "old.ptx", kernelSrc("", regs+`
	@%p1 bra BB0_3;
	@!%p1 bra.uni $BB0_4;
BB0_3:
	add.s32 %r1, %r1, 1;
$BB0_4:
	ret;`))
	k := m.Kernels[0]
	if k.Instrs[0].Target != 2 || k.Instrs[1].Target != 3 || !k.Instrs[1].Uni {
		t.Errorf("targets %d %d", k.Instrs[0].Target, k.Instrs[1].Target)
	}
}

// TestFeaturesPTX checks what nvcc 11.8 emitted for testdata/features.cu:
// every shuffle mode and vote, every atomic, constant and global
// initializers, a struct parameter, a local array.
func TestFeaturesPTX(t *testing.T) {
	m := mustParse(t, "features.ptx", readFile(t, "testdata/features.ptx"))
	ops := map[string]bool{}
	for _, k := range m.Kernels {
		for _, in := range k.Instrs {
			switch in.Op {
			case OpShfl:
				ops["shfl"+itoa(int64(in.Shfl))] = true
			case OpVote:
				ops["vote"+itoa(int64(in.Vote))] = true
			case OpAtom:
				ops["atom"+itoa(int64(in.Atom))+in.Type.String()] = true
			}
		}
	}
	want := []string{"shfl1", "shfl2", "shfl3", "shfl4", "vote1", "vote2", "vote4"}
	for a := AtomAdd; a <= AtomXor; a++ {
		if a != AtomInc && a != AtomDec {
			want = append(want, "atom"+itoa(int64(a))+"b32")
		}
	}
	for _, w := range want {
		w = strings.NewReplacer("atom1b32", "atom1f32", "atom2b32", "atom2s32", "atom3b32", "atom3s32").Replace(w)
		if !ops[w] {
			t.Errorf("no %s in %v", w, ops)
		}
	}
	vars := map[string]*Var{}
	for _, v := range m.Vars {
		vars[v.Name] = v
	}
	if v := vars["coef"]; v == nil || v.Space != SpaceConst || string(v.Init) != "\x00\x00\x80\x3f\x00\x00\x00\x3f\x00\x00\x80\x3e\x00\x00\x00\x3e" {
		t.Errorf("coef = %+v", v)
	}
	if v := vars["counter"]; v == nil || v.Space != SpaceGlobal || string(v.Init) != "\x07\x00\x00\x00" {
		t.Errorf("counter = %+v", v)
	}
	k, err := m.Kernel("control")
	if err != nil {
		t.Fatal(err)
	}
	if p := k.Params[0]; p.Type != B8 || p.Size != 16 || p.Align != 8 || p.Offset != 0 {
		t.Errorf("struct param %+v", p)
	}
	in := find(t, k, "ld.param.f64 %fd1, [control_param_0+8];")
	if in.Src[0].Param != 0 || in.Src[0].Imm != 8 {
		t.Errorf("struct member %+v", in.Src[0])
	}
	in = find(t, k, "mov.u64 %SPL, __local_depot3;")
	if v := k.Vars[in.Src[0].Var]; v.Space != SpaceLocal || v.Size != 32 || v.Align != 16 {
		t.Errorf("local depot %+v", v)
	}
	k = mustKernel(t, m, "atomics")
	in = find(t, k, "mov.u64 %rd19, counter;")
	if v := k.Vars[in.Src[0].Var]; v.Name != "counter" {
		t.Errorf("counter address %+v", v)
	}
	for _, k := range m.Kernels {
		for _, in := range k.Instrs {
			// nvcc writes line 0 for code of no source line (SourceLine: "").
			if in.Loc.File == 0 || in.Loc.Line > 0 && !strings.HasPrefix(m.SourceLine(in.Loc), "features.cu:") && in.Caller == (Loc{}) {
				t.Errorf("%s %q: loc %+v (%q)", k.Name, in.Text, in.Loc, m.SourceLine(in.Loc))
				break
			}
		}
	}
}

// TestNvcc12Style checks the forms of CUDA 12's -lineinfo PTX.
func TestNvcc12Style(t *testing.T) {
	m := mustParse(t, "nvcc12_style.ptx", readFile(t, "testdata/nvcc12_style.ptx"))
	if m.Compiler != "Cuda compilation tools, release 12.4, V12.4.131" || m.Version != "8.4" {
		t.Errorf("header %q %q", m.Compiler, m.Version)
	}
	k, err := m.Kernel("_Z6reducePKfPfi")
	if err != nil {
		t.Fatal(err)
	}
	if p := k.Params[1]; !p.Ptr || p.Align != 8 || p.Offset != 8 || k.ParamBytes != 20 || k.MaxNTid != [3]int{256, 1, 1} {
		t.Errorf("params %+v, %d bytes, maxntid %v", k.Params, k.ParamBytes, k.MaxNTid)
	}
	in := find(t, k, "shfl.sync.bfly.b32 %r10|%p2, %r6, %r8, %r7, %r9;")
	if m.SourceLine(in.Loc) != "sm_30_intrinsics.hpp:433" || m.SourceLine(in.Caller) != "reduce.cu:12" {
		t.Errorf("shfl at %q called from %q", m.SourceLine(in.Loc), m.SourceLine(in.Caller))
	}
	in = find(t, k, "ld.global.nc.L1::no_allocate.f32 %f11, [%rd5];")
	if !in.NC || m.SourceLine(in.Loc) != "reduce.cu:10" || in.Caller != (Loc{}) {
		t.Errorf("ld %+v at %q", *in, m.SourceLine(in.Loc))
	}
	in = find(t, k, "barrier.sync 0;")
	if in.Op != OpBar || !in.Sync {
		t.Errorf("barrier %+v", *in)
	}
}

// TestPerfDirectives: .reqntid with fewer than three sizes fills in ones;
// .minnctapersm, .maxnreg and .pragma between the parameters and the body.
func TestPerfDirectives(t *testing.T) {
	src := ".version 7.8\n.visible .entry k() .reqntid 128, 2 .minnctapersm 4 .maxnreg 32 .pragma \"nounroll\";\n{\n\tret;\n}\n"
	k := mustParse(t, "p.ptx", src).Kernels[0]
	if k.ReqNTid != [3]int{128, 2, 1} || k.MaxNTid != [3]int{} || len(k.Instrs) != 1 {
		t.Errorf("reqntid %v maxntid %v", k.ReqNTid, k.MaxNTid)
	}
}

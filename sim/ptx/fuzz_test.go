package ptx

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// seedSnippets are small PTX texts for the fuzzer to start from, besides the
// lessons: each directive and operand form.
var seedSnippets = []string{
	// The 16-bit float forms, the carry chains, packed constants, prefetch.
	kernelSrc("", regs+"\tfma.rn.f16x2 %r1, %r2, %r3, %r4;\n\tfma.rn.bf16 %rs1, %rs2, %rs3, %rs4;\n\tcvt.rn.bf16x2.f32 %r5, %f1, %f2;\n\tmov.b32 %f3, {0, %rs1};\n\tatom.global.add.noftz.f16x2 %r6, [%rd1], %r1;\n\tret;"),
	kernelSrc("", regs+"\tadd.cc.u32 %r1, %r2, %r3;\n\taddc.cc.u32 %r4, %r5, %r6;\n\tmadc.hi.u32 %r7, %r1, %r4, %r2;\n\tsub.cc.u32 %r8, %r1, 1;\n\tsubc.u32 %r9, %r8, %r2;\n\tprefetch.global.L2 [%rd1];\n\tret;"),
	kernelSrc("", regs+"\tld.global.v4.f32 {%f1, %f2, _, %f4}, [%rd1+16];\n\tret;"),
	kernelSrc("", regs+"\tsetp.lt.and.s32 %p1|%p2, %r1, %r2, !%p3;\n\t@!%p1 bra $L;\n$L:\n\tret;"),
	kernelSrc("", regs+"\tshfl.sync.bfly.b32 %r1|%p1, %r2, 16, 31, -1;\n\tvote.sync.ballot.b32 %r1, !%p1, -1;\n\tret;"),
	kernelSrc("", regs+"\tmov.b64 {%r1, %r2}, %rd1;\n\tmov.b64 %rd1, {%r1, %r2};\n\tmov.f32 %f1, 0f3F800000;\n\tmov.f64 %fd1, 0d3FF0000000000000;\n\tret;"),
	kernelSrc("", regs+"\tatom.shared.cas.b32 %r1, [%r2], %r3, %r4;\n\tred.global.add.f32 [%rd1], %f1;\n\tbar.sync 0;\n\tmembar.gl;\n\tret;"),
	kernelSrc(".param .align 4 .b8 p[12]", regs+"\tld.param.u32 %r1, [p+8];\n\t.loc 1 3 4, function_name $L__info_string0, inlined_at 1 5 6\n\tret;\n") + "\t.file 1 \"a.cu\"\n",
	".global .align 4 .b8 t[4] = {1, 2, 3, 4};\n.extern .shared .align 16 .b8 s[];\n.const .f32 c[2] = {1.5, 0f3F800000};\n" +
		".section .debug_str { $L__info_string0: .b8 65,0 }\n/* c */\n.visible .entry e() .reqntid 32 { .reg .b32 %r<2>; { .reg .b32 %q; mov.u32 %q, s; } ret; }\n",
	kernelSrc("", regs+"\ttex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [tex0, {%r1}];\n\tcall.uni (retval0), vprintf, (param0, param1);\n"),
}

// FuzzParse: any input gives a module or an error, never a panic or a
// hang, and a module's indices all point inside it (so the executor can
// index without checks).
func FuzzParse(f *testing.F) {
	// The lessons enter one kernel at a time (with the module's header and
	// variables): whole files of 100 KB make the fuzzer spend its time
	// minimizing rather than exploring.
	for _, p := range lessonPTX(f) {
		src := readFile(f, p)
		parts := strings.Split(src, "\n.visible .entry ")
		for _, k := range parts[1:] {
			f.Add(parts[0] + "\n.visible .entry " + k)
		}
	}
	for _, s := range seedSnippets {
		f.Add(s)
	}
	// The simulator's corpus: device functions and calls, printf, module
	// variables, the sm_70/sm_80 warp instructions, WMMA, mma.sync.
	corpus, _ := filepath.Glob("../testdata/corpus/*.ptx")
	for _, p := range corpus {
		f.Add(readFile(f, p))
	}
	for _, c := range reconvCases {
		f.Add(kernelSrc("", regs+c.body))
	}
	f.Fuzz(func(t *testing.T, src string) {
		m, err := Parse("fuzz.ptx", src)
		if (m == nil) == (err == nil) {
			t.Fatalf("module %v and error %v", m, err)
		}
		if err != nil {
			var l ErrorList
			if !errors.As(err, &l) || len(l) == 0 || len(l) > maxErrors {
				t.Fatalf("error %T %v", err, err)
			}
			for _, e := range l {
				if e.Line < 0 || e.Msg == "" {
					t.Fatalf("bad error %+v", e)
				}
			}
			return
		}
		for _, k := range m.Kernels {
			checkIndices(t, m, k)
			// A kernel with its functions appended holds together too.
			flat, err := m.Flatten(k)
			if err != nil {
				continue
			}
			checkIndices(t, m, flat)
			for i := range flat.Instrs {
				if c := flat.Instrs[i].Call; c != nil && (c.Callee >= int32(len(flat.Funcs)) || c.Callee < CalleeIndirect || c.Callee == CalleeIndirect && (c.Reg < 0 || int(c.Reg) >= len(flat.Regs))) {
					t.Fatalf("%s: callee %d of %d", flat.Name, c.Callee, len(flat.Funcs))
				}
			}
		}
		// ParseKernels keeps what Parse refuses only inside kernels.
		if _, err := ParseKernels("fuzz.ptx", src); err != nil {
			t.Fatalf("ParseKernels refuses what Parse accepts: %v", err)
		}
	})
}

// checkIndices fails t if any index of k points outside the kernel.
func checkIndices(t *testing.T, m *Module, k *Kernel) {
	n := int32(len(k.Instrs))
	reg := func(r int32, ok bool) {
		if ok && (r < 0 || int(r) >= len(k.Regs)) {
			t.Fatalf("%s: register %d of %d", k.Name, r, len(k.Regs))
		}
	}
	for i := range k.Instrs {
		in := &k.Instrs[i]
		if in.Guard >= 0 {
			reg(in.Guard, true)
		}
		if in.Op == OpBra && (in.Target < 0 || in.Target > n || in.Reconv < 0 || in.Reconv > n) {
			t.Fatalf("%s[%d]: target %d reconv %d", k.Name, i, in.Target, in.Reconv)
		}
		if int(in.Loc.File) >= len(m.Files) {
			t.Fatalf("%s[%d]: file %d", k.Name, i, in.Loc.File)
		}
		ops := append(in.Dst[:in.NDst:in.NDst], in.Src[:in.NSrc]...)
		for _, o := range ops {
			switch o.Kind {
			case OpdReg:
				reg(o.Reg, true)
			case OpdAddr:
				reg(o.Reg, o.Reg >= 0)
				if o.Var >= int32(len(k.Vars)) || o.Param >= int32(len(k.Params)) {
					t.Fatalf("%s[%d]: var %d param %d", k.Name, i, o.Var, o.Param)
				}
			case OpdSym:
				if o.Var < 0 || o.Var >= int32(len(k.Vars)) {
					t.Fatalf("%s[%d]: var %d", k.Name, i, o.Var)
				}
			case OpdVec:
				for _, r := range o.Vec {
					reg(r, r >= 0)
				}
			case OpdNone:
				t.Fatalf("%s[%d] %q: operand of no kind", k.Name, i, in.Text)
			}
		}
	}
}

// BenchmarkParse measures parsing and checking the largest lesson module
// with a CFG (cg.ptx); decoding is once per module, so this is a load-time
// cost, not a per-launch one.
func BenchmarkParse(b *testing.B) {
	src := readFile(b, "../../lessons/cg/cg.ptx")
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("cg.ptx", src); err != nil {
			b.Fatal(err)
		}
	}
}

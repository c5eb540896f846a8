package ptx

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// markerLine is the line of src that holds "// ERR", where the test wants
// the error.
func markerLine(src string) int {
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, "// ERR") {
			return i + 1
		}
	}
	return -1
}

// TestErrors: bad PTX gives an error naming its line and what is wrong.
func TestErrors(t *testing.T) {
	body := func(s string) string {
		return kernelSrc(".param .u64 k_param_0", regs+s+"\n\tret;")
	}
	cases := []struct {
		name, src, want string
	}{
		{"texture", body("\ttex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [tex0, {%r1}]; // ERR"), `unsupported instruction "tex.1d.v4.f32.s32"`},
		{"call without its .param variables", body("\tcall.uni (retval0), vprintf, (param0, param1); // ERR"), `call operand retval0 is not a .param variable`},
		{"call of an unknown function", body("\t{ .param .b32 p0;\n\tcall.uni nothere, (p0); // ERR\n\t}"), `call of nothere, which is not a function of this module`},
		{"indirect call through a 32-bit register", body("\tcall.uni %r1; // ERR"), `register %r1 is .b32, not .u64`},
		{"mma s8", body("\tmma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%r1,%r2,%r3,%r4}, {%r1,%r2}, {%r3}, {%r5,%r6,%r7,%r4}; // ERR"), `unsupported instruction "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"`},
		{"mma bf16 f16 accumulator", body("\tmma.sync.aligned.m16n8k8.row.col.f16.bf16.bf16.f16 {%r1,%r2}, {%r1,%r2}, {%r3}, {%r5,%r6}; // ERR"), `unsupported instruction`},
		{"wmma tf32 shape", body("\twmma.load.a.sync.aligned.row.m16n16k16.tf32 {%r1,%r2,%r3,%r4}, [%rd1], %r1; // ERR"), `unsupported instruction`},
		{"wmma bf16 fragment size", body("\twmma.load.a.sync.aligned.row.m16n16k16.bf16 {%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r8}, [%rd1], %r1; // ERR"), `a fragment of 4 registers`},
		{"wmma s8", body("\twmma.load.a.sync.aligned.row.m16n16k16.s8 {%r1,%r2}, [%rd1], %r1; // ERR"), `unsupported instruction`},
		{"mma fragment size", body("\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2}, {%r3}, {%f5,%f6,%f7,%f4}; // ERR"), `a fragment of 4 registers`},
		{"ldmatrix x3", body("\tldmatrix.sync.aligned.m8n8.x3.shared.b16 {%r1, %r2, %r3}, [%r5]; // ERR"), `unsupported instruction "ldmatrix`},
		{"cp.async.bulk", body("\tcp.async.bulk.shared::cluster.global [%r1], [%rd1], 16, [%r2]; // ERR"), `unsupported instruction "cp.async.bulk.shared::cluster.global" (modifier .bulk)`},
		{"prmt mode", body("\tprmt.b32.f4e %r1, %r2, %r3, 0x3210; // ERR"), `unsupported instruction "prmt.b32.f4e"`},
		{"sin without approx", body("\tsin.f32 %f1, %f2; // ERR"), `only the .approx{.ftz}.f32 form`},
		{"tanh", body("\ttanh.approx.f32 %f1, %f2; // ERR"), `unsupported instruction "tanh.approx.f32"`},
		{"activemask of a wrong type", body("\tactivemask.b64 %rd1; // ERR"), `type .b64 not supported in "activemask.b64"`},
		{"bar.warp.sync with modifiers", body("\tbar.warp.sync.aligned -1; // ERR"), `unsupported instruction "bar.warp.sync.aligned" (modifier .warp)`},
		{"bar.arrive", body("\tbar.arrive 1, 64; // ERR"), `modifier .arrive`},
		{"add.cc on floats", body("\tadd.cc.f32 %f1, %f2, %f3; // ERR"), `unsupported instruction "add.cc.f32" (the carry forms take .u32, .s32, .u64 or .s64; mad .lo or .hi)`},
		{"grid sync", body("\tmov.u32 %r1, %envreg2; // ERR"), `a grid-wide sync needs a cooperative launch`},
		{"madc.wide", body("\tmadc.wide.u32 %rd1, %r2, %r3, %rd4; // ERR"), `unsupported instruction "madc.wide.u32"`},
		{"f16x2 saturation", body("\tadd.sat.f16x2 %r1, %r2, %r3; // ERR"), `unsupported instruction "add.sat.f16x2" (only round-to-nearest arithmetic without .ftz or .sat)`},
		{"f16x2 comparison", body("\tsetp.lt.f16x2 %p1|%p2, %r2, %r3; // ERR"), `unsupported instruction "setp.lt.f16x2"`},
		{"f16 sat", body("\tadd.sat.f16 %rs1, %rs2, %rs3; // ERR"), `only round-to-nearest .f16 arithmetic`},
		{"two roundings", body("\tadd.rn.rz.f32 %f1, %f2, %f3; // ERR"), `(modifier .rz)`},
		{"mul without half", body("\tmul.s32 %r1, %r2, %r3; // ERR"), `need .lo, .hi or .wide`},
		{"mul.lo on floats", body("\tmul.lo.f32 %f1, %f2, %f3; // ERR"), `need .lo, .hi or .wide`},
		{"mad.f32 without rounding (Eval's check)", body("\tmad.f32 %f1, %f2, %f3, %f4; // ERR"), `unsupported instruction "mad.f32" (mad.f32/.f64 needs a rounding modifier`},
		{"fma without rounding", body("\tfma.f32 %f1, %f2, %f3, %f4; // ERR"), `fma needs a rounding modifier`},
		{"cvt float to int without rounding", body("\tcvt.s32.f32 %r1, %f1; // ERR"), `needs .rni`},
		{"unordered on ints", body("\tsetp.equ.s32 %p1, %r1, %r2; // ERR"), `unordered comparisons apply to floats only`},
		{"old vote", body("\tvote.all.pred %p1, %p2; // ERR"), `vote needs .sync`},
		{"old shfl", body("\tshfl.down.b32 %r1, %r2, 1, 31; // ERR"), `shfl needs .sync`},
		{"unknown register", body("\tadd.s32 %r1, %r99, 1; // ERR"), `unknown register %r99`},
		{"float register for int", body("\tadd.s32 %r1, %f1, 1; // ERR"), `register %f1 is .f32, not .s32`},
		{"narrow register", body("\tadd.s64 %rd1, %r1, 1; // ERR"), `register %r1 is .b32, not .s64`},
		{"wide register outside ld/st/cvt", body("\tadd.s32 %r1, %rd1, 1; // ERR"), `register %rd1 is .b64, not .s32`},
		{"predicate for int", body("\tadd.s32 %r1, %p1, 1; // ERR"), `register %p1 is .pred, not .s32`},
		{"guard not a predicate", body("\t@%r1 bra $L; // ERR\n$L:"), `guard %r1 is not a predicate`},
		{"too few operands", body("\tadd.s32 %r1, %r2; // ERR"), `2 operands where add takes 3`},
		{"too many operands", body("\tneg.s32 %r1, %r2, %r3; // ERR"), `3 operands where neg takes 2`},
		{"immediate destination", body("\tadd.s32 5, %r1, %r2; // ERR"), `operand "5" not allowed here`},
		{"float literal for int", body("\tadd.s32 %r1, %r2, 1.5; // ERR"), `float literal for type .s32`},
		{"bad number", body("\tadd.s32 %r1, %r2, 0f3F80; // ERR"), `bad number "0f3F80"`},
		{"undefined label", body("\t@%p1 bra $L__nope; // ERR"), `undefined label $L__nope`},
		{"duplicate label", body("$L:\n\tadd.s32 %r1, %r1, 1;\n$L: // ERR"), `label $L defined twice`},
		{"unknown symbol", body("\tmov.u64 %rd1, nothere; // ERR"), `unknown symbol nothere`},
		{"param as value", body("\tmov.u64 %rd1, k_param_0; // ERR"), `parameter k_param_0 used as a value`},
		{"param in global", body("\tld.global.u32 %r1, [k_param_0]; // ERR"), `k_param_0 is a parameter: only ld.param reads it`},
		{"ld.param from register", body("\tld.param.u32 %r1, [%rd1]; // ERR"), `ld.param needs a parameter name, not a register`},
		{"float address", body("\tst.global.u32 [%f1], %r1; // ERR"), `address register %f1 is .f32`},
		{"vector width", body("\tld.global.v2.f32 %f1, [%rd1]; // ERR"), `a .v2 ld needs a vector of 2 registers`},
		{"vector length", body("\tld.global.v4.f32 {%f1, %f2}, [%rd1]; // ERR"), `needs a vector of 4 registers`},
		{"sink in a source", body("\tst.global.v2.f32 [%rd1], {%f1, _}; // ERR"), `_ in source vector`},
		{"unsupported special", body("\tmov.u32 %r1, %smid; // ERR"), `unsupported special register %smid`},
		{"clock64 too wide", body("\tmov.u32 %r1, %clock64; // ERR"), `%clock64 is 64 bits wide, not .u32`},
		{"special in arithmetic", body("\tadd.u32 %r1, %tid.x, 1; // ERR"), `operand "%tid.x" not allowed here`},
		{"special too narrow", body("\tmov.u64 %rd1, %tid.x; // ERR"), `%tid.x is 32 bits wide, not .u64`},
		{"missing semicolon", body("\tadd.s32 %r1, %r2, %r3 // ERR\n\t.reg .b32 %q;"), `missing ';' after "add.s32"`},
		{"register declared twice", body("\t.reg .b32 %r3; // ERR"), `register %r3 declared twice`},
		{"param declared twice in a scope", body("\t{ .param .b64 param0;\n\t.param .b64 param0; // ERR\n\t}"), `variable param0 declared twice`},
		{"loc without file", body("\t.loc 3 10 1 // ERR\n\tadd.s32 %r1, %r1, 1;"), `.loc names file 3, which no .file declares`},
		{"kernel not terminated", ".version 7.8\n.visible .entry k() // ERR\n{\n\tret;\n", `kernel k not terminated`},
		{"comment not terminated", ".version 7.8\n/* open // ERR\n", `comment not terminated`},
		{"string not terminated", ".version 7.8\n.file 1 \"abc // ERR\n", `string not terminated`},
		{"stray character", ".version 7.8\n# // ERR\n", `unexpected character '#'`},
		{"unsupported directive", ".version 7.8\n.texref tex0; // ERR\n", `unsupported directive ".texref"`},
		{"initializer too long", ".global .u32 x[2] = {1, 2, 3}; // ERR\n", `too many initializers in the initializer of x`},
		{"symbol initializer", ".global .u64 x = generic(y); // ERR\n", `unsupported initializer "generic"`},
		{"shared array without size", ".shared .b8 x[]; // ERR\n", `array x has no size`},
		{"kernel twice", ".visible .entry k()\n{\n\tret;\n}\n.visible .entry k() // ERR\n{\n\tret;\n}\n", `kernel k defined twice`},
		{"scope", body("\t{\n\t.reg .b32 %q;\n\t}\n\tmov.b32 %q, 1; // ERR"), `unknown register %q`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := Parse("x.ptx", c.src)
			if err == nil {
				t.Fatalf("no error; module %v", m)
			}
			if m != nil {
				t.Error("a module as well as an error")
			}
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error %T %v is not an ErrorList", err, err)
			}
			line := markerLine(c.src)
			for _, e := range list {
				if e.Line == line && strings.Contains(e.Msg, c.want) && e.File == "x.ptx" {
					return
				}
			}
			t.Errorf("want x.ptx:%d: ...%s..., got%s", line, c.want, errorLines(err))
		})
	}
}

// TestErrorFormat: the message names file, line and the instruction, and
// errors.As finds the *Error inside the list.
func TestErrorFormat(t *testing.T) {
	src := kernelSrc("", regs+"\ttex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [tex0, {%r1}];\n\tret;")
	_, err := Parse("spmv.ptx", src)
	if got, want := err.Error(), `spmv.ptx:13: unsupported instruction "tex.1d.v4.f32.s32"`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	var e *Error
	if !errors.As(err, &e) || e.Line != 13 || e.File != "spmv.ptx" {
		t.Errorf("errors.As: %+v", e)
	}
}

// TestErrorList: errors are collected, sorted by line and capped.
func TestErrorList(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 15; i++ {
		fmt.Fprintf(&b, "\tfoo%d.b32 %%r1;\n", i)
	}
	src := kernelSrc("", regs+"\tbar.sync 0;\n"+b.String()+"\tret;") + ".global .u32 x[1] = {1, 2};\n"
	_, err := Parse("x.ptx", src)
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("%v", err)
	}
	if len(list) != maxErrors {
		t.Errorf("%d errors, want %d", len(list), maxErrors)
	}
	for i := 1; i < len(list); i++ {
		if list[i].Line < list[i-1].Line {
			t.Errorf("not sorted: %v", errorLines(err))
		}
	}
	if list[0].Line != 14 || !strings.Contains(list[0].Msg, `"foo0.b32"`) {
		t.Errorf("first error %v", list[0])
	}
	if !strings.HasSuffix(err.Error(), "(and 9 more errors)") {
		t.Errorf("Error() = %q", err.Error())
	}
}

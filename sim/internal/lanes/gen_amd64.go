//go:build ignore

// gen_amd64.go writes lanes_amd64.s: the vector forms come in families that
// differ in one or two instructions (the integer loops, the float loops,
// the unrolled 32-lane gathers), so each family is written here once.
//
//	go run gen_amd64.go          # rewrite lanes_amd64.s
//	go run gen_amd64.go -o FILE  # write elsewhere (TestGenerated compares)
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
)

func main() {
	out := flag.String("o", "lanes_amd64.s", "file to write")
	flag.Parse()
	var b bytes.Buffer
	b.WriteString(header)
	b.WriteString(groupMask())
	for _, f := range forms() {
		b.WriteString(f.asm())
	}
	// bit0Q and stepsQ: eight groups of four lanes, unrolled.
	b.WriteString(`
// func bit0Q(row *[32]uint64) uint32
// Bit 0 of each of 32 lanes, lane l in bit l.
TEXT ·bit0Q(SB), NOSPLIT, $0-12
	MOVQ row+0(FP), SI
	XORQ AX, AX
`)
	for g := range 8 {
		fmt.Fprintf(&b, "\tVMOVDQU %d(SI), Y0\n\tVPSLLQ $63, Y0, Y0\n\tVMOVMSKPD Y0, BX\n%s\tORQ  BX, AX\n", 32*g, shift(g))
	}
	b.WriteString("\tMOVL AX, ret+8(FP)\n\tVZEROUPPER\n\tRET\n")
	b.WriteString(steps)
	for g := range 8 {
		fmt.Fprintf(&b, "\tVPCMPEQQ %d(SI), Y0, Y2\n\tVMOVMSKPD Y2, BX\n%s\tORQ  BX, AX\n", 32*g, shift(g))
		if g < 7 {
			b.WriteString("\tVPADDQ Y1, Y0, Y0\n")
		}
	}
	b.WriteString("\tMOVL AX, ret+24(FP)\n\tVZEROUPPER\n\tRET\n")
	b.WriteString(zext)
	if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}

// A form is one row form: a function over the lanes of mask of 32-lane
// rows, d in DI, a in SI, b in DX, c in R8.
type form struct {
	name, sig, doc string
	args           int    // bytes of arguments, mask last (a uint32)
	ret            bool   // returns a uint32 (float: the lanes left; setp: the results)
	setup          string // loads the pointers and constants
	body           string // the result of one group into res, from {a}, {b} and {c}
	res            string
	kind           int // plain, float (R9 != 0: a NaN, leave the group), setp (R9: the group's results)
}

const (
	plain = iota
	float
	cmp
)

func forms() []form {
	var fs []form
	ptrs := "\tMOVQ d+0(FP), DI\n\tMOVQ a+8(FP), SI\n\tMOVQ b+16(FP), DX\n"
	for _, f := range []struct{ name, body, doc string }{
		{"addR", "VMOVDQU {a}, Y0\nVPADDQ {b}, Y0, Y0\nVPAND Y7, Y0, Y0", "d = (a + b) & tm"},
		{"subR", "VMOVDQU {a}, Y0\nVPSUBQ {b}, Y0, Y0\nVPAND Y7, Y0, Y0", "d = (a - b) & tm"},
		{"andR", "VMOVDQU {a}, Y0\nVPAND {b}, Y0, Y0\nVPAND Y7, Y0, Y0", "d = a & b & tm"},
		{"orR", "VMOVDQU {a}, Y0\nVPOR {b}, Y0, Y0\nVPAND Y7, Y0, Y0", "d = (a | b) & tm"},
		{"xorR", "VMOVDQU {a}, Y0\nVPXOR {b}, Y0, Y0\nVPAND Y7, Y0, Y0", "d = (a ^ b) & tm"},
		{"shlR", "VMOVDQU {a}, Y0\nVPSLLVQ {b}, Y0, Y0\nVPAND Y7, Y0, Y0", "d = (a << b) & tm, 0 where b > 63"},
		{"shrR", "VMOVDQU {a}, Y0\nVPAND Y7, Y0, Y0\nVPSRLVQ {b}, Y0, Y0", "d = (a & tm) >> b, 0 where b > 63"},
		{"mulLoR", "VMOVDQU {a}, Y0\nVPMULUDQ {b}, Y0, Y0\nVPAND Y7, Y0, Y0", "d = uint32(a) * uint32(b) & tm"},
		{"mulWideSR", "VMOVDQU {a}, Y0\nVPMULDQ {b}, Y0, Y0", "d = int64(int32(a)) * int64(int32(b)) (tm unused)"},
		{"mulWideUR", "VMOVDQU {a}, Y0\nVPMULUDQ {b}, Y0, Y0", "d = uint64(uint32(a)) * uint64(uint32(b)) (tm unused)"},
	} {
		fs = append(fs, form{name: f.name, sig: "d, a, b *[32]uint64, tm uint64, mask uint32", doc: f.doc, args: 36,
			setup: ptrs + "\tVPBROADCASTQ tm+24(FP), Y7\n", body: f.body, res: "Y0"})
	}
	for _, f := range []struct{ name, body, doc string }{
		{"addKR", "VMOVDQU {a}, Y0\nVPADDQ Y6, Y0, Y0\nVPAND Y7, Y0, Y0", "d = (a + k) & tm"},
		{"xorKR", "VMOVDQU {a}, Y0\nVPXOR Y6, Y0, Y0\nVPAND Y7, Y0, Y0", "d = (a ^ k) & tm"},
	} {
		fs = append(fs, form{name: f.name, sig: "d, a *[32]uint64, k, tm uint64, mask uint32", doc: f.doc, args: 36,
			setup: "\tMOVQ d+0(FP), DI\n\tMOVQ a+8(FP), SI\n\tVPBROADCASTQ k+16(FP), Y6\n\tVPBROADCASTQ tm+24(FP), Y7\n",
			body:  f.body, res: "Y0"})
	}
	for _, f := range []struct{ name, cmp, doc string }{
		{"setpEqR", "VPCMPEQQ Y1, Y0, Y2", "(a == b) ^ inv"},
		{"setpGtR", "VPXOR Y9, Y0, Y0\nVPXOR Y9, Y1, Y1\nVPCMPGTQ Y1, Y0, Y2", "(a > b) ^ inv"},
	} {
		fs = append(fs, form{name: f.name, sig: "d, a, b *[32]uint64, shift, bias, inv uint64, mask uint32", args: 52, ret: true,
			doc:   "Each lane's a and b become (x << shift) ^ bias, which orders them as\n// the PTX type does as signed 64-bit integers; r = " + f.doc + ".\n// d gets r as 1 or 0; the result is r as a mask.",
			setup: ptrs + "\tMOVQ shift+24(FP), X8\n\tVPBROADCASTQ bias+32(FP), Y9\n\tVPBROADCASTQ inv+40(FP), Y10\n",
			body:  "VMOVDQU {a}, Y0\nVMOVDQU {b}, Y1\nVPSLLQ X8, Y0, Y0\nVPSLLQ X8, Y1, Y1\n" + f.cmp + "\nVPXOR Y10, Y2, Y2\nVMOVMSKPD Y2, R9\nVPSRLQ $63, Y2, Y2",
			res:   "Y2", kind: cmp})
	}
	for _, f := range []struct {
		name string
		fma  bool
		wide bool // float64
		op   string
		doc  string
	}{
		{"addF32R", false, false, "VADDPS X1, X0, X2", "d = a + b in float32"},
		{"mulF32R", false, false, "VMULPS X1, X0, X2", "d = a * b in float32"},
		{"fmaF32R", true, false, "VFMADD231PS X1, X0, X2", "d = a*b + c in float32, rounded once"},
		{"addF64R", false, true, "VADDPD {b}, Y0, Y2", "d = a + b in float64"},
		{"mulF64R", false, true, "VMULPD {b}, Y0, Y2", "d = a * b in float64"},
		{"fmaF64R", true, true, "VFMADD231PD {b}, Y0, Y2", "d = a*b + c in float64, rounded once"},
	} {
		fm := form{name: f.name, sig: "d, a, b *[32]uint64, mask uint32", args: 28, ret: true, res: "Y2", kind: float,
			doc:   f.doc + ", but for each group of four whose result\n// has a NaN: those groups' lanes are the result.",
			setup: ptrs}
		if f.fma {
			fm.sig, fm.args = "d, a, b, c *[32]uint64, mask uint32", 36
			fm.setup += "\tMOVQ c+24(FP), R8\n"
		}
		if !f.wide {
			fm.setup += "\tVMOVDQU evenDwords<>(SB), Y6\n"
			fm.body = "VPERMD {a}, Y6, Y0\nVPERMD {b}, Y6, Y1\n"
			if f.fma {
				fm.body += "VPERMD {c}, Y6, Y2\n"
			}
			fm.body += f.op + "\nVCMPPS $3, X2, X2, X3\nVMOVMSKPS X3, R9\nVPMOVZXDQ X2, Y2"
		} else {
			fm.body = "VMOVUPD {a}, Y0\n"
			if f.fma {
				fm.body += "VMOVUPD {c}, Y2\n"
			}
			fm.body += f.op + "\nVCMPPD $3, Y2, Y2, Y3\nVMOVMSKPD Y3, R9"
		}
		fs = append(fs, fm)
	}
	return fs
}

// asm writes the form: a whole warp's mask takes an unrolled path of eight
// groups; any other mask a loop that jumps over the groups with no lane in
// it (a lone lane costs one group) and stores a partial group through
// VPMASKMOVQ. R11 collects a float form's groups with a NaN, R10 a setp's
// results.
func (f form) asm() string {
	var b strings.Builder
	retOff := (f.args + 7) &^ 7
	frame := f.args
	if f.ret {
		frame = retOff + 4
	}
	fmt.Fprintf(&b, "\n// func %s(%s)", f.name, f.sig)
	if f.ret {
		b.WriteString(" uint32")
	}
	fmt.Fprintf(&b, "\n// %s\nTEXT ·%s(SB), NOSPLIT, $0-%d\n%s", f.doc, f.name, frame, f.setup)
	fmt.Fprintf(&b, "\tMOVL mask+%d(FP), BX\n\tXORL R10, R10\n\tXORL R11, R11\n\tCMPL BX, $-1\n\tJEQ  full\n", f.args-4)
	b.WriteString("\tXORL CX, CX // the group's first lane\n\tMOVQ BX, R12 // the mask from that lane on\n\tTESTQ R12, R12\n\tJZ   done\nloop:\n")
	b.WriteString("\tTESTL $15, R12\n\tJNZ  group\n\tBSFQ R12, R12\n\tANDL $-4, R12\n\tADDL R12, CX\n\tMOVQ BX, R12\n\tSHRQ CX, R12\ngroup:\n")
	b.WriteString("\tMOVL R12, R13\n\tANDL $15, R13\n")
	b.WriteString(lines(addr(f.body, "(%s)(CX*8)")))
	switch f.kind {
	case float:
		b.WriteString("\tTESTL R9, R9\n\tJZ   store\n\tMOVL $15, R9\n\tSHLL CX, R9\n\tORL  R9, R11\n\tJMP  next\nstore:\n")
	case cmp:
		b.WriteString("\tSHLL CX, R9\n\tORL  R9, R10\n")
	}
	fmt.Fprintf(&b, "\tCMPL R13, $15\n\tJNE  part\n\tVMOVDQU %s, (DI)(CX*8)\nnext:\n", f.res)
	b.WriteString("\tADDL $4, CX\n\tMOVQ BX, R12\n\tSHRQ CX, R12\n\tJNZ  loop\n\tJMP  done\npart:\n")
	fmt.Fprintf(&b, "\tSHLQ $5, R13\n\tLEAQ groupMask<>(SB), R9\n\tVMOVDQU (R9)(R13*1), Y5\n\tVPMASKMOVQ %s, Y5, (DI)(CX*8)\n\tJMP  next\nfull:\n", f.res)
	for g := range 8 {
		b.WriteString(lines(addr(f.body, fmt.Sprintf("%d(%%s)", 32*g))))
		switch f.kind {
		case float:
			fmt.Fprintf(&b, "\tTESTL R9, R9\n\tJZ   st%[1]d\n\tORL  $%[2]d, R11\n\tJMP  nx%[1]d\nst%[1]d:\n\tVMOVDQU %[3]s, %[4]d(DI)\nnx%[1]d:\n", g, 15<<(4*g), f.res, 32*g)
		case cmp:
			fmt.Fprintf(&b, "%s\tORL  R9, R10\n\tVMOVDQU %s, %d(DI)\n", shiftReg("R9", g), f.res, 32*g)
		default:
			fmt.Fprintf(&b, "\tVMOVDQU %s, %d(DI)\n", f.res, 32*g)
		}
	}
	b.WriteString("done:\n")
	switch f.kind {
	case float:
		fmt.Fprintf(&b, "\tMOVL R11, ret+%d(FP)\n", retOff)
	case cmp:
		fmt.Fprintf(&b, "\tMOVL R10, ret+%d(FP)\n", retOff)
	}
	b.WriteString("\tVZEROUPPER\n\tRET\n")
	return b.String()
}

// addr fills a body's operands {a}, {b} and {c} with the addressing form
// (a format of one base register).
func addr(body, form string) string {
	return strings.NewReplacer("{a}", fmt.Sprintf(form, "SI"), "{b}", fmt.Sprintf(form, "DX"), "{c}", fmt.Sprintf(form, "R8")).Replace(body)
}

// shiftReg moves group g's four bits in reg to lanes 4g to 4g+3.
func shiftReg(reg string, g int) string {
	if g == 0 {
		return ""
	}
	return fmt.Sprintf("\tSHLL $%d, %s\n", 4*g, reg)
}

// lines indents each line of a loop body by a tab and ends it.
func lines(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		b.WriteString("\t" + l + "\n")
	}
	return b.String()
}

// groupMask is a table of 16 masks, one per value of a group's four mask
// bits: lane j of entry i is all ones where bit j of i is set, the form
// VPMASKMOVQ takes.
func groupMask() string {
	var b strings.Builder
	b.WriteString("\n// groupMask: entry i (32 bytes) has lane j all ones where bit j of i is set.\n")
	for i := range 16 {
		for j := range 4 {
			v := "$0"
			if i>>j&1 != 0 {
				v = "$-1"
			}
			fmt.Fprintf(&b, "DATA groupMask<>+%d(SB)/8, %s\n", 32*i+8*j, v)
		}
	}
	b.WriteString("GLOBL groupMask<>(SB), RODATA|NOPTR, $512\n")
	return b.String()
}

// shift moves group g's four mask bits to lanes 4g to 4g+3.
func shift(g int) string {
	if g == 0 {
		return ""
	}
	return fmt.Sprintf("\tSHLQ $%d, BX\n", 4*g)
}

const header = `//go:build amd64 && !purego

// Code generated by gen_amd64.go; DO NOT EDIT.

#include "textflag.h"

// The vector forms behind lanes.go, AVX2 and FMA: four 64-bit lanes a
// step. The row forms (…R) walk a 32-lane row's groups of four by the
// mask, skip a group with no lane in it, store a whole group with one
// store and a partial one through VPMASKMOVQ; each reads its group whole
// before it writes it, so a destination may alias a source.

// evenDwords picks the low word of each 64-bit lane of a YMM register into
// the low 128 bits: the four float32 values of four lanes.
DATA evenDwords<>+0(SB)/4, $0
DATA evenDwords<>+4(SB)/4, $2
DATA evenDwords<>+8(SB)/4, $4
DATA evenDwords<>+12(SB)/4, $6
DATA evenDwords<>+16(SB)/4, $0
DATA evenDwords<>+20(SB)/4, $0
DATA evenDwords<>+24(SB)/4, $0
DATA evenDwords<>+28(SB)/4, $0
GLOBL evenDwords<>(SB), RODATA|NOPTR, $32
`

const steps = `
// func stepsQ(row *[32]uint64, b0, step uint64) uint32
// The lanes l of row that hold b0 + l*step. The line's first four lanes
// are built in registers (not loaded from memory just stored, which would
// stall on store forwarding).
TEXT ·stepsQ(SB), NOSPLIT, $0-28
	MOVQ row+0(FP), SI
	MOVQ b0+8(FP), AX
	MOVQ step+16(FP), DX
	MOVQ AX, X0
	ADDQ DX, AX
	VPINSRQ $1, AX, X0, X0
	ADDQ DX, AX
	MOVQ AX, X2
	ADDQ DX, AX
	VPINSRQ $1, AX, X2, X2
	VINSERTI128 $1, X2, Y0, Y0
	SHLQ $2, DX
	MOVQ DX, X1
	VPBROADCASTQ X1, Y1
	XORQ AX, AX
`

const zext = `
// func zext32Q(d *uint64, s *uint32, n int)
// d[i] = uint64(s[i]) for i < n.
TEXT ·zext32Q(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ s+8(FP), SI
	MOVQ n+16(FP), CX
	SHLQ $2, CX
	XORQ AX, AX // offset in s
	XORQ DX, DX // offset in d
loop:
	VPMOVZXDQ (SI)(AX*1), Y0
	VMOVDQU Y0, (DI)(DX*1)
	ADDQ $16, AX
	ADDQ $32, DX
	CMPQ AX, CX
	JB   loop
	VZEROUPPER
	RET
`

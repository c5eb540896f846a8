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
	for _, f := range []struct{ name, body, doc string }{
		{"addQ", "VPADDQ (DX)(AX*1), Y0, Y0\nVPAND Y7, Y0, Y0", "d = (a + b) & tm"},
		{"subQ", "VPSUBQ (DX)(AX*1), Y0, Y0\nVPAND Y7, Y0, Y0", "d = (a - b) & tm"},
		{"andQ", "VPAND (DX)(AX*1), Y0, Y0\nVPAND Y7, Y0, Y0", "d = a & b & tm"},
		{"orQ", "VPOR (DX)(AX*1), Y0, Y0\nVPAND Y7, Y0, Y0", "d = (a | b) & tm"},
		{"xorQ", "VPXOR (DX)(AX*1), Y0, Y0\nVPAND Y7, Y0, Y0", "d = (a ^ b) & tm"},
		{"shlQ", "VPSLLVQ (DX)(AX*1), Y0, Y0\nVPAND Y7, Y0, Y0", "d = (a << b) & tm, 0 where b > 63"},
		{"shrQ", "VPAND Y7, Y0, Y0\nVPSRLVQ (DX)(AX*1), Y0, Y0", "d = (a & tm) >> b, 0 where b > 63"},
	} {
		fmt.Fprintf(&b, `
// func %[1]s(d, a, b *uint64, n int, tm uint64)
// %[3]s
TEXT ·%[1]s(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	VPBROADCASTQ tm+32(FP), Y7
	SHLQ $3, CX
	XORQ AX, AX
loop:
	VMOVDQU (SI)(AX*1), Y0
%[2]s	VMOVDQU Y0, (DI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, CX
	JB   loop
	VZEROUPPER
	RET
`, f.name, lines(f.body), f.doc)
	}
	for _, f := range []struct{ name, body, doc string }{
		{"addKQ", "VPADDQ Y6, Y0, Y0", "d = (a + k) & tm"},
		{"xorKQ", "VPXOR Y6, Y0, Y0", "d = (a ^ k) & tm"},
	} {
		fmt.Fprintf(&b, `
// func %[1]s(d, a *uint64, n int, k, tm uint64)
// %[3]s
TEXT ·%[1]s(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	VPBROADCASTQ k+24(FP), Y6
	VPBROADCASTQ tm+32(FP), Y7
	SHLQ $3, CX
	XORQ AX, AX
loop:
	VMOVDQU (SI)(AX*1), Y0
%[2]s	VPAND Y7, Y0, Y0
	VMOVDQU Y0, (DI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, CX
	JB   loop
	VZEROUPPER
	RET
`, f.name, lines(f.body), f.doc)
	}
	for _, f := range []struct{ name, body, doc string }{
		{"mulLo32Q", "VPMULUDQ (DX)(AX*1), Y0, Y0\nVPAND Y7, Y0, Y0", "d = low 32 bits of uint32(a) * uint32(b)"},
		{"mulWideS32Q", "VPMULDQ (DX)(AX*1), Y0, Y0", "d = int64(int32(a)) * int64(int32(b))"},
		{"mulWideU32Q", "VPMULUDQ (DX)(AX*1), Y0, Y0", "d = uint64(uint32(a)) * uint64(uint32(b))"},
	} {
		fmt.Fprintf(&b, `
// func %[1]s(d, a, b *uint64, n int)
// %[3]s
TEXT ·%[1]s(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	VPCMPEQQ Y7, Y7, Y7
	VPSRLQ $32, Y7, Y7 // the low word of each lane
	SHLQ $3, CX
	XORQ AX, AX
loop:
	VMOVDQU (SI)(AX*1), Y0
%[2]s	VMOVDQU Y0, (DI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, CX
	JB   loop
	VZEROUPPER
	RET
`, f.name, lines(f.body), f.doc)
	}
	b.WriteString(setp)
	for _, f := range []struct {
		name string
		fma  bool
		wide bool // float64
		body string
		doc  string
	}{
		{"addF32Q", false, false, "VADDPS X1, X0, X2", "d = a + b in float32"},
		{"mulF32Q", false, false, "VMULPS X1, X0, X2", "d = a * b in float32"},
		{"fmaF32Q", true, false, "VFMADD231PS X1, X0, X2", "d = a*b + c in float32, rounded once"},
		{"addF64Q", false, true, "VADDPD (DX)(AX*1), Y0, Y2", "d = a + b in float64"},
		{"mulF64Q", false, true, "VMULPD (DX)(AX*1), Y0, Y2", "d = a * b in float64"},
		{"fmaF64Q", true, true, "VFMADD231PD (DX)(AX*1), Y0, Y2", "d = a*b + c in float64, rounded once"},
	} {
		args, off, loadC := "d, a, b *uint64", 24, ""
		if f.fma {
			args, off, loadC = "d, a, b, c *uint64", 32, "\tMOVQ c+24(FP), R8\n"
		}
		var setup, loads, check, store string
		if !f.wide {
			setup = "\tVMOVDQU evenDwords<>(SB), Y6\n"
			loads = "\tVPERMD (SI)(AX*1), Y6, Y0\n\tVPERMD (DX)(AX*1), Y6, Y1\n"
			if f.fma {
				loads += "\tVPERMD (R8)(AX*1), Y6, Y2\n"
			}
			check = "\tVCMPPS $3, X2, X2, X3\n\tVMOVMSKPS X3, BX\n"
			store = "\tVPMOVZXDQ X2, Y2\n\tVMOVDQU Y2, (DI)(AX*1)\n"
		} else {
			loads = "\tVMOVUPD (SI)(AX*1), Y0\n"
			if f.fma {
				loads += "\tVMOVUPD (R8)(AX*1), Y2\n"
			}
			check = "\tVCMPPD $3, Y2, Y2, Y3\n\tVMOVMSKPD Y3, BX\n"
			store = "\tVMOVUPD Y2, (DI)(AX*1)\n"
		}
		fmt.Fprintf(&b, `
// func %s(%s, n int) int
// %s; stops before a group of four with a NaN result and returns
// the lanes done.
TEXT ·%s(SB), NOSPLIT, $0-%d
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
%s	MOVQ n+%d(FP), CX
%s	SHLQ $3, CX
	XORQ AX, AX
loop:
%s	%s
%s	TESTL BX, BX
	JNZ  done
%s	ADDQ $32, AX
	CMPQ AX, CX
	JB   loop
done:
	SHRQ $3, AX
	MOVQ AX, ret+%d(FP)
	VZEROUPPER
	RET
`, f.name, args, f.doc, f.name, off+16, loadC, off, setup, loads, f.body, check, store, off+8)
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

// lines indents each line of a loop body by a tab and ends it.
func lines(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		b.WriteString("\t" + l + "\n")
	}
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
// step. n is a positive multiple of four; every loop reads its group of
// four whole before it writes it, so a destination may alias a source.

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

const setp = `
// func setpQ(d, a, b *uint64, n int, shift, bias, gt, inv uint64) uint64
// Each lane's a and b become (x << shift) ^ bias, which orders them as
// the PTX type does as signed 64-bit integers; then r = (a == b) ^ inv, or
// (a > b) ^ inv where gt != 0. d gets r as 1 or 0, the result r as a mask.
TEXT ·setpQ(SB), NOSPLIT, $0-72
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), R11
	MOVQ shift+32(FP), X8
	VPBROADCASTQ bias+40(FP), Y9
	MOVQ gt+48(FP), R8
	VPBROADCASTQ inv+56(FP), Y10
	SHLQ $3, R11
	XORQ AX, AX  // byte offset
	XORQ CX, CX  // lane
	XORQ R10, R10 // mask
	TESTQ R8, R8
	JNZ  gtloop
eqloop:
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU (DX)(AX*1), Y1
	VPSLLQ X8, Y0, Y0
	VPSLLQ X8, Y1, Y1
	VPCMPEQQ Y1, Y0, Y2
	VPXOR Y10, Y2, Y2
	VMOVMSKPD Y2, BX
	SHLQ CX, BX
	ORQ  BX, R10
	VPSRLQ $63, Y2, Y2
	VMOVDQU Y2, (DI)(AX*1)
	ADDQ $4, CX
	ADDQ $32, AX
	CMPQ AX, R11
	JB   eqloop
	JMP  done
gtloop:
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU (DX)(AX*1), Y1
	VPSLLQ X8, Y0, Y0
	VPSLLQ X8, Y1, Y1
	VPXOR Y9, Y0, Y0
	VPXOR Y9, Y1, Y1
	VPCMPGTQ Y1, Y0, Y2
	VPXOR Y10, Y2, Y2
	VMOVMSKPD Y2, BX
	SHLQ CX, BX
	ORQ  BX, R10
	VPSRLQ $63, Y2, Y2
	VMOVDQU Y2, (DI)(AX*1)
	ADDQ $4, CX
	ADDQ $32, AX
	CMPQ AX, R11
	JB   gtloop
done:
	MOVQ R10, ret+64(FP)
	VZEROUPPER
	RET
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

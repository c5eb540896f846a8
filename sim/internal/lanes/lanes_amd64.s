//go:build amd64 && !purego

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

// func addQ(d, a, b *uint64, n int, tm uint64)
// d = (a + b) & tm
TEXT ·addQ(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	VPBROADCASTQ tm+32(FP), Y7
	SHLQ $3, CX
	XORQ AX, AX
loop:
	VMOVDQU (SI)(AX*1), Y0
	VPADDQ (DX)(AX*1), Y0, Y0
	VPAND Y7, Y0, Y0
	VMOVDQU Y0, (DI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, CX
	JB   loop
	VZEROUPPER
	RET

// func subQ(d, a, b *uint64, n int, tm uint64)
// d = (a - b) & tm
TEXT ·subQ(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	VPBROADCASTQ tm+32(FP), Y7
	SHLQ $3, CX
	XORQ AX, AX
loop:
	VMOVDQU (SI)(AX*1), Y0
	VPSUBQ (DX)(AX*1), Y0, Y0
	VPAND Y7, Y0, Y0
	VMOVDQU Y0, (DI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, CX
	JB   loop
	VZEROUPPER
	RET

// func andQ(d, a, b *uint64, n int, tm uint64)
// d = a & b & tm
TEXT ·andQ(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	VPBROADCASTQ tm+32(FP), Y7
	SHLQ $3, CX
	XORQ AX, AX
loop:
	VMOVDQU (SI)(AX*1), Y0
	VPAND (DX)(AX*1), Y0, Y0
	VPAND Y7, Y0, Y0
	VMOVDQU Y0, (DI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, CX
	JB   loop
	VZEROUPPER
	RET

// func orQ(d, a, b *uint64, n int, tm uint64)
// d = (a | b) & tm
TEXT ·orQ(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	VPBROADCASTQ tm+32(FP), Y7
	SHLQ $3, CX
	XORQ AX, AX
loop:
	VMOVDQU (SI)(AX*1), Y0
	VPOR (DX)(AX*1), Y0, Y0
	VPAND Y7, Y0, Y0
	VMOVDQU Y0, (DI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, CX
	JB   loop
	VZEROUPPER
	RET

// func xorQ(d, a, b *uint64, n int, tm uint64)
// d = (a ^ b) & tm
TEXT ·xorQ(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	VPBROADCASTQ tm+32(FP), Y7
	SHLQ $3, CX
	XORQ AX, AX
loop:
	VMOVDQU (SI)(AX*1), Y0
	VPXOR (DX)(AX*1), Y0, Y0
	VPAND Y7, Y0, Y0
	VMOVDQU Y0, (DI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, CX
	JB   loop
	VZEROUPPER
	RET

// func shlQ(d, a, b *uint64, n int, tm uint64)
// d = (a << b) & tm, 0 where b > 63
TEXT ·shlQ(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	VPBROADCASTQ tm+32(FP), Y7
	SHLQ $3, CX
	XORQ AX, AX
loop:
	VMOVDQU (SI)(AX*1), Y0
	VPSLLVQ (DX)(AX*1), Y0, Y0
	VPAND Y7, Y0, Y0
	VMOVDQU Y0, (DI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, CX
	JB   loop
	VZEROUPPER
	RET

// func shrQ(d, a, b *uint64, n int, tm uint64)
// d = (a & tm) >> b, 0 where b > 63
TEXT ·shrQ(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	VPBROADCASTQ tm+32(FP), Y7
	SHLQ $3, CX
	XORQ AX, AX
loop:
	VMOVDQU (SI)(AX*1), Y0
	VPAND Y7, Y0, Y0
	VPSRLVQ (DX)(AX*1), Y0, Y0
	VMOVDQU Y0, (DI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, CX
	JB   loop
	VZEROUPPER
	RET

// func addKQ(d, a *uint64, n int, k, tm uint64)
// d = (a + k) & tm
TEXT ·addKQ(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	VPBROADCASTQ k+24(FP), Y6
	VPBROADCASTQ tm+32(FP), Y7
	SHLQ $3, CX
	XORQ AX, AX
loop:
	VMOVDQU (SI)(AX*1), Y0
	VPADDQ Y6, Y0, Y0
	VPAND Y7, Y0, Y0
	VMOVDQU Y0, (DI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, CX
	JB   loop
	VZEROUPPER
	RET

// func xorKQ(d, a *uint64, n int, k, tm uint64)
// d = (a ^ k) & tm
TEXT ·xorKQ(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	VPBROADCASTQ k+24(FP), Y6
	VPBROADCASTQ tm+32(FP), Y7
	SHLQ $3, CX
	XORQ AX, AX
loop:
	VMOVDQU (SI)(AX*1), Y0
	VPXOR Y6, Y0, Y0
	VPAND Y7, Y0, Y0
	VMOVDQU Y0, (DI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, CX
	JB   loop
	VZEROUPPER
	RET

// func mulLo32Q(d, a, b *uint64, n int)
// d = low 32 bits of uint32(a) * uint32(b)
TEXT ·mulLo32Q(SB), NOSPLIT, $0-32
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
	VPMULUDQ (DX)(AX*1), Y0, Y0
	VPAND Y7, Y0, Y0
	VMOVDQU Y0, (DI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, CX
	JB   loop
	VZEROUPPER
	RET

// func mulWideS32Q(d, a, b *uint64, n int)
// d = int64(int32(a)) * int64(int32(b))
TEXT ·mulWideS32Q(SB), NOSPLIT, $0-32
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
	VPMULDQ (DX)(AX*1), Y0, Y0
	VMOVDQU Y0, (DI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, CX
	JB   loop
	VZEROUPPER
	RET

// func mulWideU32Q(d, a, b *uint64, n int)
// d = uint64(uint32(a)) * uint64(uint32(b))
TEXT ·mulWideU32Q(SB), NOSPLIT, $0-32
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
	VPMULUDQ (DX)(AX*1), Y0, Y0
	VMOVDQU Y0, (DI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, CX
	JB   loop
	VZEROUPPER
	RET

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

// func addF32Q(d, a, b *uint64, n int) int
// d = a + b in float32; stops before a group of four with a NaN result and returns
// the lanes done.
TEXT ·addF32Q(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	VMOVDQU evenDwords<>(SB), Y6
	SHLQ $3, CX
	XORQ AX, AX
loop:
	VPERMD (SI)(AX*1), Y6, Y0
	VPERMD (DX)(AX*1), Y6, Y1
	VADDPS X1, X0, X2
	VCMPPS $3, X2, X2, X3
	VMOVMSKPS X3, BX
	TESTL BX, BX
	JNZ  done
	VPMOVZXDQ X2, Y2
	VMOVDQU Y2, (DI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, CX
	JB   loop
done:
	SHRQ $3, AX
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET

// func mulF32Q(d, a, b *uint64, n int) int
// d = a * b in float32; stops before a group of four with a NaN result and returns
// the lanes done.
TEXT ·mulF32Q(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	VMOVDQU evenDwords<>(SB), Y6
	SHLQ $3, CX
	XORQ AX, AX
loop:
	VPERMD (SI)(AX*1), Y6, Y0
	VPERMD (DX)(AX*1), Y6, Y1
	VMULPS X1, X0, X2
	VCMPPS $3, X2, X2, X3
	VMOVMSKPS X3, BX
	TESTL BX, BX
	JNZ  done
	VPMOVZXDQ X2, Y2
	VMOVDQU Y2, (DI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, CX
	JB   loop
done:
	SHRQ $3, AX
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET

// func fmaF32Q(d, a, b, c *uint64, n int) int
// d = a*b + c in float32, rounded once; stops before a group of four with a NaN result and returns
// the lanes done.
TEXT ·fmaF32Q(SB), NOSPLIT, $0-48
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ c+24(FP), R8
	MOVQ n+32(FP), CX
	VMOVDQU evenDwords<>(SB), Y6
	SHLQ $3, CX
	XORQ AX, AX
loop:
	VPERMD (SI)(AX*1), Y6, Y0
	VPERMD (DX)(AX*1), Y6, Y1
	VPERMD (R8)(AX*1), Y6, Y2
	VFMADD231PS X1, X0, X2
	VCMPPS $3, X2, X2, X3
	VMOVMSKPS X3, BX
	TESTL BX, BX
	JNZ  done
	VPMOVZXDQ X2, Y2
	VMOVDQU Y2, (DI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, CX
	JB   loop
done:
	SHRQ $3, AX
	MOVQ AX, ret+40(FP)
	VZEROUPPER
	RET

// func addF64Q(d, a, b *uint64, n int) int
// d = a + b in float64; stops before a group of four with a NaN result and returns
// the lanes done.
TEXT ·addF64Q(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	SHLQ $3, CX
	XORQ AX, AX
loop:
	VMOVUPD (SI)(AX*1), Y0
	VADDPD (DX)(AX*1), Y0, Y2
	VCMPPD $3, Y2, Y2, Y3
	VMOVMSKPD Y3, BX
	TESTL BX, BX
	JNZ  done
	VMOVUPD Y2, (DI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, CX
	JB   loop
done:
	SHRQ $3, AX
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET

// func mulF64Q(d, a, b *uint64, n int) int
// d = a * b in float64; stops before a group of four with a NaN result and returns
// the lanes done.
TEXT ·mulF64Q(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	SHLQ $3, CX
	XORQ AX, AX
loop:
	VMOVUPD (SI)(AX*1), Y0
	VMULPD (DX)(AX*1), Y0, Y2
	VCMPPD $3, Y2, Y2, Y3
	VMOVMSKPD Y3, BX
	TESTL BX, BX
	JNZ  done
	VMOVUPD Y2, (DI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, CX
	JB   loop
done:
	SHRQ $3, AX
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET

// func fmaF64Q(d, a, b, c *uint64, n int) int
// d = a*b + c in float64, rounded once; stops before a group of four with a NaN result and returns
// the lanes done.
TEXT ·fmaF64Q(SB), NOSPLIT, $0-48
	MOVQ d+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ c+24(FP), R8
	MOVQ n+32(FP), CX
	SHLQ $3, CX
	XORQ AX, AX
loop:
	VMOVUPD (SI)(AX*1), Y0
	VMOVUPD (R8)(AX*1), Y2
	VFMADD231PD (DX)(AX*1), Y0, Y2
	VCMPPD $3, Y2, Y2, Y3
	VMOVMSKPD Y3, BX
	TESTL BX, BX
	JNZ  done
	VMOVUPD Y2, (DI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, CX
	JB   loop
done:
	SHRQ $3, AX
	MOVQ AX, ret+40(FP)
	VZEROUPPER
	RET

// func bit0Q(row *[32]uint64) uint32
// Bit 0 of each of 32 lanes, lane l in bit l.
TEXT ·bit0Q(SB), NOSPLIT, $0-12
	MOVQ row+0(FP), SI
	XORQ AX, AX
	VMOVDQU 0(SI), Y0
	VPSLLQ $63, Y0, Y0
	VMOVMSKPD Y0, BX
	ORQ  BX, AX
	VMOVDQU 32(SI), Y0
	VPSLLQ $63, Y0, Y0
	VMOVMSKPD Y0, BX
	SHLQ $4, BX
	ORQ  BX, AX
	VMOVDQU 64(SI), Y0
	VPSLLQ $63, Y0, Y0
	VMOVMSKPD Y0, BX
	SHLQ $8, BX
	ORQ  BX, AX
	VMOVDQU 96(SI), Y0
	VPSLLQ $63, Y0, Y0
	VMOVMSKPD Y0, BX
	SHLQ $12, BX
	ORQ  BX, AX
	VMOVDQU 128(SI), Y0
	VPSLLQ $63, Y0, Y0
	VMOVMSKPD Y0, BX
	SHLQ $16, BX
	ORQ  BX, AX
	VMOVDQU 160(SI), Y0
	VPSLLQ $63, Y0, Y0
	VMOVMSKPD Y0, BX
	SHLQ $20, BX
	ORQ  BX, AX
	VMOVDQU 192(SI), Y0
	VPSLLQ $63, Y0, Y0
	VMOVMSKPD Y0, BX
	SHLQ $24, BX
	ORQ  BX, AX
	VMOVDQU 224(SI), Y0
	VPSLLQ $63, Y0, Y0
	VMOVMSKPD Y0, BX
	SHLQ $28, BX
	ORQ  BX, AX
	MOVL AX, ret+8(FP)
	VZEROUPPER
	RET

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
	VPCMPEQQ 0(SI), Y0, Y2
	VMOVMSKPD Y2, BX
	ORQ  BX, AX
	VPADDQ Y1, Y0, Y0
	VPCMPEQQ 32(SI), Y0, Y2
	VMOVMSKPD Y2, BX
	SHLQ $4, BX
	ORQ  BX, AX
	VPADDQ Y1, Y0, Y0
	VPCMPEQQ 64(SI), Y0, Y2
	VMOVMSKPD Y2, BX
	SHLQ $8, BX
	ORQ  BX, AX
	VPADDQ Y1, Y0, Y0
	VPCMPEQQ 96(SI), Y0, Y2
	VMOVMSKPD Y2, BX
	SHLQ $12, BX
	ORQ  BX, AX
	VPADDQ Y1, Y0, Y0
	VPCMPEQQ 128(SI), Y0, Y2
	VMOVMSKPD Y2, BX
	SHLQ $16, BX
	ORQ  BX, AX
	VPADDQ Y1, Y0, Y0
	VPCMPEQQ 160(SI), Y0, Y2
	VMOVMSKPD Y2, BX
	SHLQ $20, BX
	ORQ  BX, AX
	VPADDQ Y1, Y0, Y0
	VPCMPEQQ 192(SI), Y0, Y2
	VMOVMSKPD Y2, BX
	SHLQ $24, BX
	ORQ  BX, AX
	VPADDQ Y1, Y0, Y0
	VPCMPEQQ 224(SI), Y0, Y2
	VMOVMSKPD Y2, BX
	SHLQ $28, BX
	ORQ  BX, AX
	MOVL AX, ret+24(FP)
	VZEROUPPER
	RET

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

package ptx

import "math/bits"

// The extended-precision integer arithmetic: add.cc, addc, sub.cc, subc,
// mad.lo.cc, mad.hi.cc, madc.lo and madc.hi (with or without .cc), on .u32,
// .s32, .u64 and .s64, which CUDA's math library uses for wide products
// (double-precision sin and cos's argument reduction) and students for
// big-number arithmetic. The carry flag (CC.CF in the PTX manual) is a
// hidden register holding 0 or 1; subtraction treats it as a borrow,
// as the manual's subc does (d = a - (b + CC.CF)). The flag is the carry
// out of the unsigned sum whatever the type's signedness, as the hardware
// sets it.

// evalCarry is Eval for the carry forms: a, b the operands, c mad's
// addend (or add's and sub's carry in), d mad's carry in.
func evalCarry(in *Instr, a, b, c, d uint64) (uint64, uint64) {
	w64 := in.Type.Size() == 8
	cin := uint64(0)
	if in.CarryIn {
		if in.Op == OpMad {
			cin = d & 1
		} else {
			cin = c & 1
		}
	}
	x, y := a, b
	if in.Op == OpMad {
		x, y = mulPart(in, a, b, w64), c
	}
	if in.Op == OpSub {
		if w64 {
			r, borrow := bits.Sub64(x, y, cin)
			return r, borrow
		}
		r := uint64(uint32(x)) - uint64(uint32(y)) - cin
		return r & 0xffffffff, r >> 63
	}
	if w64 {
		r, carry := bits.Add64(x, y, cin)
		return r, carry
	}
	r := uint64(uint32(x)) + uint64(uint32(y)) + cin
	return r & 0xffffffff, r >> 32
}

// mulPart is mad's product half: the low or the high half of a·b at the
// type's width, signed for .s32 and .s64.
func mulPart(in *Instr, a, b uint64, w64 bool) uint64 {
	signed := in.Type.IsSigned()
	if !w64 {
		var p uint64
		if signed {
			p = uint64(int64(int32(a)) * int64(int32(b)))
		} else {
			p = uint64(uint32(a)) * uint64(uint32(b))
		}
		if in.Mul == MulHi {
			return p >> 32 & 0xffffffff
		}
		return p & 0xffffffff
	}
	hi, lo := bits.Mul64(a, b)
	if in.Mul != MulHi {
		return lo
	}
	if signed { // the signed high half from the unsigned one
		if int64(a) < 0 {
			hi -= b
		}
		if int64(b) < 0 {
			hi -= a
		}
	}
	return hi
}

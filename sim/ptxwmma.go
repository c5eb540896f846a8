package sim

import (
	"fmt"
	"math"
	"math/bits"
	"unsafe"

	"github.com/warplab/warplab/sim/ptx"
)

// WMMA: wmma.load, wmma.mma and wmma.store of the floating-point forms:
// m16n16k16, m32n8k16 and m8n32k16 with half or bfloat16 A and B,
// m16n16k8 with TensorFloat-32 A and B; float C and D, or half C and D with
// half A and B.
//
// How a fragment's elements are spread over the warp's registers is
// unspecified by the PTX manual (its "Matrix fragments for WMMA"): code
// may only load, store, run mma on, and apply one operation to every
// element of a fragment. The simulator spreads each matrix (A M×K, B K×N,
// C and D M×N) in row-major order of its logical indices: lane l's
// register q of a fragment of R registers holds elements (Rl+q)·e ...
// (Rl+q)·e+e-1, e the elements a register holds (two 16-bit ones, or one
// of 32 bits), modulo the matrix's size (a half A of m16n16k16 has 512
// halves for 256 elements: the matrix twice, as on sm_70).
//
// mma computes D[i][j] = C[i][j] + Σ_k A[i][k]·B[k][j], k in order, in
// float; a product of two halves, two bfloat16s or two tf32s is exact in a
// float (at most 22 significant bits), so only the additions round, and a
// half D is the float sum rounded once to nearest even. The PTX manual
// fixes neither the order of the additions nor their internal precision,
// so D can differ from the H200's in the last bits when the sums are not
// exact (the corpus's inputs make every sum exact). A tf32 operand is read
// as the float it is stored as with its low 13 bits dropped, which is what
// cvt.rna.tf32.f32 leaves in any case, and what the H200's tensor core does
// with floats that are not tf32 values (the corpus's
// tensor/mmaForms/tf32.m16n8k8.raw, evidence/ptx-corpus-h200-2026-12-04). The loads and stores are checked
// against their buffers like any access but are not counted as memory
// requests; each mma is one "tensor" instruction of Stats.InstrMix.

// wmmaElems is one matrix's elements by logical index (row-major), at
// most 32×16: float bits, or 16-bit bits.
type wmmaElems [512]uint32

// matFloat is the value of one element of format m.
func matFloat(m ptx.MatType, v uint32) float32 {
	switch m {
	case ptx.MatF16:
		return halfToFloat(uint16(v))
	case ptx.MatBF16:
		return math.Float32frombits(v << 16)
	case ptx.MatTF32:
		return math.Float32frombits(v &^ 0x1fff)
	}
	return math.Float32frombits(v)
}

// matBits encodes f in format m (a half rounded to nearest even).
func matBits(m ptx.MatType, f float32) uint32 {
	if m == ptx.MatF16 {
		return uint32(ptx.HalfBits(float64(f)))
	}
	return math.Float32bits(f)
}

// wmmaDims is the rows and columns of fragment frag ('a', 'b', 'c' or 'd')
// of w's shape.
func wmmaDims(w *ptx.Wmma, frag byte) (int, int) {
	switch frag {
	case 'a':
		return w.M, w.K
	case 'b':
		return w.K, w.N
	}
	return w.M, w.N
}

// wmma runs a wmma instruction for warp wp; all its 32 lanes must execute
// it (.aligned).
func (e *ptxWorker) wmma(wp *pwarp, x *xin, mask uint32) *Fault {
	w := x.in.Wmma
	if mask != fullMask {
		lane := bits.TrailingZeros32(^mask)
		return e.fault(wp, bits.TrailingZeros32(mask), x, "divergent warp intrinsic", fmt.Sprintf(
			"%s needs all 32 lanes of the warp (.aligned), but lane %d is not executing it (executing %032b)", x.in.Op, lane, mask))
	}
	// The warp's lanes meet here (.sync): for the race check, their
	// earlier shared-memory accesses are ordered before the matrix's, which
	// the simulator reads and writes on behalf of lane 0 (ldmatrix: of the
	// lane that gave the row's address).
	e.t.w.sh.warpSync(wp.id)
	switch w.Op {
	case 'M':
		e.t.w.pxx.tensor.add(w)
		e.mmaSync(wp, x)
		return nil
	case 'L':
		return e.ldmatrix(wp, x)
	case 'm':
		e.t.w.pxx.tensor.add(w)
		var a, b, c wmmaElems
		e.fragIn(wp, x.src[0].vec, &a, w.M*w.K, w.AB)
		e.fragIn(wp, x.src[1].vec, &b, w.K*w.N, w.AB)
		e.fragIn(wp, x.src[2].vec, &c, w.M*w.N, w.C)
		var d wmmaElems
		for i := range w.M {
			for j := range w.N {
				s := matFloat(w.C, c[w.N*i+j])
				for k := range w.K {
					s += float32(matFloat(w.AB, a[w.K*i+k]) * matFloat(w.AB, b[w.N*k+j]))
				}
				d[w.N*i+j] = matBits(w.D, s)
			}
		}
		e.fragOut(wp, x.dst[0].vec, &d, w.M*w.N, w.D)
		return nil
	}
	// load and store: one address and stride for the warp.
	var base uint64
	if x.abase >= 0 {
		base = wp.regs[x.abase][0]
	}
	addr := x.aconst + base
	if x.a32 {
		addr &= 0xffffffff
	}
	sl := 1
	if w.Op == 's' {
		sl = 2
	}
	ld := e.src(wp, &x.src[sl], sl)[0] & 0xffffffff
	for l := 1; l < 32; l++ {
		if x.abase >= 0 && wp.regs[x.abase][l] != wp.regs[x.abase][0] || e.src(wp, &x.src[sl], sl)[l]&0xffffffff != ld {
			return e.fault(wp, l, x, "divergent warp intrinsic", "wmma's address and stride must be the same in every lane of the warp")
		}
	}
	es := uint64(x.size)
	rows, cols := wmmaDims(w, w.Frag)
	var m wmmaElems
	if w.Op == 's' {
		e.fragIn(wp, x.src[1].vec, &m, rows*cols, w.Mat)
	}
	for r := range rows {
		for c := range cols {
			off := uint64(r)*ld + uint64(c)
			if w.ColMaj {
				off = uint64(c)*ld + uint64(r)
			}
			p, f := e.wmmaAt(wp, x, addr+off*es, w.Op == 's')
			if f != nil {
				return f
			}
			if w.Op == 's' {
				writeMem(p, int(es), uint64(m[cols*r+c]))
			} else {
				m[cols*r+c] = uint32(readMem(p, int(es)))
			}
		}
	}
	if w.Op == 'l' {
		e.fragOut(wp, x.dst[0].vec, &m, rows*cols, w.Mat)
	}
	return nil
}

// fragIn gathers a fragment's matrix of size elements of format f from
// its registers (the layout above).
func (e *ptxWorker) fragIn(wp *pwarp, vec []int32, m *wmmaElems, size int, f ptx.MatType) {
	per := 32 / f.Bits()
	for l := range 32 {
		for q, r := range vec {
			v := wp.regs[r][l]
			for h := range per {
				i := ((len(vec)*l+q)*per + h) % size
				m[i] = uint32(v >> (16 * h))
				if per == 2 {
					m[i] &= 0xffff
				}
			}
		}
	}
}

// fragOut spreads a matrix of size elements of format f over a
// fragment's registers (the layout above).
func (e *ptxWorker) fragOut(wp *pwarp, vec []int32, m *wmmaElems, size int, f ptx.MatType) {
	per := 32 / f.Bits()
	for q, r := range vec {
		row := e.dst(wp, &xopd{kind: oReg, idx: r}, 0)
		for l := range 32 {
			var v uint64
			for h := range per {
				v |= uint64(m[((len(vec)*l+q)*per+h)%size]) << (16 * h)
			}
			row[l] = v
		}
	}
}

// wmmaAt resolves one element's address for a wmma load or store (lane 0
// stands for the warp in faults and the race check).
func (e *ptxWorker) wmmaAt(wp *pwarp, x *xin, addr uint64, write bool) (unsafe.Pointer, *Fault) {
	return e.wmmaAtLane(wp, x, 0, addr, write)
}

// wmmaAtLane is wmmaAt on behalf of lane.
func (e *ptxWorker) wmmaAtLane(wp *pwarp, x *xin, lane int, addr uint64, write bool) (unsafe.Pointer, *Fault) {
	es := uint64(x.size)
	shared := x.space == ptx.SpaceShared
	if x.space == ptx.SpaceGeneric && addr >= sharedWin && addr < sharedWin+winSize {
		shared, addr = true, addr-sharedWin
	}
	if addr%es != 0 {
		return nil, e.fault(wp, lane, x, "misaligned address", fmt.Sprintf("%s element of %d bytes at %#x", x.in.Op, es, addr))
	}
	if shared {
		if addr+es > uint64(len(e.shared)) {
			return nil, e.fault(wp, lane, x, "out of bounds", fmt.Sprintf(
				"%s element at shared offset %d, but the block has %d bytes of shared memory (%s)", x.in.Op, addr, len(e.shared), e.sharedLayout()))
		}
		e.raceCheck(wp, lane, addr, int(es), write)
		return unsafe.Pointer(&e.shared[addr]), nil
	}
	b := e.l.find(addr)
	if b < 0 || addr+es > e.l.bufs[b].hi {
		return nil, e.oobGlobal(wp, lane, x, addr, b)
	}
	g := &e.l.bufs[b]
	return unsafe.Add(g.base, addr-g.lo), nil
}

// halfToFloat converts IEEE binary16 bits to a float32 (exactly: every
// half is a float).
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // inf, nan
		return math.Float32frombits(sign | 0x7f800000 | frac<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
	case frac == 0:
		return math.Float32frombits(sign)
	}
	// A subnormal half is a normal float.
	e := uint32(113)
	for frac&0x400 == 0 {
		frac <<= 1
		e--
	}
	return math.Float32frombits(sign | e<<23 | (frac&0x3ff)<<13)
}

// mma.sync and ldmatrix, whose fragment layouts the PTX manual fixes
// ("Matrix Fragments for mma.m16n8k16 with floating point type" and its
// siblings): lane l is thread t = l%4 of group g = l/4.
//   - A, 16-bit elements (f16, bf16), 16×K row-major: register q holds
//     (g+8(q%2), 2t+8(q/2)) and the next column in its low and high
//     halves. tf32, 16×K: register q holds (g+8(q%2), t+4(q/2)).
//   - B, 16-bit, K×8: register q holds (2t+8q, g) and (2t+8q+1, g).
//     tf32: register q holds (t+4q, g).
//   - C and D, 16×8 floats: register q holds (g+8(q/2), 2t+q%2); halves:
//     register q holds (g+8q, 2t) and (g+8q, 2t+1).

// mmaSync runs mma.sync.aligned.m16n8kK.row.col: D = C + sum over k in
// order of A·B, in float (as wmma.mma).
func (e *ptxWorker) mmaSync(wp *pwarp, x *xin) {
	w := x.in.Wmma
	K := w.K
	var a [16][16]float32
	var b [16][8]float32
	var c [16][8]float32
	el := func(m ptx.MatType, v uint64, h int) float32 {
		if m.Bits() == 16 {
			return matFloat(m, uint32(v>>(16*h))&0xffff)
		}
		return matFloat(m, uint32(v))
	}
	av, bv, cv := x.src[0].vec, x.src[1].vec, x.src[2].vec
	tf32 := w.AB == ptx.MatTF32
	for l := range 32 {
		g, t := l/4, l%4
		for q, r := range av {
			v := wp.regs[r][l]
			if tf32 {
				a[g+8*(q%2)][t+4*(q/2)] = el(w.AB, v, 0)
				continue
			}
			row, col := g+8*(q%2), 2*t+8*(q/2)
			a[row][col], a[row][col+1] = el(w.AB, v, 0), el(w.AB, v, 1)
		}
		for q, r := range bv {
			v := wp.regs[r][l]
			if tf32 {
				b[t+4*q][g] = el(w.AB, v, 0)
				continue
			}
			k := 2*t + 8*q
			b[k][g], b[k+1][g] = el(w.AB, v, 0), el(w.AB, v, 1)
		}
		for q, r := range cv {
			v := wp.regs[r][l]
			if w.C == ptx.MatF16 {
				c[g+8*q][2*t], c[g+8*q][2*t+1] = el(w.C, v, 0), el(w.C, v, 1)
				continue
			}
			c[g+8*(q/2)][2*t+q%2] = el(w.C, v, 0)
		}
	}
	var d [16][8]float32
	for i := range 16 {
		for j := range 8 {
			s := c[i][j]
			for k := range K {
				s += float32(a[i][k] * b[k][j])
			}
			d[i][j] = s
		}
	}
	for q, r := range x.dst[0].vec {
		row := e.dst(wp, &xopd{kind: oReg, idx: r}, 0)
		for l := range 32 {
			g, t := l/4, l%4
			if w.D == ptx.MatF16 {
				row[l] = uint64(matBits(w.D, d[g+8*q][2*t])) | uint64(matBits(w.D, d[g+8*q][2*t+1]))<<16
				continue
			}
			row[l] = uint64(math.Float32bits(d[g+8*(q/2)][2*t+q%2]))
		}
	}
}

// ldmatrix runs ldmatrix.sync.aligned.m8n8.xN[.trans].shared.b16: matrix i
// of the N has its 8 rows of 8 halves at the addresses of lanes 8i..8i+7;
// lane l receives in register i the halves (l/4, 2(l%4)) and (l/4,
// 2(l%4)+1) of matrix i, or with .trans (2(l%4), l/4) and (2(l%4)+1, l/4).
func (e *ptxWorker) ldmatrix(wp *pwarp, x *xin) *Fault {
	w := x.in.Wmma
	var m [4][8][8]uint16
	for i := range w.N {
		for r := range 8 {
			lane := 8*i + r
			addr := x.aconst
			if x.abase >= 0 {
				addr += wp.regs[x.abase][lane]
			}
			if x.a32 {
				addr &= 0xffffffff
			}
			if addr%16 != 0 {
				return e.fault(wp, lane, x, "misaligned address", fmt.Sprintf("ldmatrix row at shared offset %d, not a multiple of 16", addr))
			}
			for c := range 8 {
				p, f := e.wmmaAtLane(wp, x, lane, addr+2*uint64(c), false)
				if f != nil {
					return f
				}
				m[i][r][c] = uint16(readMem(p, 2))
			}
		}
	}
	for i, reg := range x.dst[0].vec {
		row := e.dst(wp, &xopd{kind: oReg, idx: reg}, 0)
		for l := range 32 {
			r, c := l/4, 2*(l%4)
			lo, hi := m[i][r][c], m[i][r][c+1]
			if w.Trans {
				lo, hi = m[i][c][r], m[i][c+1][r]
			}
			row[l] = uint64(lo) | uint64(hi)<<16
		}
	}
	return nil
}

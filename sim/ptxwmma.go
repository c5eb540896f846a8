package sim

import (
	"fmt"
	"math"
	"math/bits"
	"unsafe"

	"github.com/warplab/warplab/sim/ptx"
)

// WMMA: wmma.load, wmma.mma and wmma.store of shape m16n16k16 with half
// A and B and float C and D (the tensor-core tile of the WMMA API's first
// examples).
//
// How a fragment's elements are spread over the warp's registers is
// unspecified by the PTX manual (its "Matrix fragments for WMMA"): code
// may only load, store, run mma on, and apply one operation to every
// element of a fragment. The simulator spreads each 16×16 matrix in
// row-major order of its logical indices: A (i,k), B (k,j), C and D (i,j);
// lane l's register q of C and D holds element 8l+q, and its register q of
// A and B (a pair of halves) elements 16l+2q and 16l+2q+1, modulo 256 (the
// 512 halves a warp holds are the matrix twice, as on sm_70). mma computes
// D[i][j] = C[i][j] + Σ_k A[i][k]·B[k][j], k in order, in float: a
// product of two halves is exact in a float, so only the additions round;
// the GPU's order of additions is not specified, so D can differ from the
// H200's in the last bits when the sums are not exact. The loads and
// stores are checked against their buffers like any access but are not
// counted as memory requests.

// wmmaElems is one 16×16 matrix's elements by logical index (row-major):
// float bits, or half bits.
type wmmaElems [256]uint32

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
		e.mmaSync(wp, x)
		return nil
	case 'L':
		return e.ldmatrix(wp, x)
	case 'm':
		var a, b, c wmmaElems
		e.fragIn(wp, x.src[0].vec, &a, true)
		e.fragIn(wp, x.src[1].vec, &b, true)
		e.fragIn(wp, x.src[2].vec, &c, false)
		var d wmmaElems
		for i := range 16 {
			for j := range 16 {
				s := math.Float32frombits(c[16*i+j])
				for k := range 16 {
					s += halfToFloat(uint16(a[16*i+k])) * halfToFloat(uint16(b[16*k+j]))
				}
				d[16*i+j] = math.Float32bits(s)
			}
		}
		e.fragOut(wp, x.dst[0].vec, &d, false)
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
	var m wmmaElems
	if w.Op == 's' {
		e.fragIn(wp, x.src[1].vec, &m, false)
	}
	for r := range 16 {
		for c := range 16 {
			off := uint64(r)*ld + uint64(c)
			if w.ColMaj {
				off = uint64(c)*ld + uint64(r)
			}
			p, f := e.wmmaAt(wp, x, addr+off*es, w.Op == 's')
			if f != nil {
				return f
			}
			if w.Op == 's' {
				writeMem(p, int(es), uint64(m[16*r+c]))
			} else {
				m[16*r+c] = uint32(readMem(p, int(es)))
			}
		}
	}
	if w.Op == 'l' {
		e.fragOut(wp, x.dst[0].vec, &m, w.Elem == ptx.F16)
	}
	return nil
}

// fragIn gathers a fragment's matrix from its registers (the layout above).
func (e *ptxWorker) fragIn(wp *pwarp, vec []int32, m *wmmaElems, half bool) {
	for l := range 32 {
		for q, r := range vec {
			v := wp.regs[r][l]
			if half {
				i := (16*l + 2*q) % 256
				m[i], m[i+1] = uint32(v&0xffff), uint32(v>>16&0xffff)
				continue
			}
			m[8*l+q] = uint32(v)
		}
	}
}

// fragOut spreads a matrix over a fragment's registers (the layout above).
func (e *ptxWorker) fragOut(wp *pwarp, vec []int32, m *wmmaElems, half bool) {
	for q, r := range vec {
		row := e.dst(wp, &xopd{kind: oReg, idx: r}, 0)
		for l := range 32 {
			if half {
				i := (16*l + 2*q) % 256
				row[l] = uint64(m[i]&0xffff | m[i+1]<<16)
				continue
			}
			row[l] = uint64(m[8*l+q])
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
// ("Matrix Fragments for mma.m16n8k16 with floating point type"): lane l
// is thread t = l%4 of group g = l/4. A (16×K halves, row-major): register
// 0 holds (g, 2t) and (g, 2t+1) in its low and high halves, register 1
// rows g+8, registers 2 and 3 (K = 16) the same at columns 2t+8, 2t+9. B
// (K×8, column-major): register 0 holds (2t, g) and (2t+1, g), register 1
// (K = 16) rows 2t+8 and 2t+9. C and D (16×8 floats): registers 0 and 1
// hold (g, 2t) and (g, 2t+1), registers 2 and 3 row g+8.

// mmaSync runs mma.sync.aligned.m16n8k16/k8.row.col.f32.f16.f16.f32:
// D = C + sum over k in order of A·B, in float (as wmma.mma).
func (e *ptxWorker) mmaSync(wp *pwarp, x *xin) {
	K := x.in.Wmma.K
	var a [16][16]float32
	var b [16][8]float32
	var c [16][8]float32
	half := func(v uint64, hi bool) float32 {
		if hi {
			return halfToFloat(uint16(v >> 16))
		}
		return halfToFloat(uint16(v))
	}
	av, bv, cv := x.src[0].vec, x.src[1].vec, x.src[2].vec
	for l := range 32 {
		g, t := l/4, l%4
		for q, r := range av {
			row, col := g+8*(q%2), 2*t+8*(q/2)
			v := wp.regs[r][l]
			a[row][col], a[row][col+1] = half(v, false), half(v, true)
		}
		for q, r := range bv {
			k := 2*t + 8*q
			v := wp.regs[r][l]
			b[k][g], b[k+1][g] = half(v, false), half(v, true)
		}
		for q, r := range cv {
			c[g+8*(q/2)][2*t+q%2] = math.Float32frombits(uint32(wp.regs[r][l]))
		}
	}
	var d [16][8]float32
	for i := range 16 {
		for j := range 8 {
			s := c[i][j]
			for k := range K {
				s += a[i][k] * b[k][j]
			}
			d[i][j] = s
		}
	}
	for q, r := range x.dst[0].vec {
		row := e.dst(wp, &xopd{kind: oReg, idx: r}, 0)
		for l := range 32 {
			g, t := l/4, l%4
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

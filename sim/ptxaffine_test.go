package sim

import (
	"math/bits"
	"math/rand/v2"
	"os"
	"reflect"
	"testing"

	"github.com/warplab/warplab/sim/ptx"
)

// TestPTXAffineMatchesEval runs every instruction of the lessons' PTX and
// the test PTX that aluAff or setpAff may run in affine form, on sources in
// affine form (uniform and stepping, steps small, negative and huge, bases
// near every wrap point) and random active masks, and checks that whenever
// the affine path takes an instruction, each executing lane of its result
// is ptx.Eval's on that lane's source values.
func TestPTXAffineMatchesEval(t *testing.T) {
	bases := []uint64{0, 1, 5, 31, 32, 0x7fffffe0, 0x7ffffff0, 0x80000000, 0xffffffe0, 0xfffffff0, 0xffffffff,
		1 << 32, 1<<63 - 16, 1 << 63, ^uint64(0) - 16, 0x1_0000_0400}
	steps := []uint64{0, 1, 2, 4, 8, 32, 128, ^uint64(0), ^uint64(3), 0x10000, 0x40000000, 0x80000000, 1 << 40}
	r := rand.New(rand.NewPCG(21, 22))
	took := map[uint8]int{}
	setps := 0
	for _, lk := range lessonKernels(t) {
		f, pk, k := lk.file, lk.pk, lk.pk.k
		e := &ptxWorker{l: &ptxLaunch{pk: pk}, formsOn: true}
		wp := &pwarp{regs: make([][32]uint64, pk.nregs), aff: make([]affv, pk.nregs), stale: new([]int32)}
		for i := range pk.code {
			x := &pk.code[i]
			setp := x.fast == fSetpI && x.in.NDst == 1 && x.setpKind != setpGeneral
			if !x.affOK && !setp {
				continue
			}
			for range 40 {
				// Sources: registers in affine form, special registers
				// stepping by one or uniform.
				for reg := range wp.regs {
					wm := typeMask(k.Regs[reg].Type)
					b, s := bases[r.IntN(len(bases))]+uint64(r.IntN(3)), steps[r.IntN(len(steps))]
					if r.IntN(4) == 0 {
						b = r.Uint64()
					}
					if k.Regs[reg].Type == ptx.Pred {
						wm, b, s = 1, uint64(r.IntN(2)), 0
					}
					wp.aff[reg] = affv{ok: true, stale: true, base: b, step: s, wm: wm}
				}
				for sp := range wp.spec {
					b, s := uint64(r.IntN(1024)), uint64(r.IntN(2))
					for l := range 32 {
						wp.spec[sp][l] = b + s*uint64(l)
					}
					wp.specAff[sp] = detectAff(&wp.spec[sp])
				}
				exec := r.Uint32()
				switch r.IntN(3) {
				case 0:
					exec = fullMask
				case 1:
					lo := r.IntN(32)
					exec = (fullMask >> lo) << lo & (fullMask >> r.IntN(32-lo))
				}
				if exec == 0 {
					exec = 1
				}
				e.act, wp.live = exec, exec
				// The sources' lanes, for Eval: rows written from the
				// forms (a copy, so that the forms stay unwritten).
				var srcs [4][32]uint64
				saved := append([]affv(nil), wp.aff...)
				for reg := range wp.regs {
					wp.fill(int32(reg))
				}
				for j := 0; j < int(x.nsrc) && j < 4; j++ {
					srcs[j] = *e.src(wp, &x.src[j], j)
				}
				copy(wp.aff, saved)
				if setp {
					pb, ok := e.setpAff(wp, x, exec)
					if !ok {
						continue
					}
					setps++
					for l := range 32 {
						if exec&(1<<l) == 0 {
							continue
						}
						want, _ := ptxEval(x.in, srcs[0][l], srcs[1][l], 0, 0)
						if got := uint64(pb>>l) & 1; got != want {
							t.Fatalf("%s line %d %q lane %d (exec %032b): affine %d, Eval %d (sources %#x %#x)",
								f, x.in.Line, x.in.Text, l, exec, got, want, srcs[0][l], srcs[1][l])
						}
					}
					continue
				}
				if !e.aluAff(wp, x, exec) {
					continue
				}
				took[x.fast]++
				d := x.dst[0].idx
				wp.fill(d)
				for l := range 32 {
					if exec&(1<<l) == 0 {
						continue
					}
					want, _ := ptxEval(x.in, srcs[0][l], srcs[1][l], srcs[2][l], srcs[3][l])
					if got := wp.regs[d][l]; got != want {
						a := wp.aff[d]
						t.Fatalf("%s line %d %q lane %d (exec %032b): affine %#x (form %#x + %#x·l & %#x), Eval %#x (sources %#x %#x %#x)",
							f, x.in.Line, x.in.Text, l, exec, got, a.base, a.step, a.wm, want, srcs[0][l], srcs[1][l], srcs[2][l])
					}
				}
			}
		}
	}
	for _, c := range []uint8{fMov, fAdd32, fAdd64, fSub32, fMulLo32, fMulWideS32, fMulWideU32, fShl32, fShl64, fShrU32, fShrU64, fAnd, fNot, fCvtU64U32, fCvtS64S32} {
		if took[c] == 0 {
			t.Errorf("fast class %d never ran in affine form", c)
		}
	}
	if setps == 0 {
		t.Error("no setp ran in affine form")
	}
	t.Logf("affine instructions checked by class: %v; setp: %d", took, setps)
	_ = bits.OnesCount32
}

// TestPTXAffineMatchesLanes runs kernels with affine registers (the
// default) and with every register kept as its 32 lanes
// (PTXKernel.lanes), and checks that outputs and counters are the same:
// the Day-37 kernels over irregular matrices (empty rows, rows of 1 to 70
// nonzeros, a row count no multiple of the block), and the test PTX's
// control-flow kernels, whose divergent writes exercise whole's liveness
// rule.
func TestPTXAffineMatchesLanes(t *testing.T) {
	module := func(f string) *ptx.Module {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ptx.Parse(f, string(src))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	spmv, basic := module("../lessons/spmv/spmv.ptx"), module("testdata/ptx/basic.ptx")
	type run struct {
		name        string
		mod         *ptx.Module
		kernel      string
		grid, block int
		args        func(d *Device) []any
		outs        func(args []any) []any
	}
	csr := func(rows int, seed uint64) (rp, ci []int32, v, xs []float32) {
		r := rand.New(rand.NewPCG(seed, 1))
		rp = make([]int32, rows+1)
		for i := range rows {
			n := r.IntN(71)
			if r.IntN(5) == 0 {
				n = 0
			}
			for range n {
				ci = append(ci, int32(r.IntN(rows)))
				v = append(v, float32(r.IntN(9)-4))
			}
			rp[i+1] = int32(len(ci))
		}
		xs = make([]float32, rows)
		for i := range xs {
			xs[i] = float32(r.IntN(17)-8) / 4
		}
		return
	}
	var runs []run
	for _, kern := range []string{"spmvCsrThreadPerRow", "spmvCsrWarpPerRow", "spmvCsrThreadPerRow_unroll1", "spmvCsrWarpPerRow_unroll1"} {
		for _, rows := range []int{1, 37, 300} {
			for _, block := range []int{64, 96} {
				threads := rows
				if kern == "spmvCsrWarpPerRow" || kern == "spmvCsrWarpPerRow_unroll1" {
					threads = 32 * rows
				}
				rows, seed := rows, uint64(rows*block)
				runs = append(runs, run{
					name: kern, mod: spmv, kernel: kern, grid: (threads + block - 1) / block, block: block,
					args: func(d *Device) []any {
						rp, ci, v, xs := csr(rows, seed)
						return []any{mustUpload(t, d, "rowPtr", rp), mustUpload(t, d, "colIdx", ci), mustUpload(t, d, "val", v),
							mustUpload(t, d, "x", xs), mustUpload(t, d, "y", make([]float32, rows)), uint64(rows)}
					},
					outs: func(a []any) []any { return []any{a[4].(*Global[float32]).Data} },
				})
			}
		}
	}
	out64 := func(d *Device) *Global[int32] { return mustUpload(t, d, "out", make([]int32, 64)) }
	in64 := func(d *Device) *Global[int32] {
		return mustUpload(t, d, "in", iota32(64, func(i int) int32 { return int32(i*7 - 100) }))
	}
	for _, c := range []struct {
		kernel string
		args   func(d *Device) []any
	}{
		{"ifelse", func(d *Device) []any { return []any{in64(d), out64(d), out64(d)} }},
		{"nested", func(d *Device) []any { return []any{out64(d)} }},
		{"loopbrk", func(d *Device) []any { return []any{out64(d), in64(d)} }},
		{"earlyret", func(d *Device) []any { return []any{out64(d)} }},
		{"switchk", func(d *Device) []any { return []any{out64(d)} }},
		{"depot", func(d *Device) []any { return []any{out64(d)} }},
	} {
		runs = append(runs, run{name: c.kernel, mod: basic, kernel: c.kernel, grid: 1, block: 64, args: c.args,
			outs: func(a []any) []any {
				var o []any
				for _, g := range a {
					if g, ok := g.(*Global[int32]); ok {
						o = append(o, g.Data)
					}
				}
				return o
			}})
	}
	for _, rc := range runs {
		var outs [2][]any
		var stats [2]*Stats
		for i, lanes := range []bool{true, false} {
			k, err := NewPTXKernel(rc.mod, rc.kernel)
			if err != nil {
				t.Fatal(err)
			}
			k.lanes = lanes
			d := newH200(t)
			args := rc.args(d)
			st, err := d.LaunchPTX(t.Context(), k, Dim1(rc.grid), Dim1(rc.block), 0, args...)
			if err != nil {
				t.Fatalf("%s grid %d block %d (lanes %v): %v", rc.name, rc.grid, rc.block, lanes, err)
			}
			stats[i], outs[i] = st, rc.outs(args)
		}
		if !reflect.DeepEqual(outs[0], outs[1]) {
			t.Errorf("%s grid %d block %d: outputs differ: lanes %v, affine %v", rc.name, rc.grid, rc.block, outs[0], outs[1])
		}
		if !reflect.DeepEqual(stats[0], stats[1]) {
			t.Errorf("%s grid %d block %d: counters differ:\nlanes  %+v\naffine %+v", rc.name, rc.grid, rc.block, stats[0], stats[1])
		}
	}
}

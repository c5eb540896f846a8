package sim_test

import (
	"fmt"
	"math"
	"math/bits"
	"sort"

	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/sim/ptx"
)

// The basics of the corpus (testdata/corpus/basics.cu) against CPU
// references.
func init() {
	intsIn := func(n int) []int32 { return seq(n, func(i int) int32 { return int32(i*2654435761>>7)%201 - 100 }) }
	corpus = append(corpus,
		corpusCase{
			name: "basics/reduceShared", file: "basics", kernel: "reduceShared", grid: sim.Dim1(5), block: sim.Dim1(128), shared: 128 * 4,
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				const n = 1200 // the last block is partial
				in, _ := sim.Upload(d, "in", intsIn(n))
				out, _ := sim.Alloc[int32](d, "out", 5)
				return []any{in, out, int32(n)}, func(*sim.Stats) error {
					want := make([]int32, 5)
					for i, v := range in.Data {
						want[i/256] += v
					}
					return equal("out", out.Data, want)
				}
			},
		},
		corpusCase{
			name: "basics/reduceShuffle", file: "basics", kernel: "reduceShuffle", grid: sim.Dim1(4), block: sim.Dim1(256),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				const n = 1000
				in, _ := sim.Upload(d, "in", intsIn(n))
				out, _ := sim.Alloc[int32](d, "out", 1)
				return []any{in, out, int32(n)}, func(*sim.Stats) error {
					var s int32
					for _, v := range in.Data {
						s += v
					}
					return equal("out", out.Data, []int32{s})
				}
			},
		},
		corpusCase{
			name: "basics/scanBlock", file: "basics", kernel: "scanBlock", grid: sim.Dim1(3), block: sim.Dim1(128), shared: 2 * 128 * 4,
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				const n = 300
				in, _ := sim.Upload(d, "in", intsIn(n))
				out, _ := sim.Alloc[int32](d, "out", n)
				return []any{in, out, int32(n)}, func(*sim.Stats) error {
					want := make([]int32, n)
					for i, v := range in.Data {
						want[i] = v
						if i%128 != 0 {
							want[i] += want[i-1]
						}
					}
					return equal("out", out.Data, want)
				}
			},
		},
		corpusCase{
			name: "basics/stencil2d", file: "basics", kernel: "stencil2d", grid: sim.Dim2(3, 2), block: sim.Dim2(16, 16),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				const w, h = 40, 27
				u, _ := sim.Upload(d, "u", seq(w*h, func(i int) float32 { return float32(i*37%23) - 11 }))
				v, _ := sim.Alloc[float32](d, "v", w*h)
				return []any{u, v, int32(w), int32(h)}, func(*sim.Stats) error {
					want := make([]float32, w*h)
					for y := range h {
						for x := range w {
							i := y*w + x
							if x == 0 || y == 0 || x == w-1 || y == h-1 {
								want[i] = u.Data[i]
								continue
							}
							want[i] = 0.25 * (u.Data[i-1] + u.Data[i+1] + u.Data[i-w] + u.Data[i+w])
						}
					}
					return equal("v", v.Data, want)
				}
			},
		},
		corpusCase{
			name: "basics/spmvCoo", file: "basics", kernel: "spmvCoo", grid: sim.Dim1(4), block: sim.Dim1(128),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				const rows, nnz = 64, 500
				// Values and x are small multiples of 1/2: every partial
				// sum is exact, so the atomics' order does not matter.
				row, _ := sim.Upload(d, "row", seq(nnz, func(k int) int32 { return int32(k * 7 % rows) }))
				col, _ := sim.Upload(d, "col", seq(nnz, func(k int) int32 { return int32(k * 13 % 50) }))
				val, _ := sim.Upload(d, "val", seq(nnz, func(k int) float32 { return float32(k%9-4) * 0.5 }))
				x, _ := sim.Upload(d, "x", seq(50, func(i int) float32 { return float32(i%5 - 2) }))
				y, _ := sim.Alloc[float32](d, "y", rows)
				return []any{row, col, val, x, y, int32(nnz)}, func(*sim.Stats) error {
					want := make([]float32, rows)
					for k := range nnz {
						want[row.Data[k]] += val.Data[k] * x.Data[col.Data[k]]
					}
					return equal("y", y.Data, want)
				}
			},
		},
		corpusCase{
			name: "basics/bfsLevel", file: "basics", kernel: "bfsLevel", grid: sim.Dim1(1), block: sim.Dim1(64),
			orderDependent: map[string]bool{"next": true}, // the next frontier's order is the atomics'
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				// A graph of 200 vertices, vertex u linked to 3u+1..3u+3
				// and to u/2; frontier: 0..39 at depth 2 (the rest -1).
				const nv, nf = 200, 40
				var rp []int32
				var cols []int32
				for u := range nv {
					rp = append(rp, int32(len(cols)))
					for _, v := range []int{3*u + 1, 3*u + 2, 3*u + 3, u / 2} {
						if v < nv && v != u {
							cols = append(cols, int32(v))
						}
					}
				}
				rp = append(rp, int32(len(cols)))
				lv := seq(nv, func(u int) int32 {
					if u < nf {
						return 2
					}
					return -1
				})
				rowPtr, _ := sim.Upload(d, "rowPtr", rp)
				colsB, _ := sim.Upload(d, "cols", cols)
				level, _ := sim.Upload(d, "level", lv)
				frontier, _ := sim.Upload(d, "frontier", seq(nf, func(i int) int32 { return int32(i) }))
				next, _ := sim.Alloc[int32](d, "next", nv)
				nnext, _ := sim.Alloc[int32](d, "nnext", 1)
				return []any{rowPtr, colsB, level, frontier, int32(nf), next, nnext, int32(2)}, func(*sim.Stats) error {
					wantLv := append([]int32(nil), lv...)
					var wantNext []int32
					for u := range nf {
						for e := rp[u]; e < rp[u+1]; e++ {
							if v := cols[e]; wantLv[v] == -1 {
								wantLv[v] = 3
								wantNext = append(wantNext, v)
							}
						}
					}
					if err := equal("level", level.Data, wantLv); err != nil {
						return err
					}
					if int(nnext.Data[0]) != len(wantNext) {
						return fmt.Errorf("next frontier has %d vertices, want %d", nnext.Data[0], len(wantNext))
					}
					got := append([]int32(nil), next.Data[:len(wantNext)]...)
					sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
					sort.Slice(wantNext, func(i, j int) bool { return wantNext[i] < wantNext[j] })
					return equal("next (sorted)", got, wantNext)
				}
			},
		},
	)
}

// The integer and fast-math intrinsics (testdata/corpus/bitops.cu).
func init() {
	corpus = append(corpus,
		corpusCase{
			name: "bitops/bitops", file: "bitops", kernel: "bitops", grid: sim.Dim1(2), block: sim.Dim1(64),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				const n = 100
				x, _ := sim.Upload(d, "x", seq(n, func(i int) uint32 {
					switch i {
					case 0:
						return 0
					case 1:
						return 0xffffffff
					case 2:
						return 0x80000000
					}
					return uint32(i) * 2654435761 >> uint(i%13)
				}))
				out, _ := sim.Alloc[uint32](d, "out", 8*n)
				return []any{x, out, int32(n)}, func(*sim.Stats) error {
					want := make([]uint32, 8*n)
					for i, v := range x.Data {
						o := want[8*i:]
						o[0] = uint32(bits.LeadingZeros32(v))
						if v != 0 {
							o[1] = uint32(bits.TrailingZeros32(v)) + 1
						}
						o[2] = bits.Reverse32(v)
						src := uint64(0x76543210)<<32 | uint64(v)
						for k, sel := range []uint{0, 4, 1, 5} { // __byte_perm selector 0x5140, low nibble first
							o[3] |= uint32(src>>(8*sel)&0xff) << (8 * k)
						}
						o[4] = uint32((uint64(0x9abcdef0)<<32 | uint64(v)) << uint(i%32) >> 32)
						o[5] = uint32(uint64(v) * 2654435761 >> 32)
						o[6] = (v & 0xffffff) * 1234567
						diff := int64(int32(v)) - int64(i*1000)
						if diff < 0 {
							diff = -diff
						}
						o[7] = uint32(diff) + 7
					}
					return equal("out", out.Data, want)
				}
			},
		},
		corpusCase{
			name: "bitops/fastmath", file: "bitops", kernel: "fastmath", grid: sim.Dim1(1), block: sim.Dim1(64),
			approx: map[string]float64{"out": 2.5e-6}, // sin/cos.approx: 2^-20.9 absolute, ex2.approx: 2^-22 relative (PTX ISA), on each side
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				const n = 64
				x, _ := sim.Upload(d, "x", seq(n, func(i int) float32 { return float32(i-32) / 10.5 }))
				out, _ := sim.Alloc[float32](d, "out", n)
				return []any{x, out, int32(n)}, func(*sim.Stats) error {
					// The approximations' bounds (sin and cos: 2^-20.9
					// absolute in -pi..pi; ex2: 2 ulp) and the float
					// additions: 1e-5 absolute.
					want := seq(n, func(i int) float32 {
						v := float64(x.Data[i])
						return float32(math.Sin(v) + math.Cos(v) + math.Exp(-v*v))
					})
					return closeTo("out", out.Data, want, 1e-5)
				}
			},
		},
	)
}

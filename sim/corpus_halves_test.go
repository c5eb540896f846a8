package sim_test

import (
	"math"

	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/sim/ptx"
)

// The 16-bit float corpus (testdata/corpus/halves.cu): __half2 pairs,
// bfloat16 scalars and pairs, and the packing conversions. The inputs are
// halves in [-4, 4), so every result is exact in a half and in a bfloat16
// (at most 7 significant bits) and the CPU references are float32
// arithmetic.

func init() {
	const n = 100
	xv := seq(n, func(i int) float32 { return float32(i*7%16-8) / 2 })
	yv := seq(n, func(i int) float32 { return float32(i*5%16-8) / 2 })
	halves := func(w []uint32) []float32 {
		out := make([]float32, 0, 2*len(w))
		for _, v := range w {
			out = append(out, halfFrom(uint16(v)), halfFrom(uint16(v>>16)))
		}
		return out
	}
	corpus = append(corpus,
		corpusCase{
			name: "halves/half2s", file: "halves", kernel: "half2s", grid: sim.Dim1(1), block: sim.Dim1(64),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				x, _ := sim.Upload(d, "x", packPairs(xv, halfBits))
				y, _ := sim.Upload(d, "y", packPairs(yv, halfBits))
				out, _ := sim.Alloc[uint32](d, "out", 4*n/2)
				return []any{x, y, out, int32(n / 2)}, func(*sim.Stats) error {
					want := make([]float32, 0, 4*n)
					for i := 0; i < n; i += 2 { // pair i/2: lanes i (low) and i+1 (high)
						for _, f := range []func(a, b float32) float32{
							func(a, b float32) float32 { return a + b },
							func(a, b float32) float32 { return a*b - b },
							func(a, b float32) float32 { return a*b + a },
							func(a, b float32) float32 { return max(a, -abs32(b)) },
						} {
							want = append(want, f(xv[i], yv[i]), f(xv[i+1], yv[i+1]))
						}
					}
					return equal("out", halves(out.Data), want)
				}
			},
		},
		corpusCase{
			name: "halves/bf16s", file: "halves", kernel: "bf16s", grid: sim.Dim1(2), block: sim.Dim1(64),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				x, _ := sim.Upload(d, "x", xv)
				y, _ := sim.Upload(d, "y", yv)
				out, _ := sim.Alloc[float32](d, "out", 4*n)
				return []any{x, y, out, int32(n)}, func(*sim.Stats) error {
					want := make([]float32, 0, 4*n)
					for i := range n {
						a, b := xv[i], yv[i]
						want = append(want, a*b+a, a*b, a+b, (a*a+a)-(b*b+b))
					}
					return equal("out", out.Data, want)
				}
			},
		},
		corpusCase{
			name: "halves/pack", file: "halves", kernel: "pack", grid: sim.Dim1(2), block: sim.Dim1(64),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				x, _ := sim.Upload(d, "x", xv)
				y, _ := sim.Upload(d, "y", yv)
				bits, _ := sim.Alloc[uint32](d, "bits", n)
				back, _ := sim.Alloc[float32](d, "back", 2*n)
				return []any{x, y, bits, back, int32(n)}, func(*sim.Stats) error {
					if err := equal("bits", bits.Data, seq(n, func(i int) uint32 {
						return uint32(halfBits(xv[i])) | uint32(halfBits(yv[i]))<<16
					})); err != nil {
						return err
					}
					return equal("back", back.Data, seq(2*n, func(j int) float32 {
						if j%2 == 0 {
							return xv[j/2]
						}
						return yv[j/2]
					}))
				}
			},
		},
		corpusCase{
			name: "halves/halfAtomics", file: "halves", kernel: "halfAtomics", grid: sim.Dim1(2), block: sim.Dim1(32),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				const pairs = 64
				iv := seq(2*pairs, func(i int) float32 { return float32(i*7%8 - 4) }) // integers: any order of adds is exact
				x, _ := sim.Upload(d, "x", packPairs(iv, halfBits))
				acc2, _ := sim.Alloc[uint32](d, "acc2", 4)
				acc, _ := sim.Alloc[uint32](d, "acc", 2)
				bacc, _ := sim.Alloc[uint32](d, "bacc", 2)
				return []any{x, acc2, acc, bacc, int32(pairs)}, func(*sim.Stats) error {
					lo, hi := make([]float32, 4), make([]float32, 4)
					for i := range pairs {
						lo[i%4] += iv[2*i]
						hi[i%4] += iv[2*i+1]
					}
					want2 := make([]float32, 0, 8)
					for k := range 4 {
						want2 = append(want2, lo[k], hi[k])
					}
					if err := equal("acc2", halves(acc2.Data), want2); err != nil {
						return err
					}
					if err := equal("acc", halves(acc.Data), lo); err != nil {
						return err
					}
					var got []float32
					for _, w := range bacc.Data {
						got = append(got, math.Float32frombits(w<<16), math.Float32frombits(w&0xffff0000))
					}
					return equal("bacc", got, lo)
				}
			},
		},
	)
}

// abs32 is |f|.
func abs32(f float32) float32 {
	if f < 0 {
		return -f
	}
	return f
}

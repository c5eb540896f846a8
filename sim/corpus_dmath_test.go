package sim_test

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/sim/ptx"
)

// The double-precision corpus (testdata/corpus/dmath.cu): the library's
// sin, cos, exp, log and pow, held to Go's within the CUDA Programming
// Guide's stated errors (2 ulp for sin, cos and pow, 1 for exp and log:
// here 4 ulp of the result), large angles included, whose reduction runs
// the carry chains; and 128-bit arithmetic through add.cc, addc, mad.lo.cc,
// madc.hi, sub.cc and subc, exact.

func init() {
	const n = 64
	big := []float64{1e6 + 0.5, 12345678.9, 3e9, 1e10 + 1, 7.5e12}
	xs := seq(n, func(i int) float64 {
		if i%8 == 7 {
			return big[i/8%len(big)] * float64(1-2*(i/8%2))
		}
		return float64(i*37%200-100) * 0.37
	})
	corpus = append(corpus,
		corpusCase{
			name: "dmath/dmath", file: "dmath", kernel: "dmath", grid: sim.Dim1(2), block: sim.Dim1(32),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				x, _ := sim.Upload(d, "x", xs)
				out, _ := sim.Alloc[float64](d, "out", 5*n)
				return []any{x, out, int32(n)}, func(*sim.Stats) error {
					for i, v := range xs {
						for j, want := range []float64{math.Sin(v), math.Cos(v), math.Exp(v / 1000), math.Log(math.Abs(v)), math.Pow(math.Abs(v), 0.75)} {
							got := out.Data[5*i+j]
							if ulp := math.Abs(math.Nextafter(want, math.Inf(1)) - want); math.Abs(got-want) > 4*ulp {
								return fmt.Errorf("out[%d] (function %d of %g) = %.17g, want %.17g (4 ulp)", 5*i+j, j, v, got, want)
							}
						}
					}
					return nil
				}
			},
		},
		corpusCase{
			name: "dmath/wide", file: "dmath", kernel: "wide", grid: sim.Dim1(2), block: sim.Dim1(32),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				r := lcg(4*n, 99)
				av := seq(n, func(i int) int64 { return int64(uint64(r[4*i])<<32 | uint64(r[4*i+1])) })
				bv := seq(n, func(i int) int64 { return int64(uint64(r[4*i+2])<<32 | uint64(r[4*i+3])) })
				a, _ := sim.Upload(d, "a", av)
				b, _ := sim.Upload(d, "b", bv)
				prod, _ := sim.Alloc[int64](d, "prod", 2*n)
				sum, _ := sim.Alloc[int64](d, "sum", 4*n)
				return []any{a, b, prod, sum, int32(n)}, func(*sim.Stats) error {
					var wp, ws []int64
					for i := range n {
						x, y := uint64(av[i]), uint64(bv[i])
						hi, lo := bits.Mul64(x, y)
						wp = append(wp, int64(lo), int64(hi))
						s0, c := bits.Add64(lo, x, 0)
						s1, _ := bits.Add64(hi, y, c)
						// (s1:s0)'s low 64 bits += x.lo * y.lo, the carry into bit 64 dropped
						m := uint64(uint32(x))*uint64(uint32(y)) + s0
						d0, _ := bits.Sub64(lo, x, 0)
						ws = append(ws, int64(s0), int64(s1), int64(m), int64(d0))
					}
					if err := equal("prod", prod.Data, wp); err != nil {
						return err
					}
					return equal("sum", sum.Data, ws)
				}
			},
		},
	)
}

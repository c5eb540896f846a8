package sim_test

import (
	"math"

	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/sim/ptx"
)

// The row-wise kernels and patterns of testdata/corpus/rows.cu against CPU
// references (floats within tolerances: expf, rsqrtf and tanhf run through
// approximate instructions).
func init() {
	const rows, cols = 6, 100
	xs := seq(rows*cols, func(i int) float32 { return float32((i*37)%41-20) / 8 })
	corpus = append(corpus,
		corpusCase{
			name: "rows/softmax", file: "rows", kernel: "softmax", grid: sim.Dim1(rows), block: sim.Dim1(32),
			approx: map[string]float64{"y": 1e-6}, // y <= 1; ex2.approx: 2^-22 relative a term (PTX ISA), rcp within an ulp, on each side
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				x, _ := sim.Upload(d, "x", xs)
				y, _ := sim.Alloc[float32](d, "y", rows*cols)
				return []any{x, y, int32(cols)}, func(*sim.Stats) error {
					want := make([]float32, rows*cols)
					for r := range rows {
						m, s := math.Inf(-1), 0.0
						for j := range cols {
							m = math.Max(m, float64(xs[r*cols+j]))
						}
						for j := range cols {
							s += math.Exp(float64(xs[r*cols+j]) - m)
						}
						for j := range cols {
							want[r*cols+j] = float32(math.Exp(float64(xs[r*cols+j])-m) / s)
						}
					}
					return closeTo("y", y.Data, want, 1e-6)
				}
			},
		},
		corpusCase{
			name: "rows/layernorm", file: "rows", kernel: "layernorm", grid: sim.Dim1(rows), block: sim.Dim1(32),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				x, _ := sim.Upload(d, "x", xs)
				g, _ := sim.Upload(d, "g", seq(cols, func(j int) float32 { return 1 + float32(j%3)/4 }))
				b, _ := sim.Upload(d, "b", seq(cols, func(j int) float32 { return float32(j%5) / 8 }))
				y, _ := sim.Alloc[float32](d, "y", rows*cols)
				const eps = 1e-5
				return []any{x, y, g, b, int32(cols), float32(eps)}, func(*sim.Stats) error {
					want := make([]float32, rows*cols)
					for r := range rows {
						s, s2 := 0.0, 0.0
						for j := range cols {
							v := float64(xs[r*cols+j])
							s, s2 = s+v, s2+v*v
						}
						mean := s / cols
						inv := 1 / math.Sqrt(s2/cols-mean*mean+eps)
						for j := range cols {
							want[r*cols+j] = float32((float64(xs[r*cols+j])-mean)*inv*float64(g.Data[j]) + float64(b.Data[j]))
						}
					}
					return closeTo("y", y.Data, want, 1e-4)
				}
			},
		},
		corpusCase{
			name: "rows/gelu", file: "rows", kernel: "gelu", grid: sim.Dim1(2), block: sim.Dim1(128),
			approx: map[string]float64{"y": 1e-5}, // |x| < 10, y = x/2 (1 + tanh): tanhf through ex2.approx (2^-22 relative) and rcp.approx, a few 2^-22 of 5 on each side
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				const n = 200
				x, _ := sim.Upload(d, "x", seq(n, func(i int) float32 { return float32(i-100) / 16 }))
				y, _ := sim.Alloc[float32](d, "y", n)
				return []any{x, y, int32(n)}, func(*sim.Stats) error {
					want := seq(n, func(i int) float32 {
						v := float64(x.Data[i])
						return float32(0.5 * v * (1 + math.Tanh(0.7978845608*(v+0.044715*v*v*v))))
					})
					return closeTo("y", y.Data, want, 1e-5)
				}
			},
		},
		corpusCase{
			name: "rows/mergePath", file: "rows", kernel: "mergePath", grid: sim.Dim1(3), block: sim.Dim1(64),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				av := seq(70, func(i int) int32 { return int32(3 * i) })
				bv := seq(90, func(i int) int32 { return int32(2*i + 1) })
				a, _ := sim.Upload(d, "a", av)
				b, _ := sim.Upload(d, "b", bv)
				c, _ := sim.Alloc[int32](d, "c", 160)
				return []any{a, int32(70), b, int32(90), c}, func(*sim.Stats) error {
					want := make([]int32, 0, 160)
					i, j := 0, 0
					for i < 70 || j < 90 {
						if j >= 90 || i < 70 && av[i] <= bv[j] {
							want, i = append(want, av[i]), i+1
						} else {
							want, j = append(want, bv[j]), j+1
						}
					}
					return equal("c", c.Data, want)
				}
			},
		},
		corpusCase{
			name: "rows/ellSpmv", file: "rows", kernel: "ellSpmv", grid: sim.Dim1(2), block: sim.Dim1(64),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				const nr, width = 100, 4
				colv := seq(nr*width, func(i int) int32 {
					k, r := i/nr, i%nr
					if (r+k)%3 == 0 {
						return -1 // padding
					}
					return int32((r*7 + k*13) % nr)
				})
				valv := seq(nr*width, func(i int) float32 { return float32(i%9-4) * 0.5 })
				xv := seq(nr, func(i int) float32 { return float32(i%5 - 2) })
				cols, _ := sim.Upload(d, "cols", colv)
				vals, _ := sim.Upload(d, "vals", valv)
				x, _ := sim.Upload(d, "x", xv)
				y, _ := sim.Alloc[float32](d, "y", nr)
				return []any{cols, vals, x, y, int32(nr), int32(width)}, func(*sim.Stats) error {
					want := make([]float32, nr)
					for r := range nr {
						for k := range width {
							if c := colv[k*nr+r]; c >= 0 {
								want[r] += valv[k*nr+r] * xv[c]
							}
						}
					}
					return equal("y", y.Data, want)
				}
			},
		},
		corpusCase{
			name: "rows/reverse4", file: "rows", kernel: "reverse4", grid: sim.Dim1(1), block: sim.Dim1(64),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				const n = 50 // float4s
				a, _ := sim.Upload(d, "a", seq(4*n, func(i int) float32 { return float32(i) }))
				b, _ := sim.Alloc[float32](d, "b", 4*n)
				return []any{a, b, int32(n)}, func(*sim.Stats) error {
					return equal("b", b.Data, seq(4*n, func(i int) float32 { return float32(4*n - 1 - i) }))
				}
			},
		},
	)
}

// fptr.cu: calls through a table of function pointers (a warp's lanes
// calling three functions) and virtual functions.
func init() {
	corpus = append(corpus, corpusCase{
		name: "fptr/fptr", file: "fptr", kernel: "fptr", grid: sim.Dim1(1), block: sim.Dim1(64),
		setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
			out, _ := sim.Alloc[int32](d, "out", 64)
			vout, _ := sim.Alloc[int32](d, "vout", 64)
			return []any{out, vout}, func(*sim.Stats) error {
				if err := equal("out", out.Data, seq(64, func(i int) int32 {
					return [3]int32{int32(2 * i), int32(i * i), int32(-i)}[i%3]
				})); err != nil {
					return err
				}
				return equal("vout", vout.Data, seq(64, func(i int) int32 {
					if i&1 == 1 {
						return int32(i * i / 2)
					}
					return int32(i * i)
				}))
			}
		},
	})
}

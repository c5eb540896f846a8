package sim_test

import (
	"fmt"
	"math"

	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/sim/ptx"
)

// halfBits is the IEEE binary16 of f, for the values the tests use (f a
// multiple of 2^-4 with magnitude below 2048: exact in a half).
func halfBits(f float32) uint16 {
	if f == 0 {
		return 0
	}
	b := math.Float32bits(f)
	sign := uint16(b>>31) << 15
	exp := int(b>>23&0xff) - 127 + 15
	return sign | uint16(exp)<<10 | uint16(b>>13&0x3ff)
}

// The tensor-core corpus (testdata/corpus/wmma.cu).
func init() {
	corpus = append(corpus, corpusCase{
		name: "wmma/tile", file: "wmma", kernel: "wmmaTile", grid: sim.Dim1(2), block: sim.Dim1(64),
		setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
			const tiles = 4
			av := seq(tiles*256, func(i int) float32 { return float32(i*7%9-4) * 0.5 })
			bv := seq(tiles*256, func(i int) float32 { return float32(i*5%7 - 3) })
			pack := func(v []float32) []uint32 { // two halves a word, little-endian
				return seq(len(v)/2, func(i int) uint32 { return uint32(halfBits(v[2*i])) | uint32(halfBits(v[2*i+1]))<<16 })
			}
			a, _ := sim.Upload(d, "a", pack(av))
			b, _ := sim.Upload(d, "b", pack(bv))
			c, _ := sim.Upload(d, "c", seq(tiles*256, func(i int) float32 { return float32(i%11) - 5 }))
			out, _ := sim.Alloc[float32](d, "d", tiles*256)
			return []any{a, b, c, out}, func(*sim.Stats) error {
				want := make([]float32, tiles*256)
				for t := range tiles {
					for i := range 16 {
						for j := range 16 {
							s := c.Data[256*t+16*i+j]
							for k := range 16 {
								s += av[256*t+16*i+k] * bv[256*t+16*j+k] // A row-major, B column-major
							}
							want[256*t+16*i+j] = s
						}
					}
				}
				return equal("d", out.Data, want)
			}
		},
	})
}

// mmaCase is mma.cu's mmaTile on two tiles, B column-major or row-major
// (ldmatrix with and without .trans).
func mmaCase(bRowMajor int32) corpusCase {
	return corpusCase{
		name: fmt.Sprintf("mma/tile/bRowMajor=%d", bRowMajor), file: "mma", kernel: "mmaTile", grid: sim.Dim1(2), block: sim.Dim1(32),
		setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
			const tiles = 2
			av := seq(tiles*256, func(i int) float32 { return float32(i*7%9-4) * 0.5 })
			bv := seq(tiles*128, func(i int) float32 { return float32(i*5%7 - 3) })
			pack := func(v []float32) []uint32 {
				return seq(len(v)/2, func(i int) uint32 { return uint32(halfBits(v[2*i])) | uint32(halfBits(v[2*i+1]))<<16 })
			}
			a, _ := sim.Upload(d, "a", pack(av))
			b, _ := sim.Upload(d, "b", pack(bv))
			c, _ := sim.Upload(d, "c", seq(tiles*128, func(i int) float32 { return float32(i%11) - 5 }))
			out, _ := sim.Alloc[float32](d, "d", tiles*128)
			return []any{a, b, c, out, bRowMajor}, func(*sim.Stats) error {
				want := make([]float32, tiles*128)
				for t := range tiles {
					for i := range 16 {
						for j := range 8 {
							s := c.Data[128*t+8*i+j]
							for k := range 16 {
								bk := bv[128*t+16*j+k] // column-major: B[k][j] at j*16+k
								if bRowMajor != 0 {
									bk = bv[128*t+8*k+j] // row-major: at k*8+j
								}
								s += av[256*t+16*i+k] * bk
							}
							want[128*t+8*i+j] = s
						}
					}
				}
				return equal("d", out.Data, want)
			}
		},
	}
}

func init() {
	corpus = append(corpus, mmaCase(0), mmaCase(1))
}

// halfFrom is the value of binary16 bits h.
func halfFrom(h uint16) float32 {
	e, f := int(h>>10&0x1f), float64(h&0x3ff)
	v := math.Ldexp(1024+f, e-25)
	if e == 0 {
		v = math.Ldexp(f, -24)
	}
	if h&0x8000 != 0 {
		v = -v
	}
	return float32(v)
}

func init() {
	corpus = append(corpus, corpusCase{
		name: "bitops/halfops", file: "bitops", kernel: "halfops", grid: sim.Dim1(2), block: sim.Dim1(64),
		setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
			const n = 100 // quarters in [-4, 4): every result is exact in a half
			xv := seq(n, func(i int) float32 { return float32(i*7%32-16) / 4 })
			yv := seq(n, func(i int) float32 { return float32(i*5%32-16) / 4 })
			pack := func(v []float32) []uint32 {
				return seq(len(v)/2, func(i int) uint32 { return uint32(halfBits(v[2*i])) | uint32(halfBits(v[2*i+1]))<<16 })
			}
			a, _ := sim.Upload(d, "a", pack(xv))
			b, _ := sim.Upload(d, "b", pack(yv))
			out, _ := sim.Alloc[uint32](d, "out", 2*n)
			return []any{a, b, out, int32(n)}, func(*sim.Stats) error {
				got := make([]float32, 4*n)
				for i, w := range out.Data {
					got[2*i], got[2*i+1] = halfFrom(uint16(w)), halfFrom(uint16(w>>16))
				}
				want := make([]float32, 4*n)
				for i := range n {
					x, y := xv[i], yv[i]
					s, p := x+y, x*y
					f := x*y + s
					if !(x < y) {
						f = -f
					}
					copy(want[4*i:], []float32{s, p, f, x * 0.5})
				}
				return equal("out", got, want)
			}
		},
	})
}

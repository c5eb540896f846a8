package sim_test

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/sim/ptx"
)

// The atomics corpus (testdata/corpus/atomics.cu) against its CPU
// references.
func init() {
	corpus = append(corpus,
		corpusCase{
			name: "atomics/atoms", file: "atomics", kernel: "atoms", grid: sim.Dim1(1), block: sim.Dim1(64),
			orderDependent: map[string]bool{"u": true}, // u[7], u[8]: the CAS winner
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				const n = 64
				u, _ := sim.Upload(d, "u", []uint32{0, math.MaxUint32, 0, 0, math.MaxUint32, 0, 0, 0, 0})
				s, _ := sim.Upload(d, "s", []int32{math.MinInt32, math.MaxInt32, 0})
				ul, _ := sim.Upload(d, "ul", []int64{0, 0, -1, -1, 0, 0, 0})
				sl, _ := sim.Upload(d, "sl", []int64{math.MinInt64, math.MaxInt64})
				dd, _ := sim.Upload(d, "d", []float64{0})
				f, _ := sim.Upload(d, "f", []float32{0})
				return []any{u, s, ul, sl, dd, f}, func(*sim.Stats) error {
					// Reference: the same operations in thread order (the
					// results do not depend on the order).
					ru := []uint32{0, math.MaxUint32, 0, 0, math.MaxUint32, 0, 0, 0, 0}
					rs := []int32{math.MinInt32, math.MaxInt32, 0}
					rul := []uint64{0, 0, math.MaxUint64, math.MaxUint64, 0, 0, 0}
					rsl := []int64{math.MinInt64, math.MaxInt64}
					var rd float64
					var rf float32
					for i := range n {
						rs[0] = max(rs[0], int32(i-10))
						rs[1] = min(rs[1], int32(i-10))
						rs[2] += int32(i - 10)
						ru[0] = max(ru[0], uint32(i))
						ru[1] = min(ru[1], uint32(i)+5)
						if ru[2] >= 5 { // atomicInc
							ru[2] = 0
						} else {
							ru[2]++
						}
						if ru[3] == 0 || ru[3] > 5 { // atomicDec
							ru[3] = 5
						} else {
							ru[3]--
						}
						ru[4] &^= 1 << (i & 31)
						ru[5] |= 1 << (i & 31)
						ru[6] ^= uint32(i)
						rul[0] += uint64(i) << 33
						rul[1] = max(rul[1], uint64(i)<<40)
						rul[2] = min(rul[2], uint64(i)+7)
						rul[3] &^= 1 << i
						rul[4] |= 1 << i
						rul[5] ^= uint64(i) << 20
						rsl[0] = max(rsl[0], int64(i-20)<<32)
						rsl[1] = min(rsl[1], int64(i-20)<<32)
						rd += 0.5 * float64(i)
						rf += 0.25 * float32(i)
						if i == 0 {
							ru[7], ru[8] = uint32(i)+1, uint32(i)+100
							rul[6] = 1 << 50
						}
					}
					// inc and dec wrap in a cycle of 6, so their results
					// do not depend on the order either.
					ul64 := make([]uint64, len(ul.Data))
					for i, v := range ul.Data {
						ul64[i] = uint64(v)
					}
					sl64 := append([]int64(nil), sl.Data...)
					for _, e := range []error{
						equal("u", u.Data[:7], ru[:7]),
						equal("s", s.Data, rs),
						equal("ul", ul64, rul),
						equal("sl", sl64, rsl),
						equal("d", dd.Data, []float64{rd}),
						equal("f", f.Data, []float32{rf}),
					} {
						if e != nil {
							return e
						}
					}
					// One thread won the CAS and exchanged its value.
					if w := u.Data[7]; w < 1 || w > n || u.Data[8] != w+99 {
						return fmt.Errorf("CAS winner %d, exchange %d", w, u.Data[8])
					}
					return nil
				}
			},
		},
		corpusCase{
			name: "atomics/casAdd", file: "atomics", kernel: "casAdd", grid: sim.Dim1(4), block: sim.Dim1(64),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				const n = 200
				in, _ := sim.Upload(d, "in", seq(n, func(i int) float32 { return float32(i%9) * 0.5 }))
				out, _ := sim.Alloc[float32](d, "out", 1)
				dout, _ := sim.Alloc[float64](d, "dout", 1)
				return []any{out, dout, in, int32(n)}, func(*sim.Stats) error {
					// Every value is a multiple of 0.5 and every partial
					// sum exact: the order does not change the sums.
					var want float64
					for _, v := range in.Data {
						want += float64(v)
					}
					if float64(out.Data[0]) != want || dout.Data[0] != want {
						return fmt.Errorf("sums %v and %v, want %v", out.Data[0], dout.Data[0], want)
					}
					return nil
				}
			},
		},
		corpusCase{
			name: "atomics/warpinfo", file: "atomics", kernel: "warpinfo", grid: sim.Dim1(1), block: sim.Dim1(48),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				mask, _ := sim.Alloc[uint32](d, "mask", 48)
				grew, _ := sim.Alloc[int32](d, "grew", 48)
				return []any{mask, grew}, func(*sim.Stats) error {
					want := seq(48, func(i int) uint32 {
						if i%3 != 0 {
							return 0
						}
						// The lanes of i's warp with lane%3 == warp-relative
						// i%3 == 0, among the warp's existing lanes.
						var m uint32
						for l := range 32 {
							t := i/32*32 + l
							if t < 48 && t%3 == 0 {
								m |= 1 << l
							}
						}
						return m
					})
					if err := equal("mask", mask.Data, want); err != nil {
						return err
					}
					return equal("grew", grew.Data, seq(48, func(int) int32 { return 1 }))
				}
			},
		},
		corpusCase{
			name: "atomics/histogram", file: "atomics", kernel: "histogram", grid: sim.Dim1(3), block: sim.Dim1(128),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				const n = 5000
				in, _ := sim.Upload(d, "in", seq(n, func(i int) uint32 { return bits.RotateLeft32(uint32(i)*2654435761, 7) }))
				bins, _ := sim.Alloc[uint32](d, "bins", 256)
				return []any{in, bins, int32(n)}, func(*sim.Stats) error {
					want := make([]uint32, 256)
					for _, v := range in.Data {
						want[v&255]++
					}
					return equal("bins", bins.Data, want)
				}
			},
		},
	)
}

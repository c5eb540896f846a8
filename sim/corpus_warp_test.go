package sim_test

import (
	"fmt"
	"math"

	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/sim/ptx"
)

// The block votes, warp matching, warp reductions and cp.async of the
// corpus (testdata/corpus/warpsync.cu, sm80.cu) against CPU references.
func init() {
	corpus = append(corpus,
		corpusCase{
			name: "warpsync/votes", file: "warpsync", kernel: "votes", grid: sim.Dim1(4), block: sim.Dim1(96),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				const n = 330 // block 3 is partly past n
				in, _ := sim.Upload(d, "in", seq(n, func(i int) int32 {
					switch {
					case i < 96:
						return 1 // block 0: all true
					case i < 192:
						return 0 // block 1: none
					}
					return int32(i%5) - 2
				}))
				out, _ := sim.Alloc[int32](d, "out", 12)
				return []any{in, out, int32(n)}, func(*sim.Stats) error {
					want := make([]int32, 12)
					for b := range 4 {
						count, all := int32(0), int32(1)
						for t := range 96 {
							i := 96*b + t
							if i < n && in.Data[i] > 0 {
								count++
							} else {
								all = 0
							}
						}
						want[3*b], want[3*b+1] = count, all
						if count > 0 {
							want[3*b+2] = 1
						}
					}
					return equal("out", out.Data, want)
				}
			},
		},
		corpusCase{
			name: "warpsync/matches", file: "warpsync", kernel: "matches", grid: sim.Dim1(2), block: sim.Dim1(32),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				const n = 64
				// Warp 0: keys in 5 groups; warp 1: one key for all (so
				// match.all holds there).
				key := seq(n, func(i int) int32 {
					if i < 32 {
						return int32(i%5) * 7
					}
					return 42
				})
				k, _ := sim.Upload(d, "key", key)
				k64, _ := sim.Upload(d, "key64", seq(n, func(i int) int64 { return int64(i%3) << 40 }))
				anyOut, _ := sim.Alloc[uint32](d, "any", n)
				any64, _ := sim.Alloc[uint32](d, "any64", n)
				allOut, _ := sim.Alloc[uint32](d, "all", n)
				allp, _ := sim.Alloc[int32](d, "allp", n)
				return []any{k, k64, anyOut, any64, allOut, allp}, func(*sim.Stats) error {
					group := func(i int, same func(j int) bool) uint32 {
						var m uint32
						for l := range 32 {
							if same(i/32*32 + l) {
								m |= 1 << l
							}
						}
						return m
					}
					if err := equal("any", anyOut.Data, seq(n, func(i int) uint32 { return group(i, func(j int) bool { return key[j] == key[i] }) })); err != nil {
						return err
					}
					if err := equal("any64", any64.Data, seq(n, func(i int) uint32 { return group(i, func(j int) bool { return j%3 == i%3 }) })); err != nil {
						return err
					}
					// key/100 is 0 for all of warp 0 and 0 for warp 1
					// (42/100): match.all holds in both.
					if err := equal("all", allOut.Data, seq(n, func(int) uint32 { return math.MaxUint32 })); err != nil {
						return err
					}
					return equal("allp", allp.Data, seq(n, func(int) int32 { return 1 }))
				}
			},
		},
		corpusCase{
			name: "sm80/reduxes", file: "sm80", kernel: "reduxes", grid: sim.Dim1(1), block: sim.Dim1(64),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				in, _ := sim.Upload(d, "in", seq(64, func(i int) int32 { return int32((i*37)%101) - 50 }))
				out, _ := sim.Alloc[int32](d, "out", 16)
				return []any{in, out}, func(*sim.Stats) error {
					want := make([]int32, 16)
					for w := range 2 {
						v := in.Data[32*w : 32*w+32]
						sum, mn, mx := int32(0), int32(math.MaxInt32), int32(math.MinInt32)
						umn, umx := uint32(math.MaxUint32), uint32(0)
						and, or, xor := ^uint32(0), uint32(0), uint32(0)
						for _, x := range v {
							u := uint32(x)
							sum += x
							mn, mx = min(mn, x), max(mx, x)
							umn, umx = min(umn, u), max(umx, u)
							and &= u | 0x100
							or |= u & 0xff
							xor ^= u
						}
						copy(want[8*w:], []int32{sum, mn, mx, int32(umn), int32(umx), int32(and), int32(or), int32(xor)})
					}
					return equal("out", out.Data, want)
				}
			},
		},
		corpusCase{
			name: "sm80/tileSum", file: "sm80", kernel: "tileSum", grid: sim.Dim1(3), block: sim.Dim1(64),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				const blocks = 3
				in, _ := sim.Upload(d, "in", seq(blocks*2*64*4, func(i int) float32 { return float32(i%17) - 8 }))
				out, _ := sim.Alloc[float32](d, "out", blocks*64)
				return []any{in, out}, func(st *sim.Stats) error {
					want := seq(blocks*64, func(j int) float32 {
						b, t := j/64, j%64
						f4 := func(k int) float32 { // float4 k of block b's 128, summed x+y+z+w
							p := in.Data[(2*64*b+k)*4:]
							return p[0] + p[1] + p[2] + p[3]
						}
						return f4(63-t) + f4(64+t)
					})
					if err := equal("out", out.Data, want); err != nil {
						return err
					}
					// Two cp.async a warp, 16 bytes a lane: 2 × 2 warps ×
					// 3 blocks global load requests of 16 sectors each.
					var cp sim.SiteStats
					for _, s := range st.Sites {
						if s.Space == "global" && s.Op == "ld" {
							cp.Requests += s.Requests
							cp.Sectors += s.Sectors
						}
					}
					if cp.Requests != 12 || cp.Sectors != 12*16 {
						return fmt.Errorf("cp.async global loads: %d requests, %d sectors; want 12 and 192", cp.Requests, cp.Sectors)
					}
					return nil
				}
			},
		},
	)
}

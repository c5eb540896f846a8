package timing

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkSchedule times the schedule on a warp-per-row SpMV's shape
// (65,536 blocks of 8 warps, the skewed seed's at 2^19 rows), holding
// each block's slots until it ends and freeing each warp's as it ends
// (WarpSlotRelease: most blocks' warps end together, one in eight has a
// warp on a long row). The simulator runs it about three times a launch
// (coldTime's secant), after the blocks, on one core.
func BenchmarkSchedule(b *testing.B) {
	g, m := h200(b)
	r := rand.New(rand.NewPCG(1, 2))
	tm := &Launch{BlocksPerSM: g.BlocksPerSM(8, 256, 0, 0), WarpsPerBlock: 8}
	tm.WarpSlots, tm.BlockSlots = g.Slots(8, 0, 0)
	for i := range 1 << 16 {
		blk := Block{B: int64(i), Instr: 40, Miss: 2, Warps: 8, Sum: 320}
		if r.IntN(8) == 0 {
			blk.Instr, blk.Miss = 900, 40
			blk.Ends = make([]float32, 8)
			for j := range blk.Ends {
				blk.Ends[j] = 0.05 + 0.05*r.Float32()
			}
			blk.Ends[r.IntN(8)] = 1
		}
		tm.Blocks = append(tm.Blocks, blk)
	}
	for _, release := range []bool{false, true} {
		name := "held"
		if release {
			name = "release"
		}
		b.Run(name, func(b *testing.B) {
			c := *m
			c.WarpSlotRelease = release
			for b.Loop() {
				schedule(g, &c, tm, c.DRAMLatency, c.DRAMLatency)
			}
		})
	}
}

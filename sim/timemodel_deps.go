package sim

import (
	"sync"

	"github.com/warplab/warplab/sim/ptx"
	"github.com/warplab/warplab/sim/timing"
)

// Dependent latencies on the warp's path (issue 27, milestone 3). The
// latency term charges a warp WarpCPI cycles an instruction (a dependent
// FFMA chain's rate, issue_ffma1) and its load rounds; a shared-memory
// load or a shuffle takes longer than that before an instruction that
// uses its result can issue: 28.7 cycles for ld.shared (sh_ld_lat at
// k = 1), 30 for shfl (shfl_chain: 34.2 cycles a shuffle-and-add step, less
// the add's WarpCPI), both on the H200. A reduction's tree is a chain of
// them: a warp's five shfl.down + add steps take 171 cycles where five
// pairs of instructions at WarpCPI take 42, and a block's shared step
// (ld.shared, use, bar.sync, st.shared, bar.sync) 86 cycles
// (red_step at one block an SM) where its instructions and barriers take
// 64. depStalls reads, once per kernel and constants, each basic block's
// dependence chains: an instruction can issue when its operands are ready
// (ptxas schedules independent work, the index arithmetic between a
// reduction's shuffles, around the chain), a shared load's or a shuffle's
// result is ready its latency after it issues, a mov's at once (ptxas
// renames registers), every other's WarpCPI after (global loads wait in
// their rounds, barriers in their own cost); a bar.sync issues only once
// every result before it is ready, and nothing after it issues before it. What the longest chain takes
// beyond the block's instructions × WarpCPI is the block's stall, carried
// by its first shared load or shuffle, which adds it to the warp's record
// each time it runs (timing.Warp.Stall).

// depStallCache is a kernel's stalls by the constants they were read
// with.
type depStallCache struct {
	mu sync.Mutex
	by map[depKey][]float32
}

type depKey struct{ cpi, lds, shfl float64 }

// depStalls is, by instruction of pk's code, the stall cycles it carries
// (0 for most); nil when the constants have no shared or shuffle latency.
func (pk *PTXKernel) depStalls(c *timing.Constants) []float32 {
	key := depKey{c.WarpCPI, c.SharedLoadCycles, c.ShflCycles}
	if key.lds <= key.cpi && key.shfl <= key.cpi {
		return nil
	}
	pk.stalls.mu.Lock()
	defer pk.stalls.mu.Unlock()
	if s, ok := pk.stalls.by[key]; ok {
		return s
	}
	s := pk.readStalls(key)
	if pk.stalls.by == nil {
		pk.stalls.by = map[depKey][]float32{}
	}
	pk.stalls.by[key] = s
	return s
}

// readStalls is depStalls' reading of the code (the package comment
// above).
func (pk *PTXKernel) readStalls(k depKey) []float32 {
	out := make([]float32, len(pk.code))
	ready := map[int32]float64{}
	found := false
	for _, b := range pk.k.Blocks() {
		clear(ready)
		end, fence, done, n, carrier := 0.0, 0.0, 0.0, 0, -1
		for i := b.Start; i < b.End && i < len(pk.code); i++ {
			x := &pk.code[i]
			start := fence
			read := func(r int32) {
				if r >= 0 {
					start = max(start, ready[r])
				}
			}
			eachReg(x.src[:], read)
			read(x.abase)
			read(x.guard)
			if x.op == ptx.OpSt || x.op == ptx.OpAtom || x.op == ptx.OpRed {
				eachReg(x.dst[:], read) // a store's value
			}
			lat := k.cpi
			switch {
			case x.op == ptx.OpMov:
				// a register copy: ptxas renames it away (the PTX's
				// mov.b32 between a shuffle's .b32 and an add's .f32
				// is no SASS instruction), so it adds no latency
				lat = 0
			case x.op == ptx.OpLd && x.space == ptx.SpaceShared:
				lat = max(k.lds, k.cpi)
				if carrier < 0 {
					carrier = i
				}
			case x.op == ptx.OpShfl:
				lat = max(k.shfl, k.cpi)
				if carrier < 0 {
					carrier = i
				}
			}
			if x.op == ptx.OpBar || x.op == ptx.OpMembar {
				// a barrier waits for every result before it (shared
				// memory is ordered across it), and nothing after it
				// issues before it
				start = max(start, done, end)
				fence = start + k.cpi
			}
			if x.op != ptx.OpSt {
				writes(x, func(r int32) { ready[r] = start + lat })
				done = max(done, start+lat)
			}
			end = max(end, start+k.cpi)
			n++
		}
		if stall := end - float64(n)*k.cpi; carrier >= 0 && stall > 1e-9 {
			out[carrier] = float32(stall)
			found = true
		}
	}
	if !found {
		return nil
	}
	return out
}

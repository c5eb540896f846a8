package timing

// schedule places blocks in index order on the SMs' warp slots (as many
// per SM as the occupancy allows): each of a block's warps takes the slot
// that frees first and holds it until the block is done (an SM releases a
// block's resources when the whole block ends). A block takes its slowest
// warp's time: instructions × WarpCPI cycles, its rounds' latencies and
// the cycles its shared-memory conflicts add to its own path. A block
// whose warps wait at barriers (bar.sync) also waits for its warps' shared
// wavefronts, which the SM's shared memory serves one after another
// (SharedWavesPerCycle), and pays each barrier's cost (BarrierSeconds):
// the mechanisms microbenchmark's sh_st_bar and bar_slow (blockTime). Blocks thus reach the SMs in
// waves, and the slowest warp, not the average one, sets the end. No block
// starts sooner than BlockDispatch after the one before it (the GPU's
// block dispatch rate, dispatch.cu): a grid of many short blocks is held
// by it. It
// returns when the last block finishes (the critical path), and the most
// warp instructions and shared wavefronts any one SM received (for the
// issue and shared terms). Holding a block's slots (this) against freeing
// a warp's slot when it ends was chosen on the training half
// (docs/timemodel.md); Constants.WarpSlotRelease frees them as the
// H200 does for blocks of up to 8 warps (GPU.Slots), measured in the
// twenty-seventh pass and adopted, with Constants.L1InFlight, in the
// twenty-eighth.
func schedule(g *GPU, m *Constants, t *Launch, missLat, wideLat float64) (finish float64, maxSMInstr int64, maxSMWaves float64) {
	if len(t.Blocks) == 0 {
		return 0, 0, 0
	}
	cpi := m.WarpCPI / g.ClockHz
	slots := g.SMs * t.BlocksPerSM * max(1, t.WarpsPerBlock)
	perSM := make([]float64, g.SMs)
	wavesSM := make([]float64, g.SMs)
	waveSec := 0.0
	if m.SharedWavesPerCycle > 0 {
		waveSec = 1 / (m.SharedWavesPerCycle * g.ClockHz)
	}
	// The blocks an SM holds at once, which share its rates when they meet
	// at barriers (blockTime); 0 turns the sharing off.
	inStep := 0.0
	if m.BarrierWarpCycles > 0 {
		inStep = float64(min(max(1, t.BlocksPerSM), (len(t.Blocks)+g.SMs-1)/g.SMs))
	}
	// The GPU hands out one block per BlockDispatch: a block starts when
	// a slot is free and not sooner than that after the block before it.
	start := -m.BlockDispatch
	release := m.WarpSlotRelease && t.WarpSlots > 0 && t.BlockSlots > 0 && releases(t.Blocks)
	if w := max(1, t.WarpsPerBlock); !release && uniformWarps(t.Blocks, w) {
		// Every block has the launch's warps, so its warps always take one
		// whole group of w slots, g·w to g·w+w−1, that freed together (the
		// groups start free at 0 in slot order and each goes back as one,
		// and slots that free together go in slot number order): the
		// schedule below in one queue entry a block, not w, with the same
		// order, times and per-SM sums (TestScheduleMatchesLinearScan
		// holds it to the rule warp by warp). A slot's SM is its number
		// mod the SMs, as there.
		q := newSlotQueue(slots / w)
		for i := range t.Blocks {
			b := &t.Blocks[i]
			d := blockTime(g, m, b, cpi, missLat, wideLat, waveSec, inStep)
			per := float64(b.Sum) / float64(w)
			perW := float64(b.Waves) / float64(w)
			x := q.pop()
			start = max(start+m.BlockDispatch, x.free)
			x.free = start + d
			finish = max(finish, x.free)
			for k := x.k * w; k < x.k*w+w; k++ {
				perSM[k%g.SMs] += per
				wavesSM[k%g.SMs] += perW
			}
			q.push(x)
		}
	} else if release {
		// Some block's warps end apart (WarpSlotRelease): each warp holds
		// its own slot until it ends, and the block holds a block slot (and
		// its shared memory) until its slowest warp ends. Warp j of block i
		// (w warps) runs on scheduler (i·w + j) mod SchedulersPerSM (the
		// schedulers take the grid's warps in turn), each with a quarter of
		// the SM's warp slots, so a block starts when a block slot and a
		// slot on each of its warps' schedulers are free (warpslots.cu:
		// 128-thread blocks whose warp 0 spins fill scheduler 0 with
		// spinning warps and start no block early; 256-thread blocks do).
		perQ := g.SMs * max(1, t.WarpSlots/SchedulersPerSM)
		var warpQ [SchedulersPerSM]*slotQueue
		for j := range warpQ {
			warpQ[j] = newSlotQueue(perQ)
		}
		// A slot's SM, looked up: the division, twice a warp, was 7% of the
		// release schedule's time in a profile (BenchmarkSchedule).
		smOf := make([]int32, perQ)
		for k := range smOf {
			smOf[k] = int32(k % g.SMs)
		}
		blockQ := newSlotQueue(g.SMs * t.BlockSlots)
		held := make([]warpSlot, 0, max(1, t.WarpsPerBlock))
		for i := range t.Blocks {
			b := &t.Blocks[i]
			d := blockTime(g, m, b, cpi, missLat, wideLat, waveSec, inStep)
			w := max(1, int(b.Warps))
			per := float64(b.Sum) / float64(w)
			perW := float64(b.Waves) / float64(w)
			bs := blockQ.pop()
			start = max(start+m.BlockDispatch, bs.free)
			held = held[:0]
			first := i * w
			for j := range w {
				x := warpQ[(first+j)%SchedulersPerSM].pop()
				start = max(start, x.free)
				held = append(held, x)
			}
			for j, x := range held {
				x.free = start + d
				if j < len(b.Ends) {
					// The path scales; the block's fixed cost does not.
					x.free = start + (d-m.BlockSeconds)*float64(b.Ends[j]) + m.BlockSeconds
				}
				sm := smOf[x.k]
				perSM[sm] += per
				wavesSM[sm] += perW
				warpQ[(first+j)%SchedulersPerSM].push(x)
			}
			bs.free = start + d
			finish = max(finish, bs.free)
			blockQ.push(bs)
		}
	} else {
		q := newSlotQueue(slots)
		for i := range t.Blocks {
			b := &t.Blocks[i]
			d := blockTime(g, m, b, cpi, missLat, wideLat, waveSec, inStep)
			per := float64(b.Sum) / float64(max(1, b.Warps))
			perW := float64(b.Waves) / float64(max(1, b.Warps))
			start += m.BlockDispatch
			for w := range max(1, b.Warps) {
				x := q.pop()
				if w == 0 {
					start = max(start, x.free) // the slot that frees first
				}
				x.free = max(x.free, start) + d
				finish = max(finish, x.free)
				perSM[x.k%g.SMs] += per
				wavesSM[x.k%g.SMs] += perW
				q.push(x)
			}
		}
	}
	for i, n := range perSM {
		maxSMInstr = max(maxSMInstr, int64(n))
		maxSMWaves = max(maxSMWaves, wavesSM[i])
	}
	return finish, maxSMInstr, maxSMWaves
}

// releases reports whether some block's warps end apart (Block.Ends).
func releases(blocks []Block) bool {
	for i := range blocks {
		if blocks[i].Ends != nil {
			return true
		}
	}
	return false
}

// uniformWarps reports whether every block has w warps (a block with
// none counts as one, as schedule takes it).
func uniformWarps(blocks []Block, w int) bool {
	for i := range blocks {
		if max(1, int(blocks[i].Warps)) != w {
			return false
		}
	}
	return true
}

// blockTime is how long block b holds its slots: its slowest warp's
// memory rounds, then its issue (instructions × WarpCPI and the cycles its
// shared-memory conflicts add to its own path) and, when its warps meet
// at barriers, the block's barriers. A warp waiting for a global load
// issues nothing, but while it issues, the block's other warps' shared
// requests go through the SM's shared memory beside it: a block with
// barriers cannot pass them before all its warps' wavefronts are served,
// so its issue part is at least its wavefronts at SharedWavesPerCycle.
// (sh_st_bar: 32 warps storing 32-way took 1,132 cycles a pass, against
// 1,143 from this rule and the constants read off the conflict-free
// passes.) waveSec is the seconds a wavefront takes the SM (0: no shared
// rate in the constants).
func blockTime(g *GPU, m *Constants, b *Block, cpi, missLat, wideLat, waveSec, inStep float64) float64 {
	wide := 0.0
	if b.MissWide > 0 {
		wide = float64(b.MissWide) * (wideLat - missLat)
	}
	if b.Bars == 0 {
		// The sum in the order the model had before the mechanisms, so a
		// block without barriers or conflicts keeps its time to the bit.
		return float64(b.Instr)*cpi + float64(b.Hit)*m.L1Latency + float64(b.L2)*m.L2Latency + float64(b.Miss)*missLat + b.Extra + wide + m.BlockSeconds
	}
	mem := float64(b.Hit)*m.L1Latency + float64(b.L2)*m.L2Latency + float64(b.Miss)*missLat + wide
	issue := max(float64(b.Instr)*cpi+b.Extra, float64(b.Waves)*waveSec)
	path := issue + float64(b.Bars)*m.BarrierSeconds(g, int(b.Warps))
	if inStep <= 0 || m.IssuePerSMCycle <= 0 {
		return mem + path + m.BlockSeconds
	}
	// The blocks an SM holds meet their barriers in step (they start
	// together and wait for memory together: phase.cu), so between two
	// waits each has a share of the SM's rates: its warps' instructions at
	// the SM's issue rate, its wavefronts at the shared memory's, its
	// warps' barriers at BarrierWarpCycles each, the longest of the three,
	// times the blocks in step (contention.cu: a reduction step at 64
	// warps is twice the barriers alone, however the warps are grouped
	// into blocks). The steps follow one another (Block.Shares).
	if m.InStepBandwidth {
		// The GPU's blocks in step ask for their memory together: the
		// wait lasts until the L2 has served all of them, bytes and line
		// transactions (InStepBandwidth).
		mem = max(mem, inStepMemory(g, m, b, inStep))
	}
	return mem + max(path, inStep*b.Shares) + m.BlockSeconds
}

// inStepMemory is how long the L2 takes to serve the memory of the blocks
// in step on the GPU (inStep an SM), each asking for b's sectors and line
// transactions (l2Time at L2Bandwidth).
func inStepMemory(g *GPU, m *Constants, b *Block, inStep float64) float64 {
	if m.L2Bandwidth <= 0 {
		return 0
	}
	return float64(g.SMs) * inStep * m.l2Time(m.L2Bandwidth, b.L2Sectors, b.L2Lines, 0)
}

package sim

import (
	"context"
	"sync"
	"testing"

	"github.com/warplab/warplab/sim/timing"
)

// TestRecordsSumToStats: the per-warp records the executor hands the time
// model add up to the launch's counters (instructions and their classes,
// global and shared requests, sectors, L2 sectors and lines, wavefronts,
// load rounds), and a barrier is recorded once a warp that waits at it.
func TestRecordsSumToStats(t *testing.T) {
	var mu sync.Mutex
	var sum timing.Warp
	var warps int64
	blocks := map[int64]bool{}
	recordHook = func(w *timing.Warp) {
		mu.Lock()
		defer mu.Unlock()
		warps++
		blocks[w.Block] = true
		sum.Instr += w.Instr
		for c, n := range w.Classes {
			sum.Classes[c] += n
		}
		sum.Memory.Add(w.Memory)
		sum.Rounds.Hit += w.Rounds.Hit
		sum.Rounds.Miss += w.Rounds.Miss
		sum.Rounds.L2 += w.Rounds.L2
		sum.Barriers += w.Barriers
	}
	defer func() { recordHook = nil }()

	d := newH200(t)
	const nb, n = 5, 256
	in := make([]float32, nb*n)
	for i := range in {
		in[i] = float32(i % 7)
	}
	st, err := d.LaunchPTX(context.Background(), ptxKernel(t, "reduce"), Dim1(nb), Dim1(n), 0,
		mustUpload(t, d, "in", in), mustUpload(t, d, "out", make([]float32, nb)))
	if err != nil {
		t.Fatal(err)
	}
	if warps != st.Warps || len(blocks) != nb {
		t.Fatalf("%d records over %d blocks, want %d over %d", warps, len(blocks), st.Warps, nb)
	}
	if sum.Instr != st.WarpInstructions {
		t.Errorf("records' instructions %d, stats' %d", sum.Instr, st.WarpInstructions)
	}
	for c, name := range timing.ClassNames {
		if sum.Classes[c] != st.InstrMix[InstrClass(name)] {
			t.Errorf("records' %s instructions %d, stats' %d", name, sum.Classes[c], st.InstrMix[InstrClass(name)])
		}
	}
	m := sum.Memory
	global := st.GlobalLoad.Requests + st.GlobalStore.Requests + st.GlobalAtomic.Requests
	sectors := st.GlobalLoad.Sectors + st.GlobalStore.Sectors + st.GlobalAtomic.Sectors
	if m.GlobalRequests != global || m.GlobalSectors != sectors || m.L2Sectors != st.L2Sectors || m.L1Wavefronts != st.L1Wavefronts {
		t.Errorf("records' global memory %+v; stats: %d requests, %d sectors, %d L2 sectors, %d L1 wavefronts",
			m, global, sectors, st.L2Sectors, st.L1Wavefronts)
	}
	shReq := st.SharedLoad.Requests + st.SharedStore.Requests
	shWf := st.SharedLoad.Wavefronts + st.SharedStore.Wavefronts
	shIdeal := st.SharedLoad.Ideal + st.SharedStore.Ideal
	if m.SharedRequests != shReq || m.SharedWaves != shWf || m.SharedIdeal != shIdeal || shReq == 0 {
		t.Errorf("records' shared memory %d requests, %d wavefronts (%d ideal); stats' %d, %d (%d)",
			m.SharedRequests, m.SharedWaves, m.SharedIdeal, shReq, shWf, shIdeal)
	}
	if got := sum.Rounds.Total(); got != st.LoadRounds() {
		t.Errorf("records' load rounds %d, stats' %d", got, st.LoadRounds())
	}
	if sum.Barriers == 0 || int64(sum.Barriers)%st.Warps != 0 {
		t.Errorf("%d barrier waits over %d warps: want the same number each", sum.Barriers, st.Warps)
	}
}

package cg

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/sim"
)

// TestPTXSideBySide solves a small problem with every GPU stage twice, with
// the Go mirrors (RunStage) and with every kernel run from cg.ptx; the
// solutions must be bit-identical. Then each kernel's last launch of the
// PTX run is replayed with both forms and their counters compared; every
// difference is reported with numbers.
func TestPTXSideBySide(t *testing.T) {
	dev := openSim(t)
	p, err := Generate(Grid{8, 6, 5}, GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opt, err := RunOptions{MaxIter: 12}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	fromPTX := Module()
	fromPTX.Mirrors = nil
	mirror := Module()
	var rep strings.Builder
	fmt.Fprintf(&rep, "%-6s %-28s %-17s %-17s %-17s %-17s %-17s\n", "stage", "kernel", "ld req ptx/mir", "ld sectors", "st req", "atom req", "warp instr")
	for s := 1; s < Stages; s++ {
		want, err := RunStage(dev, p, s, opt)
		if err != nil {
			t.Fatal(err)
		}
		e, err := newEngine(dev, p, s, opt)
		if err != nil {
			t.Fatal(err)
		}
		e.mod = fromPTX
		if err := e.setup(); err != nil {
			t.Fatal(err)
		}
		loop := cgLoop
		if e.pipelined {
			loop = cgLoopPipelined
		}
		x, err := loop(e, opt.MaxIter, opt.Tolerance, &StageResult{})
		if err != nil {
			t.Fatalf("stage %d from PTX: %v", s, err)
		}
		if len(x) != len(want.X) {
			t.Fatalf("stage %d: %d values from PTX, %d from mirrors", s, len(x), len(want.X))
		}
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(want.X[i]) {
				t.Errorf("stage %d: x[%d] = %v from PTX, %v from the mirrors", s, i, x[i], want.X[i])
				break
			}
		}
		names := make([]string, 0, len(e.kernels))
		for k := range e.kernels {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			rec := e.kernels[k]
			run := func(m *gpuext.Module) *sim.Stats {
				l, err := dev.Launch(m, k, rec.grid, rec.block, 0, rec.args...)
				if err != nil {
					t.Fatalf("stage %d %s: %v", s, k, err)
				}
				return l.Stats
			}
			sm, sp := run(mirror), run(fromPTX)
			fmt.Fprintf(&rep, "%-6d %-28s %8d/%-8d %8d/%-8d %8d/%-8d %8d/%-8d %8d/%-8d\n", s, k,
				sp.GlobalLoad.Requests, sm.GlobalLoad.Requests, sp.GlobalLoad.Sectors, sm.GlobalLoad.Sectors,
				sp.GlobalStore.Requests, sm.GlobalStore.Requests, sp.GlobalAtomic.Requests, sm.GlobalAtomic.Requests,
				sp.WarpInstructions, sm.WarpInstructions)
			if sp.GlobalLoad != sm.GlobalLoad || sp.GlobalStore != sm.GlobalStore || sp.GlobalAtomic != sm.GlobalAtomic ||
				sp.SharedLoad != sm.SharedLoad || sp.SharedStore != sm.SharedStore {
				t.Errorf("stage %d %s: PTX counters differ from the mirror's: ld %+v/%+v st %+v/%+v shared ld %+v/%+v st %+v/%+v",
					s, k, sp.GlobalLoad, sm.GlobalLoad, sp.GlobalStore, sm.GlobalStore, sp.SharedLoad, sm.SharedLoad, sp.SharedStore, sm.SharedStore)
			}
		}
		e.free()
	}
	t.Logf("PTX vs mirror (last launch of each kernel):\n%s", rep.String())
}

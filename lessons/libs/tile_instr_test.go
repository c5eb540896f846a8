package libs

import (
	"os"
	"testing"
)

// TestTileInstructions logs the simulator's issued warp instructions
// (Stats.WarpInstructions, modeled: per warp, its longest lane's count)
// of both nonzero-tile kernels on corpus families at 2^14 rows, per
// nonzero, for comparing versions of the kernel (the H200's ncu showed
// the tiles 17-31% over cuSPARSE in instructions for the same traffic).
// It runs with WARPLAB_LIBS_INSTR=1 only (about 20 s of CPU).
func TestTileInstructions(t *testing.T) {
	if os.Getenv("WARPLAB_LIBS_INSTR") == "" {
		t.Skip("WARPLAB_LIBS_INSTR=1 runs it")
	}
	ins := familyInputs(t, 1<<14, "powerlaw15", "powerlaw20", "powerlaw25c", "uniform", "road", "denserows")
	onSimulator(t, ins, func(t *testing.T, c simCase) {
		in, d := c.in, c.d
		for _, m := range []string{MethodTile, MethodTileV4} {
			if _, err := d.prepare(c.ctx, c.dev, c.mod, c.o, m); err != nil {
				t.Fatal(err)
			}
			ls, _, err := d.launch(c.ctx, c.dev, c.mod, m)
			if err != nil {
				t.Fatal(err)
			}
			st := ls[0].Stats
			nnz := float64(in.CSR.NNZ())
			t.Logf("%-16s %-8s nnz %8d warp instructions %9d (%.3f a nonzero) mix %v", in.Key, m, in.CSR.NNZ(), st.WarpInstructions, float64(st.WarpInstructions)/nnz, st.InstrMix)
		}
	})
}

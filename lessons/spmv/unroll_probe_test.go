package spmv

import (
	"testing"

	"github.com/warplab/warplab/internal/testenv"
	"github.com/warplab/warplab/sim"
)

// One warp walking 419 floats from element 93 (DESIGN.md): 66 sectors with
// `#pragma unroll 1`, 54 as nvcc unrolls by default.
func TestOneWarpHeavyRow(t *testing.T) {
	for _, c := range []struct {
		unroll int
		want   int64
	}{{1, 66}, {4, 54}} {
		m := testenv.Must(sim.ModelByKey("h200"))(t)
		d := sim.NewDevice(m)
		val := testenv.Must(sim.Alloc[float32](d, "val", 1024))(t)
		k := sim.NewKernel("walk", false)
		k.Body = func(th *sim.Thread) {
			lane := th.ThreadIdx.X
			begin, end := 93+lane, 93+419
			trips := (end - begin + 31) / 32
			th.Unroll(c.unroll, trips)
			for j := begin; j < end; j += 32 {
				val.Ld(th, j)
				th.Next()
			}
			th.EndLoop()
		}
		st, err := d.Launch(k, sim.Dim1(1), sim.Dim1(32), 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("unroll %d: %d requests, %d sectors", c.unroll, st.GlobalLoad.Requests, st.GlobalLoad.Sectors)
		if st.GlobalLoad.Sectors != c.want {
			t.Errorf("unroll %d: %d sectors, want %d", c.unroll, st.GlobalLoad.Sectors, c.want)
		}
	}
}

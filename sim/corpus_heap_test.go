package sim_test

import (
	"context"
	"testing"

	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/sim/ptx"
)

// The device heap (testdata/corpus/heap.cu): malloc and free per thread
// and per block.
func init() {
	corpus = append(corpus,
		corpusCase{
			name: "heap/perThread", file: "heap", kernel: "perThread", grid: sim.Dim1(2), block: sim.Dim1(64),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				const n, m = 100, 10
				out, _ := sim.Alloc[int32](d, "out", n)
				return []any{out, int32(n), int32(m)}, func(*sim.Stats) error {
					return equal("out", out.Data, seq(n, func(i int) int32 { return int32(i * m * (m - 1) / 2) }))
				}
			},
		},
		corpusCase{
			name: "heap/perBlock", file: "heap", kernel: "perBlock", grid: sim.Dim1(3), block: sim.Dim1(96),
			setup: func(d *sim.Device, _ *ptx.Module) ([]any, func(*sim.Stats) error) {
				out, _ := sim.Alloc[float32](d, "out", 3*96)
				return []any{out}, func(*sim.Stats) error {
					return equal("out", out.Data, seq(3*96, func(i int) float32 { t := (i%96 + 1) % 96; return float32(t * t) }))
				}
			},
		},
	)
}

// TestHeapExhausted: the heap holds 8 MiB; threads asking for 120000 bytes
// each get blocks until it is used up (69 of them, 120000 bytes rounded to
// 16 a block), and NULL after; the launch does not fault.
func TestHeapExhausted(t *testing.T) {
	m, _ := sim.ModelByKey("h200")
	d := sim.NewDevice(m)
	mod := corpusModule(t, "heap")
	k, err := sim.NewPTXKernel(mod, "perThread")
	if err != nil {
		t.Fatal(err)
	}
	const n = 100
	out := mustAlloc[int32](t, d, "out", n)
	if _, err := d.LaunchPTX(context.Background(), k, sim.Dim1(1), sim.Dim1(128), 0, out, int32(n), int32(30000)); err != nil {
		t.Fatal(err)
	}
	null := 0
	for _, v := range out.Data {
		if v == -1 {
			null++
		}
	}
	if null != n-(8<<20)/120000 {
		t.Errorf("%d threads got NULL, want %d", null, n-(8<<20)/120000)
	}
}

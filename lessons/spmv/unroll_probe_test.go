package spmv

import (
	"context"
	"strings"
	"testing"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/internal/testenv"
)

// One warp walking 419 floats from element 93 (DESIGN.md): 66 sectors with
// `#pragma unroll 1`, 54 as nvcc unrolls by default (remainder first, so
// the passes after it start on other offsets). Here it is warp per row on a
// one-row matrix whose row spans val[93:512], from the PTX of each kernel.
func TestOneWarpHeavyRow(t *testing.T) {
	const begin, end = 93, 93 + 419
	for _, c := range []struct {
		kernel string
		want   int64
	}{{KernelWarpPerRowUnroll1, 66}, {KernelWarpPerRow, 54}} {
		dev := openSim(t)
		d := &deviceMatrix{
			rowPtr: testenv.Must(gpuext.Upload(dev, "rowPtr", []int32{begin, end}))(t),
			colIdx: testenv.Must(gpuext.Alloc[int32](dev, "colIdx", end))(t),
			val:    testenv.Must(gpuext.Alloc[float32](dev, "val", end))(t),
			x:      testenv.Must(gpuext.Alloc[float32](dev, "x", 1))(t),
			y:      testenv.Must(gpuext.Alloc[float32](dev, "y", 1))(t),
		}
		l, err := launchRowKernel(context.Background(), dev, Module(), c.kernel, d, 1)
		if err != nil {
			t.Fatal(err)
		}
		// colIdx[j] is the row loop's one integer load, and it walks the
		// same elements as val[j], so its sectors are val's.
		var req, sec int64
		for _, s := range l.Stats.Sites {
			if strings.Contains(s.Label, "acc += val[j]") && strings.Contains(s.Label, "ld.global.nc.u32") {
				req += s.Requests
				sec += s.Sectors
			}
		}
		t.Logf("%s: colIdx[j] %d requests, %d sectors", c.kernel, req, sec)
		if req != 14 || sec != c.want {
			t.Errorf("%s: %d requests, %d sectors; want 14 passes, %d sectors", c.kernel, req, sec, c.want)
		}
		if err := d.free(); err != nil {
			t.Fatal(err)
		}
	}
}

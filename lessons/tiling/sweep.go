package tiling

import (
	"context"
	"errors"
	"fmt"

	"github.com/warplab/warplab/gpuext"
	"github.com/warplab/warplab/sim"
)

// LoadFormula is the lecture's count of global element loads of A and B for
// one N x N product when TILE*COARSE divides N: the naive kernel loads a row
// of A and a column of B per output, 2N^3; tiling uses each loaded element
// TILE times, 2N^3/TILE; coarsening shares each A tile among COARSE output
// tiles, N^3/(TILE*COARSE) for A plus N^3/TILE for B. kernel is "naive",
// "tiled" or "coarse". It returns the count and the formula as text.
func LoadFormula(kernel string, n, tile, coarse int) (int64, string) {
	n3 := int64(n) * int64(n) * int64(n)
	switch kernel {
	case "naive":
		return 2 * n3, "2N^3"
	case "tiled":
		return 2 * n3 / int64(tile), "2N^3/TILE"
	default:
		return n3/int64(tile*coarse) + n3/int64(tile), "N^3/(TILE*COARSE) + N^3/TILE"
	}
}

// sweep counts the global loads of the naive and tiled kernels at every
// swept TILE, of the slide version and of the coarsened kernel at every
// COARSE for the chosen TILE, all at SweepN (simulator only: counting needs the counters).
func (r *runner) sweep() error {
	n := r.o.SweepN
	mb, err := r.newMatmul(n)
	if err != nil {
		return err
	}
	defer mb.free()
	type point struct {
		kind, name   string
		tile, coarse int
	}
	var pts []point
	for _, t := range r.o.Tiles {
		pts = append(pts, point{"naive", KMatmulNaive, t, 1}, point{"tiled", KMatmulTiled, t, 1})
	}
	pts = append(pts, point{"tiled", KMatmulTiledNoBounds, r.o.Tile, 1})
	for _, c := range Coarsenings() {
		if n%(r.o.Tile*c) == 0 {
			pts = append(pts, point{"coarse", CoarseKernel(c), r.o.Tile, c})
		}
	}
	for _, p := range pts {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		grid, block, shared := matmulGrid(n, p.tile, p.coarse)
		if p.kind == "naive" {
			shared = 0
		}
		l, err := r.dev.Launch(r.ctx, r.m.MustKernel(p.name), gpuext.Config{Grid: grid, Block: block, Shared: shared}, mb.A, mb.B, mb.C, int32(n))
		if err != nil {
			if cerr := r.ctx.Err(); cerr != nil {
				err = cerr // the simulator's "cancelled" fault: say it was ctx
			}
			return fmt.Errorf("tiling: sweep %s TILE=%d: %w", p.name, p.tile, err)
		}
		if ok, _, err := mb.check(); err != nil {
			return err
		} else if !ok {
			r.res.Failures = append(r.res.Failures, fmt.Sprintf("sweep %s (N=%d, TILE=%d, COARSE=%d): output differs from the CPU reference", p.name, n, p.tile, p.coarse))
		}
		row, err := loadRow(l.Stats, p.kind, p.name, n, p.tile, p.coarse)
		if err != nil {
			return err
		}
		if row.Counted != row.Formula {
			r.res.Failures = append(r.res.Failures, fmt.Sprintf("sweep %s (N=%d, TILE=%d, COARSE=%d): counted %d element loads, the formula %s says %d",
				p.name, n, p.tile, p.coarse, row.Counted, row.Text, row.Formula))
		}
		r.res.Loads = append(r.res.Loads, row)
	}
	return nil
}

// loadRow counts the element loads of A (parameter 0) and B (parameter 1)
// of one matmul launch: the active lanes of its global load sites, each
// attributed to the array its address comes from (loads.go).
func loadRow(s *sim.Stats, kind, name string, n, tile, coarse int) (LoadRow, error) {
	if s == nil {
		return LoadRow{}, errors.New("tiling: the load sweep needs the simulator's counters")
	}
	lanes, requests, sectors, err := loadsByParam(s, name)
	if err != nil {
		return LoadRow{}, err
	}
	for p := range lanes {
		if p != 0 && p != 1 {
			return LoadRow{}, fmt.Errorf("tiling: %s loads from parameter %d, which is neither A nor B", name, p)
		}
	}
	f, text := LoadFormula(kind, n, tile, coarse)
	return LoadRow{Kernel: name, N: n, Tile: tile, Coarse: coarse, ALoads: lanes[0], BLoads: lanes[1],
		Counted: lanes[0] + lanes[1], Formula: f, Text: text,
		Requests: requests[0] + requests[1], Sectors: sectors[0] + sectors[1], WarpInstructions: s.WarpInstructions}, nil
}

// roofline places every run that does arithmetic on the roofline of every
// device model the simulator knows.
func roofline(runs []KernelRun) []RooflineRow {
	var rows []RooflineRow
	for _, run := range runs {
		if run.Flops == 0 || run.DRAMBytes == nil || *run.DRAMBytes == 0 || run.ElementLoads == nil {
			continue
		}
		aiDRAM := float64(run.Flops) / float64(*run.DRAMBytes)
		aiLoads := float64(run.Flops) / float64(*run.ElementLoads*4)
		for _, m := range sim.Models() {
			rows = append(rows, RooflineRow{
				Kernel: run.Kernel, Model: m.Key, IntensityDRAM: aiDRAM, IntensityLoads: aiLoads,
				PeakFlops: m.FP32Flops, Bandwidth: m.DRAMBandwidth, Ridge: m.FP32Flops / m.DRAMBandwidth,
				AttainableDRAM: min(m.FP32Flops, aiDRAM*m.DRAMBandwidth), AttainableLoads: min(m.FP32Flops, aiLoads*m.DRAMBandwidth),
			})
		}
	}
	return rows
}

// demos runs the deliberate bugs on a simulator (dev itself when it is one):
// each barrier of the tiled kernel dropped, and the slide version run at an N
// that TILE does not divide. TILE is 16 and N = 40 for all three: two and a
// half tiles, so there are several phases and a ragged edge.
func (r *runner) demos() error {
	dev := r.dev
	if dev.Kind() != gpuext.Sim {
		d, err := gpuext.Open("sim")
		if err != nil {
			return err
		}
		defer d.Close()
		dev = d
	}
	for _, d := range []struct{ name, kernel string }{
		{"missing first __syncthreads (read before the tile is written)", KMatmulTiledNoSync1},
		{"missing second __syncthreads (tile overwritten while still read)", KMatmulTiledNoSync2},
		{"slide version, TILE does not divide N (no bounds checks)", KMatmulTiledNoBounds},
	} {
		demo, err := RunDemo(dev, d.kernel, DemoN, DemoTile)
		if err != nil {
			return err
		}
		demo.Name = d.name
		r.res.Demos = append(r.res.Demos, demo)
	}
	return nil
}

// The size of the bug demonstrations.
const (
	DemoN    = 40
	DemoTile = 16
)

// RunDemo launches one matmul kernel at n x n with tile x tile blocks on a
// simulator device and returns the fault it caused. A kernel that runs
// cleanly is an error: the demonstration failed to demonstrate.
func RunDemo(dev *gpuext.Device, kernel string, n, tile int) (Demo, error) {
	if dev.Kind() != gpuext.Sim {
		return Demo{}, fmt.Errorf("tiling: the %s demonstration needs the simulator; a GPU reports no error for it", kernel)
	}
	m := Module()
	mb := &matmulBuffers{}
	var err error
	if mb.A, err = gpuext.Upload(dev, "A", randomMatrix(n*n, 11)); err != nil {
		return Demo{}, err
	}
	if mb.B, err = gpuext.Upload(dev, "B", randomMatrix(n*n, 12)); err != nil {
		return Demo{}, err
	}
	if mb.C, err = gpuext.Alloc[float32](dev, "C", n*n); err != nil {
		return Demo{}, err
	}
	defer mb.free()
	grid, block, shared := matmulGrid(n, tile, 1)
	_, lerr := dev.Launch(context.Background(), m.MustKernel(kernel), gpuext.Config{Grid: grid, Block: block, Shared: shared}, mb.A, mb.B, mb.C, int32(n))
	var f *sim.Fault
	if !errors.As(lerr, &f) {
		if lerr == nil {
			return Demo{}, fmt.Errorf("tiling: %s at N=%d, TILE=%d ran without a fault", kernel, n, tile)
		}
		return Demo{}, lerr
	}
	return Demo{Kernel: kernel, N: n, Tile: tile, Kind: f.Kind, Fault: f.Error(), Where: describeFault(f, tile)}, nil
}

// describeFault says in the lesson's terms where a fault happened: which
// tile word for a shared race (As and Bs share the dynamic shared array; the
// PTX declares it as bytes, and the simulator gives the index in the
// racing access's elements, here floats), which element for an
// out-of-bounds access.
func describeFault(f *sim.Fault, tile int) string {
	switch f.Kind {
	case sim.FaultSharedRace:
		arr, i := "As", f.Index
		if i >= tile*tile {
			arr, i = "Bs", i-tile*tile
		}
		return fmt.Sprintf("%s in block %v, thread %v, on %s[%d][%d]", f.Kind, f.Block, f.Thread, arr, i/tile, i%tile)
	case sim.FaultOutOfBounds:
		return fmt.Sprintf("%s in block %v, thread %v: %s[%d], length %d", f.Kind, f.Block, f.Thread, f.Buffer, f.Index, f.Len)
	}
	return f.Kind.String()
}

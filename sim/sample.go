package sim

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/warplab/warplab/sim/timing"
)

// Block sampling (issue 27): the time model's sweep goes up to grids of
// 2^16 and more blocks whose kernels run 10^10 to 10^13 thread
// instructions, far past what the executor runs in minutes on a laptop.
// A sampled launch (PTXOptions.SampleStride = k) runs one block in every k
// — for each run of k blocks (j·k to (j+1)·k − 1, the last run shorter),
// one block picked by a fixed hash of j: the sample spreads evenly over
// the grid (stratified) without aliasing with a period of the input, as
// the middle block of every run would (Day 37's skewed matrix has a long
// row every 32 rows) — and stands each for the blocks of its run:
//
//   - every counter of the launch (requests, sectors, wavefronts,
//     instructions, the L1 model's misses) is the sample's times N/S, where
//     S blocks of N ran;
//   - the DRAM footprint of a buffer (distinct sectors read, written) is
//     the sample's times N/S, but never more than the buffer: blocks that
//     share data (a matmul's bands, an SpMV's x) touch in the sample a
//     larger share of what the whole grid touches than their number says,
//     and the whole grid at most touches all of it;
//   - the time model's per-block records (timing.Block) are the sample's,
//     each repeated for every block of its run, so the schedule places N
//     blocks in waves as it does for a whole launch.
//
// What it cannot see: a block unlike its run's sampled one (one dense row
// among thousands of short ones, when its block is not the one run) is
// left out, or, when it is the one run, stands for its whole run. A
// caller that knows its heavy blocks (an SpMV its longest rows) names them
// in PTXOptions.SampleKeep: they run as well, and in the schedule each
// stands for itself (runKept); the counters stay the sample's. Sampled
// against whole launches that fit, the modeled times agree as
// TestSampledTime states (a power-law SpMV's thread per row 0.51 of the
// whole sampled 1 in 8, 1.00 with its eight longest rows' blocks kept).

// blocksToRun is how many blocks the workers run: the grid, or its sample.
func (l *launch) blocksToRun() int {
	if l.list != nil {
		return len(l.list)
	}
	n := l.grid.Count()
	if l.stride > 1 {
		return (n + l.stride - 1) / l.stride
	}
	return n
}

// blockAt is the grid's block the workers run as their i-th: i itself, or
// a block of the i-th run of stride blocks picked by a fixed hash of i
// (sampleOffset), so that the sample does not alias with a period in the
// input (a long row every 32, a grid's row length).
func (l *launch) blockAt(i int) int {
	if l.list != nil {
		return l.list[i]
	}
	if l.stride <= 1 {
		return i
	}
	lo := i * l.stride
	hi := min(lo+l.stride, l.grid.Count())
	return lo + sampleOffset(uint64(i), hi-lo)
}

// sampleOffset is a block of a run of n picked by i: splitmix64's
// finalizer of i, modulo n. Fixed, so a sampled launch is deterministic.
func sampleOffset(i uint64, n int) int {
	z := i + 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	return int(z % uint64(n))
}

// sampleScale is what a sampled launch's counters are multiplied by: the
// grid's blocks over those that ran (1 for a whole launch).
func (l *launch) sampleScale() float64 {
	if l.stride <= 1 {
		return 1
	}
	return float64(l.grid.Count()) / float64(l.blocksToRun())
}

// scaled is x·f rounded; f is 1 for a whole launch, which keeps x.
func scaled(x int64, f float64) int64 {
	if f == 1 {
		return x
	}
	return int64(math.Round(float64(x) * f))
}

// scaleSite scales one merged site's counters.
func (s *SiteStats) scale(f float64) {
	s.Requests = scaled(s.Requests, f)
	s.Sectors = scaled(s.Sectors, f)
	s.L2Sectors = scaled(s.L2Sectors, f)
	s.Wavefronts = scaled(s.Wavefronts, f)
	s.Conflicts = scaled(s.Conflicts, f)
	s.LaneSlots = scaled(s.LaneSlots, f)
	s.ActiveLanes = scaled(s.ActiveLanes, f)
	for i := range s.ActiveHist {
		s.ActiveHist[i] = scaled(s.ActiveHist[i], f)
	}
}

// footprintSectors is a buffer's distinct sectors in the whole grid, from
// the sample's n of a bitmap with room for most sectors (the buffer's,
// rounded up to 64): n·f, at most the buffer.
func footprintSectors(n int64, f float64, most int64) int64 {
	if f == 1 {
		return n
	}
	return min(scaled(n, f), most)
}

// expandSampled repeats each sampled block's record for every block of its
// run, so that the schedule sees the whole grid; t.Rounds is scaled.
func (l *launch) expandSampled(t *timing.Launch) {
	if l.stride <= 1 {
		return
	}
	n := l.grid.Count()
	out := make([]timing.Block, 0, n)
	for _, b := range t.Blocks {
		// b.B is in run b.B / stride
		lo := int(b.B) / l.stride * l.stride
		hi := min(lo+l.stride, n)
		for k := lo; k < hi; k++ {
			c := b
			c.B = int64(k)
			out = append(out, c)
		}
	}
	// The kept blocks' own records stand for themselves (runKept).
	if len(l.kept) > 0 {
		kept := make(map[int64]timing.Block, len(l.kept))
		for _, b := range l.kept {
			kept[b.B] = b
		}
		for i := range out {
			if b, ok := kept[out[i].B]; ok {
				out[i] = b
			}
		}
	}
	t.Blocks = out
	t.Rounds = scaled(t.Rounds, l.sampleScale())
}

// runKept runs the kept blocks of a sampled launch (PTXOptions.SampleKeep)
// on workers of their own, for their time model records only: each
// replaces, in the schedule, the copy of its run's sampled block that
// stood for it (expandSampled). The counters stay the sample's: a heavy
// block weighs in them as its run's sampled block does, and in the
// schedule, where one long block sets the end, as itself. Its stores
// land as the sample's do (a sampled launch's outputs are partial).
func (d *Device) runKept(ctx context.Context, l *launch) ([]timing.Block, error) {
	kl := &launch{d: d, k: l.k, grid: l.grid, block: l.block, sharedBytes: l.sharedBytes,
		nThreads: l.nThreads, nWarps: l.nWarps, px: l.px, args: l.args, list: l.keep}
	workers, err := d.runWorkers(ctx, kl)
	if err != nil {
		return nil, err
	}
	return timing.Merge(blockLogs(workers), 1, l.nWarps).Blocks, nil
}

// sampleKeep checks a sampled launch's kept blocks (PTXOptions.SampleKeep)
// against its grid of n blocks and returns them sorted, without repeats.
func sampleKeep(keep []int, n int) ([]int, error) {
	out := slices.Clone(keep)
	slices.Sort(out)
	out = slices.Compact(out)
	for _, b := range out {
		if b < 0 || b >= n {
			return nil, fmt.Errorf("SampleKeep: block %d is outside the grid's %d blocks", b, n)
		}
	}
	return out, nil
}

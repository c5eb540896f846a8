package cg

import (
	"context"
	"fmt"
	"time"

	"github.com/warplab/warplab/gpuext"
)

// Bandwidth is how close a stage comes to the memory system (issue 7: "its
// bytes moved per iteration over the time as a fraction of the copy
// bandwidth measured in the same run").
//
// BytesPerIter is a lower bound counted from the kernels, not measured:
// every launch of the solve adds, for each distinct buffer it reads, the
// buffer's size once, and for each buffer it writes, the size once more
// (launchBytes). SpMV thus counts rowPtr, cols, vals, y and x once: the
// gather x[cols[j]] reads each element of x up to 27 times, but from cache,
// so once per element is the honest floor. The sum over all launches of the
// solve (the five before the loop included, as the wall time includes them)
// is divided by the iterations.
//
// CopyGBps is copyVector (y = x) on CopyElems doubles timed with dev.Time
// in the same run: read plus write bytes over the mean time. Fraction is
// BytesPerIter ÷ (WallSeconds ÷ Iterations) ÷ CopyGBps. On a GPU the copy is
// CUDA events (measured); on the simulator everything is the time model's
// (modeled), launch overhead included.
type Bandwidth struct {
	CopyGBps     float64         `json:"copy_gbps"`
	CopyElems    int             `json:"copy_elems"`
	BytesPerIter float64         `json:"bytes_per_iter"`
	AchievedGBps float64         `json:"achieved_gbps"`
	Fraction     float64         `json:"bandwidth_fraction"`
	TimeKind     gpuext.TimeKind `json:"time_kind"`
}

// TimeAccount says where a stage's wall time goes beyond its kernels.
//
// On a GPU: KernelSeconds are the CUDA-event times of the kernels (replayed
// after the solve, so warm in L2: a lower bound of their time inside the
// solve); IdleSeconds = WallSeconds − KernelSeconds is time the GPU ran no
// kernel. Each D2H of r·r blocks the host until every queued kernel has
// finished: CopySeconds = D2H calls × PerCopySeconds (an 8-byte download on
// an idle GPU, measured in the same run) is the copies themselves, and
// SyncWaitSeconds = the host-timed copy time − CopySeconds is the host
// waiting for kernels inside those copies. LaunchSeconds = launches ×
// PerLaunchSeconds (back-to-back launches of a one-thread kernel, host
// clock, same run) is the host's cost of issuing the kernels; most of it
// overlaps kernels already queued, except the first launch after each
// synchronizing copy (ExposedSeconds = D2H calls × (PerCopySeconds +
// PerLaunchSeconds) is that estimate of the idle time). On the simulator
// the wall time is modeled as kernels + launches + copies, with no overlap.
type TimeAccount struct {
	KernelSeconds    float64         `json:"kernel_seconds"`
	IdleSeconds      float64         `json:"idle_seconds"`
	CopySeconds      float64         `json:"copy_seconds"`
	SyncWaitSeconds  float64         `json:"sync_wait_seconds"`
	LaunchSeconds    float64         `json:"launch_seconds"`
	ExposedSeconds   float64         `json:"exposed_seconds"`
	PerLaunchSeconds float64         `json:"per_launch_seconds"`
	PerCopySeconds   float64         `json:"per_copy_seconds"`
	TimeKind         gpuext.TimeKind `json:"time_kind"`
}

// Copy-probe sizes: on a GPU at least 8 Mi doubles (64 MiB per buffer,
// beyond the H200's 50 MiB L2, so the copy streams from HBM); on the
// simulator at least 64 Ki doubles, which it runs in well under a second.
const (
	copyProbeGPU = 8 << 20
	copyProbeSim = 64 << 10
	launchProbes = 200 // launches timed for PerLaunchSeconds (GPU)
	copyProbes   = 50  // 8-byte downloads timed for PerCopySeconds (GPU)
)

// kernelRoles are the argument indices each kernel reads and writes, for
// launchBytes.
var kernelRoles = map[string]struct{ reads, writes []int }{
	kSpMVThreadPerRow:        {[]int{1, 2, 3, 4}, []int{5}},
	kSpMVThreadPerRowUnroll1: {[]int{1, 2, 3, 4}, []int{5}},
	kSpMVSubwarp:             {[]int{2, 3, 4, 5}, []int{6}},
	kSpMVStencil27:           {[]int{3}, []int{4}},
	kWaxpby:                  {[]int{2, 4}, []int{5}},
	kWaxpbyDeviceScalar:      {[]int{1, 2, 4}, []int{5}},
	kDdotPartial:             {[]int{1, 2}, []int{3}},
	kDdotFinal:               {[]int{1}, []int{2}},
	kCgDivide:                {[]int{0, 1}, []int{2}},
	kCopyScalar:              {[]int{0}, []int{1}},
	kDdotFinalDivide:         {[]int{1, 3}, []int{2, 5}},
	kUpdateXRDot:             {[]int{1, 2, 3, 4, 5}, []int{4, 5, 6}},
	kUpdateXRDotTo:           {[]int{1, 2, 3, 4, 5}, []int{6, 7, 8}},
	kCopyVector:              {[]int{1}, []int{2}},
	// Stage 9. The state and the residual history (a few doubles) are
	// left out; the partials are counted like ddotPartial's.
	kCgBetaUpdateP:    {[]int{2, 7, 8}, []int{8}},
	kCgAlphaUpdateXR:  {[]int{2, 4, 5, 6, 7}, []int{6, 7, 8}},
	kSpMVStencil27Dot: {[]int{3}, []int{4, 6}},
	"spmvCsrVector1":  {[]int{1, 2, 3, 4}, []int{5, 7}},
	"spmvCsrVector2":  {[]int{1, 2, 3, 4}, []int{5, 7}},
	"spmvCsrVector4":  {[]int{1, 2, 3, 4}, []int{5, 7}},
	"spmvCsrVector8":  {[]int{1, 2, 3, 4}, []int{5, 7}},
	"spmvCsrVector16": {[]int{1, 2, 3, 4}, []int{5, 7}},
	"spmvCsrVector32": {[]int{1, 2, 3, 4}, []int{5, 7}},
}

// launchBytes is the least device-memory traffic of one launch: each
// distinct buffer read counted once at its full size, each buffer written
// once more (x = x + alpha·p reads and writes x: 2 × 8n).
func launchBytes(kernel string, args []any) int64 {
	roles, ok := kernelRoles[kernel]
	if !ok {
		return 0
	}
	var total int64
	seen := map[any]bool{}
	for _, i := range roles.reads {
		if i < len(args) && !seen[args[i]] {
			seen[args[i]] = true
			total += bufBytes(args[i])
		}
	}
	for _, i := range roles.writes {
		if i < len(args) {
			total += bufBytes(args[i])
		}
	}
	return total
}

func bufBytes(a any) int64 {
	switch b := a.(type) {
	case *gpuext.Buffer[float64]:
		return 8 * int64(b.Len())
	case *gpuext.Buffer[int32]:
		return 4 * int64(b.Len())
	}
	return 0
}

// measureCopy times copyVector on two buffers of at least the stage's n
// doubles and returns GB/s and the elements copied.
func (e *engine) measureCopy() (gbps float64, elems int, kind gpuext.TimeKind, err error) {
	elems = max(e.n, copyProbeSim)
	if !e.isSim {
		elems = max(e.n, copyProbeGPU)
	}
	src, err := gpuext.Alloc[float64](e.dev, "copy-src", elems)
	if err != nil {
		return 0, 0, "", err
	}
	defer src.Free()
	dst, err := gpuext.Alloc[float64](e.dev, "copy-dst", elems)
	if err != nil {
		return 0, 0, "", err
	}
	defer dst.Free()
	b := e.opt.BlockSize
	t, err := e.dev.Time(func() error {
		_, err := e.dev.Launch(e.ctx, e.mod.MustKernel(kCopyVector), gpuext.Config{Grid: (elems + b - 1) / b, Block: b}, int32(elems), src, dst)
		return err
	}, e.opt.EventWarmups, e.opt.EventRuns)
	if err != nil {
		return 0, 0, "", fmt.Errorf("timing copyVector: %w", err)
	}
	kind = gpuext.Measured
	if e.isSim {
		kind = gpuext.Modeled
	}
	if t.MeanMs <= 0 {
		return 0, elems, kind, nil
	}
	return 16 * float64(elems) / (t.MeanMs / 1e3) / 1e9, elems, kind, nil
}

// measureOverheads returns the host cost of one launch and of one 8-byte
// download on an idle GPU (host clock); on the simulator, the model's.
func (e *engine) measureOverheads() (perLaunch, perCopy float64, err error) {
	if e.isSim {
		return e.model.LaunchOverhead, e.model.PCIeLatency + 8/e.model.PCIeBandwidth, nil
	}
	a, err := gpuext.Alloc[float64](e.dev, "probe-a", 1)
	if err != nil {
		return 0, 0, err
	}
	defer a.Free()
	c, err := gpuext.Alloc[float64](e.dev, "probe-b", 1)
	if err != nil {
		return 0, 0, err
	}
	defer c.Free()
	if err := e.dev.Synchronize(); err != nil {
		return 0, 0, err
	}
	t0 := time.Now()
	for range launchProbes {
		if _, err := e.dev.Launch(context.Background(), e.mod.MustKernel(kCopyScalar), gpuext.Config{Grid: 1, Block: 1}, a, c); err != nil {
			return 0, 0, err
		}
	}
	perLaunch = time.Since(t0).Seconds() / launchProbes
	if err := e.dev.Synchronize(); err != nil {
		return 0, 0, err
	}
	var one [1]float64
	t0 = time.Now()
	for range copyProbes {
		if err := c.Download(one[:]); err != nil {
			return 0, 0, err
		}
	}
	perCopy = time.Since(t0).Seconds() / copyProbes
	return perLaunch, perCopy, nil
}

// account fills res.Bandwidth and res.Account after finish has filled the
// times.
func (e *engine) account(res *StageResult) error {
	gbps, elems, kind, err := e.measureCopy()
	if err != nil {
		return err
	}
	perLaunch, perCopy, err := e.measureOverheads()
	if err != nil {
		return fmt.Errorf("measuring launch and copy overhead: %w", err)
	}
	if res.Iterations > 0 && res.WallSeconds > 0 {
		bw := &Bandwidth{CopyGBps: gbps, CopyElems: elems, TimeKind: kind,
			BytesPerIter: float64(e.bytesMoved) / float64(res.Iterations)}
		bw.AchievedGBps = float64(e.bytesMoved) / res.WallSeconds / 1e9
		if gbps > 0 {
			bw.Fraction = bw.AchievedGBps / gbps
		}
		res.Bandwidth = bw
	}
	a := &TimeAccount{PerLaunchSeconds: perLaunch, PerCopySeconds: perCopy, TimeKind: res.TimeKind}
	for _, k := range res.Kernels {
		if k.Where != WhereCPU {
			a.KernelSeconds += k.Seconds
		}
	}
	a.LaunchSeconds = float64(res.Launches) * perLaunch
	d2h := res.Transfers.D2HCalls
	if e.isSim {
		// Modeled kernel times include their launch overhead.
		a.KernelSeconds -= a.LaunchSeconds
		a.CopySeconds = res.Transfers.Seconds
	} else {
		a.IdleSeconds = max(0, res.WallSeconds-a.KernelSeconds)
		a.CopySeconds = float64(d2h) * perCopy
		if e.devScalars {
			a.SyncWaitSeconds = max(0, res.Transfers.Seconds-a.CopySeconds)
			a.ExposedSeconds = float64(d2h) * (perCopy + perLaunch)
		}
		if e.pipelined || e.deviceLoop {
			// Stage 7's reads of r·r are queued with the kernels and waited
			// for while the next iteration is already queued (stages 9 and
			// 10: the reads of the loop state, a batch behind): only the
			// final, synchronous downloads expose a copy and a launch.
			a.ExposedSeconds = perCopy + perLaunch
		}
		if l := res.DeviceLoop; l != nil && l.Graph {
			// The host issued one graph launch per batch, not one launch
			// per kernel; a graph launch is costed as one plain launch.
			a.LaunchSeconds = float64(res.Launches-l.Replays*l.KernelsPerIteration+l.GraphLaunches) * perLaunch
		}
	}
	res.Account = a
	return nil
}

// spmvBefore runs the thread-per-row SpMV once on the stage's buffers (the
// simulator only; not counted in the stage) so that a stage with the
// coalesced SpMV reports the excessive sectors before and after.
func (e *engine) spmvBefore() (*SpMVCounters, error) {
	if !e.isSim || e.spmvKernel != kSpMVSubwarp {
		return nil, nil
	}
	a := e.p.A
	l, err := e.dev.Launch(e.ctx, e.mod.MustKernel(kSpMVThreadPerRow), gpuext.Config{Grid: e.grid, Block: e.opt.BlockSize}, int32(a.Rows), e.dRowPtr, e.dCols, e.dVals, e.dv[vP], e.dv[vAp])
	if err != nil || l.Stats == nil {
		return nil, err
	}
	c := spmvCounters(l.Stats)
	return &c, nil
}

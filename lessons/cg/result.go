package cg

import "github.com/warplab/warplab/gpuext"

// Names of the three kernels as StageResult.Kernels records them, in the
// order of the article's profile table.
const (
	KernelSpMV   = "spmv"
	KernelWaxpby = "waxpby"
	KernelDdot   = "ddot"
)

// Values of KernelStat.Timer: which clock produced Seconds. The lesson shows
// a host timer and CUDA events side by side because a host timer around an
// asynchronous launch measures the launch, not the kernel.
const (
	TimerHost  = "host"       // wall clock around the call on the host
	TimerEvent = "cuda_event" // cudaEventElapsedTime between events around the launches
	TimerModel = "model"      // the simulator's modeled time
)

// StageResult is what one stage of the lesson reports, whichever backend ran
// it: stage 0 on the CPU fills it here, the GPU and simulator stages fill
// the same fields, so that one table, one JSON file and one set of plots
// cover the whole journey. Fields a backend cannot know stay zero.
type StageResult struct {
	Stage   int    `json:"stage"`             // 0..10, see the package comment
	Name    string `json:"name"`              // short name, e.g. "cpu-serial", "spmv-on-gpu"
	Backend string `json:"backend"`           // "cpu", "gpu" or "sim"
	Device  string `json:"device"`            // what ran it: CPU and goroutines, GPU name and driver, or the device model
	Date    string `json:"date,omitempty"`    // when a measurement was taken (RFC 3339), for recorded evidence
	Workers int    `json:"workers,omitempty"` // CPU goroutines (chunks of the parallel ddot); 0 for serial

	Grid [3]int `json:"grid"` // NX, NY, NZ
	Rows int    `json:"rows"`
	NNZ  int    `json:"nnz"`

	Iterations      int       `json:"iterations"`
	InitialResidual float64   `json:"initial_residual"` // ‖b − A·x0‖ before the loop
	FinalResidual   float64   `json:"final_residual"`   // HPCCG's reported residual: normr of the last iteration, before its update
	TrueResidual    float64   `json:"true_residual"`    // ‖b − A·x‖ recomputed from the final x (HPCCG does not print it)
	MaxErr          float64   `json:"max_err"`          // max |x_i − 1|; the exact solution is all ones
	Residuals       []float64 `json:"residuals"`        // Residuals[k−1] = normr printed at iteration k

	Kernels     []KernelStat    `json:"kernels"`
	Transfers   Transfers       `json:"transfers"`
	Launches    int             `json:"launches"`        // kernel launches (0 on the CPU)
	WallSeconds float64         `json:"wall_seconds"`    // end to end, first kernel to the last (HPCCG's "Total")
	TotalFlops  float64         `json:"total_flops"`     // sum of the kernels' Flops
	TotalMFLOPS float64         `json:"total_mflops"`    // TotalFlops / WallSeconds / 1e6
	TimeKind    gpuext.TimeKind `json:"time_kind"`       // for WallSeconds
	Notes       []string        `json:"notes,omitempty"` // anything a reader of the numbers must know (a breakdown, a fallback)
	// GPUSpanSeconds (GPU only) is the same solve between two CUDA events
	// on the stream, one queued before its first operation and one after
	// its last (gpuext's TimeOnce): the GPU's span, against the host clock's
	// WallSeconds.
	GPUSpanSeconds float64 `json:"gpu_span_seconds,omitempty"`
	// XDownloadSeconds (GPU only) is the part of WallSeconds after every
	// iteration's work was done: the download of x (and, in stages 9 and
	// 10, of the state and the residual history), host clock.
	XDownloadSeconds float64 `json:"x_download_seconds,omitempty"`
	// WarmupSolves is how many untimed solves of this stage ran just before
	// this one (RunOptions.WarmupSolves).
	WarmupSolves int `json:"warmup_solves,omitempty"`

	// Setup counts the copies made before the timed region: the matrix
	// (and, for the resident stages, b and x0). HPCCG does not time its
	// matrix generation either.
	Setup Transfers `json:"setup_transfers"`
	// LaunchOverheadSeconds is, on the simulator, launches × the model's
	// launch overhead: the part of the modeled kernel times that is the
	// launch, not the work (modeled).
	LaunchOverheadSeconds float64 `json:"launch_overhead_seconds,omitempty"`
	// SimSeconds is how long the simulator took to run the stage on this
	// machine: a cost of the simulation, not a time of the GPU.
	SimSeconds float64 `json:"sim_seconds,omitempty"`
	// SpMV holds the simulator's counters of one SpMV launch (every launch
	// of a stage touches the same addresses): requests, sectors and the
	// excessive share the article's Nsight Compute run flagged.
	SpMV *SpMVCounters `json:"spmv_counters,omitempty"`
	// SpMVBefore, for the stages with the coalesced SpMV on the
	// simulator, holds the thread-per-row kernel's counters on the same
	// matrix: the "before" of the excessive-sector comparison.
	SpMVBefore *SpMVCounters `json:"spmv_counters_before,omitempty"`
	// Bandwidth relates the stage's kernel bytes to the copy bandwidth
	// measured (GPU) or modeled (simulator) in the same run.
	Bandwidth *Bandwidth `json:"bandwidth,omitempty"`
	// Account says where the wall time goes besides the kernels.
	Account *TimeAccount `json:"time_account,omitempty"`
	// Speculative, for stage 7 (pipelined), counts the work queued ahead
	// of the convergence check and then discarded; that work is included
	// in Launches, Transfers and Kernels, since the device did it.
	Speculative *Speculation `json:"speculative,omitempty"`
	// DeviceLoop, for stages 9 and 10, says how the host drove a loop whose
	// convergence check ran on the device: graph replays, checks, idle
	// replays. Its launches are included in Launches and Kernels.
	DeviceLoop *DeviceLoop `json:"device_loop,omitempty"`
	// VsStage0 compares the residual history with stage 0's on the same
	// grid, when the caller ran both (Command does).
	VsStage0 *ResidualComparison `json:"vs_stage0,omitempty"`

	// X is the final iterate, kept for comparisons between stages and not
	// written to JSON (it is n numbers).
	X []float64 `json:"-"`
}

// Speculation is what stage 7 queued speculatively and discarded: the
// iteration queued before the residual that ended the loop was known.
type Speculation struct {
	// Iteration is the discarded iteration's number (Iterations+1), 0 when
	// none was discarded: none is queued once max_iter forbids it.
	Iteration int `json:"iteration"`
	// Launches and D2HCalls are its kernel launches and its one read of r·r
	// (none for iteration 1, whose residual is the initial one).
	Launches int `json:"launches"`
	D2HCalls int `json:"d2h_calls"`
}

// KernelStat is one kernel's share of a stage.
type KernelStat struct {
	Name    string  `json:"name"`    // KernelSpMV, KernelWaxpby, KernelDdot or KernelDivide
	Seconds float64 `json:"seconds"` // summed over all calls, by Timer
	Calls   int     `json:"calls"`
	// Where the operation ran: WhereCPU, WhereGPU or WhereSim ("" for
	// stage 0, which is all CPU).
	Where string `json:"where,omitempty"`
	// Launches are the kernel launches the calls made (ddot is two per
	// call); 0 on the CPU.
	Launches int `json:"launches,omitempty"`
	// Flops are counted as HPCCG counts them, per iteration and not per
	// call: 2·27·n for SpMV (27·n is HPCCG's nnz estimate), 6·n for
	// waxpby, 4·n for ddot, times the number of iterations. The calls before
	// the loop are timed but not counted, as in HPCCG.
	Flops    float64         `json:"flops"`
	MFLOPS   float64         `json:"mflops"` // Flops / Seconds / 1e6
	Timer    string          `json:"timer"`  // TimerHost, TimerEvent or TimerModel
	TimeKind gpuext.TimeKind `json:"time_kind"`

	// GPUSeconds is, on the simulator, the modeled GPU time under Seconds:
	// the same launches without the host's launch interval, which sets the
	// time of a launch shorter than it (sim.Modeled.GPUSeconds). It tells
	// apart two operations that both sit at that floor.
	GPUSeconds float64 `json:"gpu_seconds,omitempty"`

	// HostSeconds is the host wall clock around the same calls, recorded
	// beside an event or modeled time so the two can be shown side by side.
	// For Timer == TimerHost it equals Seconds.
	HostSeconds float64 `json:"host_seconds,omitempty"`
}

// Transfers counts the copies a stage makes between host and device, as the
// article counts cudaMemcpy calls (304 → 156 when two scalar buffers swap
// instead of copying).
type Transfers struct {
	H2DCalls int   `json:"h2d_calls"`
	H2DBytes int64 `json:"h2d_bytes"`
	D2HCalls int   `json:"d2h_calls"`
	D2HBytes int64 `json:"d2h_bytes"`
	D2DCalls int   `json:"d2d_calls"`
	D2DBytes int64 `json:"d2d_bytes"`
	// Seconds is the time spent in the copies, and TimeKind says whether
	// it was measured or modeled (PCIe bandwidth and latency from the
	// device model).
	Seconds  float64         `json:"seconds"`
	TimeKind gpuext.TimeKind `json:"time_kind,omitempty"`
}

// Kernel returns the named kernel's statistics and whether the stage has
// them.
func (r *StageResult) Kernel(name string) (KernelStat, bool) {
	for _, k := range r.Kernels {
		if k.Name == name {
			return k, true
		}
	}
	return KernelStat{}, false
}

// HPCCGFlops returns the flops HPCCG credits to each kernel for iters
// iterations on n rows: SpMV 2·27·n, waxpby 6·n, ddot 4·n per iteration.
func HPCCGFlops(n, iters int) (spmv, waxpby, ddot float64) {
	fn, fi := float64(n), float64(iters)
	return fi * 2 * 27 * fn, fi * 6 * fn, fi * 4 * fn
}

// mflops is flops / seconds / 1e6, or 0 when no time was recorded.
func mflops(flops, seconds float64) float64 {
	if seconds <= 0 {
		return 0
	}
	return flops / seconds / 1e6
}

package sim

import (
	"fmt"
	"strings"
)

// Model describes one GPU to the simulator: the limits a launch must respect
// and the peak rates the time model divides by. The limits and peaks are the
// vendors' published specifications (FP32 and TF32 peaks for the A100 PCIe
// and H100 SXM are the ones lecture 4 uses). The time model's constants
// (latencies, achievable bandwidths, fixed costs) are set once per model,
// never per kernel: TimeConstants lists each with its value and where it
// comes from (a recorded H200 measurement, or a published figure, which
// the T4's all are), and docs/timemodel.md explains them.
type Model struct {
	Key, Name          string
	CCMajor, CCMinor   int
	SMs                int
	MaxThreadsPerSM    int
	MaxWarpsPerSM      int
	MaxThreadsPerBlock int
	MaxBlocksPerSM     int
	SharedPerBlock     int // bytes a block may use (opt-in maximum)
	SharedPerSM        int // bytes
	L2Bytes            int64
	MemoryBytes        int64
	DRAMBandwidth      float64 // bytes/s, peak
	L2Bandwidth        float64 // bytes/s, estimate
	FP32Flops          float64 // flop/s, peak
	TF32Flops          float64 // flop/s, dense tensor-core peak (0: none)
	ClockHz            float64 // boost clock
	IssuePerSMCycle    float64 // warp instructions issued per SM per cycle (4 schedulers)
	LaunchOverhead     float64 // seconds: the GPU's own fixed cost of a kernel, added to every launch
	L1Latency          float64 // seconds: a dependent load that hits L1
	L2Latency          float64 // seconds: a dependent load that misses L1 and hits L2
	DRAMLatency        float64 // seconds: a dependent load that misses L2
	WarpCPI            float64 // cycles per instruction of a warp issuing alone (dependent arithmetic)
	DRAMAchievable     float64 // bytes/s a streaming kernel reaches (below DRAMBandwidth, the peak)
	TimedLaunch        float64 // seconds: least time per launch between CUDA events when launches come back to back from Go (the host's launch rate), for a kernel without arguments
	// TimedLaunchPerBuffer and TimedLaunchPerScalar are what each buffer
	// and each scalar argument adds to TimedLaunch: gpuext checks every
	// buffer before it launches, and the driver copies every argument.
	TimedLaunchPerBuffer, TimedLaunchPerScalar float64 // seconds
	PCIeBandwidth                              float64 // bytes/s host<->device, achievable
	PCIeLatency                                float64 // seconds per copy call
	// L1Bytes is an SM's unified L1 data cache and shared memory; what
	// the resident blocks' shared memory leaves, up to L1DataBytes (the
	// largest data carve-out), is the L1's data capacity.
	L1Bytes, L1DataBytes int
	// L1MissFrom and L1MissTo are the L1's capacity curve: a load that
	// re-touches a sector misses with probability (ρ − L1MissFrom) /
	// (L1MissTo − L1MissFrom), clamped to [0, 1], where ρ is the SM's
	// resident warps × the 128-byte lines its warp touched since the last
	// touch ÷ the L1's capacity in lines (worker.go, l1Lost).
	L1MissFrom, L1MissTo float64
	// L2LineShare is how many line transactions a second the L2 serves,
	// as a share of its sector rate (L2Bandwidth / 32 bytes): a request
	// that uses one sector of each line it touches (a thread-per-row
	// loop's lanes, each in its own line) is held to that many lines a
	// second however few bytes it moves. 0 leaves the L2 counted in bytes
	// alone.
	L2LineShare float64
}

const (
	kib = 1 << 10
	mib = 1 << 20
	gib = 1 << 30
)

// Models returns the GPUs the simulator knows, slowest first. It returns a
// fresh slice each call, so callers may modify what they get.
func Models() []Model {
	ms := []Model{
		{
			Key: "t4", Name: "Tesla T4", CCMajor: 7, CCMinor: 5,
			SMs: 40, MaxThreadsPerSM: 1024, MaxWarpsPerSM: 32, MaxThreadsPerBlock: 1024, MaxBlocksPerSM: 16,
			SharedPerBlock: 64 * kib, SharedPerSM: 64 * kib,
			L2Bytes: 4 * mib, MemoryBytes: 16 * gib,
			DRAMBandwidth: 320e9, L2Bandwidth: 1.3e12,
			FP32Flops: 8.1e12, TF32Flops: 0, ClockHz: 1.59e9, IssuePerSMCycle: 4,
			LaunchOverhead: 3e-6, PCIeBandwidth: 12e9, PCIeLatency: 10e-6,
			L1Latency: 32 / 1.59e9, L2Latency: 188 / 1.59e9, DRAMLatency: 500e-9, WarpCPI: 4,
			DRAMAchievable: 0.8 * 320e9, TimedLaunch: 5.385e-6, TimedLaunchPerBuffer: 0.217e-6, TimedLaunchPerScalar: 0.0533e-6,
			L1Bytes: 96 * kib, L1DataBytes: 64 * kib, L1MissFrom: 0.5, L1MissTo: 1.5, L2LineShare: 0.52,
		},
		{
			Key: "a100", Name: "NVIDIA A100 80GB PCIe", CCMajor: 8, CCMinor: 0,
			SMs: 108, MaxThreadsPerSM: 2048, MaxWarpsPerSM: 64, MaxThreadsPerBlock: 1024, MaxBlocksPerSM: 32,
			SharedPerBlock: 163 * kib, SharedPerSM: 164 * kib,
			L2Bytes: 40 * mib, MemoryBytes: 80 * gib,
			DRAMBandwidth: 1935e9, L2Bandwidth: 5.5e12,
			FP32Flops: 19.5e12, TF32Flops: 156e12, ClockHz: 1.41e9, IssuePerSMCycle: 4,
			LaunchOverhead: 2.5e-6, PCIeBandwidth: 24e9, PCIeLatency: 8e-6,
			L1Latency: 40e-9, L2Latency: 300e-9, DRAMLatency: 700e-9, WarpCPI: 4,
			DRAMAchievable: 0.85 * 1935e9, TimedLaunch: 5.385e-6, TimedLaunchPerBuffer: 0.217e-6, TimedLaunchPerScalar: 0.0533e-6,
			L1Bytes: 192 * kib, L1DataBytes: 192 * kib, L1MissFrom: 0.5, L1MissTo: 1.5, L2LineShare: 0.52,
		},
		{
			Key: "h100", Name: "NVIDIA H100 SXM", CCMajor: 9, CCMinor: 0,
			SMs: 132, MaxThreadsPerSM: 2048, MaxWarpsPerSM: 64, MaxThreadsPerBlock: 1024, MaxBlocksPerSM: 32,
			SharedPerBlock: 227 * kib, SharedPerSM: 228 * kib,
			L2Bytes: 50 * mib, MemoryBytes: 80 * gib,
			DRAMBandwidth: 3.35e12, L2Bandwidth: 10e12,
			FP32Flops: 67e12, TF32Flops: 494.7e12, ClockHz: 1.98e9, IssuePerSMCycle: 4,
			LaunchOverhead: 2e-6, PCIeBandwidth: 50e9, PCIeLatency: 8e-6,
			L1Latency: 20e-9, L2Latency: 150e-9, DRAMLatency: 450e-9, WarpCPI: 4,
			DRAMAchievable: 0.75 * 3.35e12, TimedLaunch: 5.385e-6, TimedLaunchPerBuffer: 0.217e-6, TimedLaunchPerScalar: 0.0533e-6,
			L1Bytes: 256 * kib, L1DataBytes: 256 * kib, L1MissFrom: 0.5, L1MissTo: 1.5, L2LineShare: 0.52,
		},
		{
			Key: "h200", Name: "NVIDIA H200", CCMajor: 9, CCMinor: 0,
			SMs: 132, MaxThreadsPerSM: 2048, MaxWarpsPerSM: 64, MaxThreadsPerBlock: 1024, MaxBlocksPerSM: 32,
			SharedPerBlock: 227 * kib, SharedPerSM: 228 * kib,
			L2Bytes: 50 * mib, MemoryBytes: 141 * gib,
			DRAMBandwidth: 4.8e12, L2Bandwidth: 10e12,
			FP32Flops: 67e12, TF32Flops: 494.7e12, ClockHz: 1.98e9, IssuePerSMCycle: 4,
			LaunchOverhead: 2e-6, PCIeBandwidth: 50e9, PCIeLatency: 8e-6,
			L1Latency: 20e-9, L2Latency: 150e-9, DRAMLatency: 450e-9, WarpCPI: 4,
			DRAMAchievable: 3.59e12, TimedLaunch: 5.385e-6, TimedLaunchPerBuffer: 0.217e-6, TimedLaunchPerScalar: 0.0533e-6,
			L1Bytes: 256 * kib, L1DataBytes: 256 * kib, L1MissFrom: 0.5, L1MissTo: 1.5, L2LineShare: 0.52,
		},
	}
	// A recorded microbenchmark run, where one is embedded, replaces the
	// constants above that it measures (timemodel_calib.go).
	for i := range ms {
		ms[i] = calibrate(ms[i])
	}
	return ms
}

// ModelByKey finds a model by its short key ("t4", "a100", "h100", "h200"),
// case-insensitively, and lists the known keys when it fails.
func ModelByKey(key string) (Model, error) {
	var keys []string
	for _, m := range Models() {
		if strings.EqualFold(m.Key, key) {
			return m, nil
		}
		keys = append(keys, m.Key)
	}
	return Model{}, fmt.Errorf("sim: unknown device model %q (known: %s)", key, strings.Join(keys, ", "))
}

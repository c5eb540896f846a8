package sim

import (
	"fmt"
	"strings"

	"github.com/warplab/warplab/sim/timing"
)

// Model describes one GPU to the simulator: the GPU's limits, sizes and
// peak rates (timing.GPU, the vendors' published specifications; FP32 and
// TF32 peaks for the A100 PCIe and H100 SXM are the ones lecture 4 uses)
// and the time model's constants (timing.Constants: latencies, achievable
// bandwidths, fixed costs). The constants are set once per model, never
// per kernel: TimeConstants lists each with its value and where it comes
// from (a recorded H200 measurement, or a published figure, which the
// T4's all are), and docs/timemodel.md explains them. Both are embedded, so
// their fields read as Model's own (m.SMs, m.L2Latency).
type Model struct {
	timing.GPU
	timing.Constants
}

const (
	kib = 1 << 10
	mib = 1 << 20
	gib = 1 << 30
)

// measuredHostFloor is the host's launch floor, measured with the H200
// (timecheck.launchRuns: the medians over every lease's warplab bench
// launch records; its sources in timemodel_calib.go). It is a property of
// the host and gpuext, not of the GPU, so every model takes it, once,
// from here.
func measuredHostFloor() timing.HostFloor {
	return timing.HostFloor{TimedLaunch: 5.415e-6, TimedLaunchPerBuffer: 0.259333e-6, TimedLaunchPerScalar: 0.0825e-6}
}

// Models returns the GPUs the simulator knows, slowest first. It returns a
// fresh slice each call, so callers may modify what they get.
func Models() []Model {
	ms := []Model{
		{
			GPU: timing.GPU{
				Key: "t4", Name: "Tesla T4", CCMajor: 7, CCMinor: 5, SMs: 40, MaxThreadsPerSM: 1024, MaxWarpsPerSM: 32,
				MaxThreadsPerBlock: 1024, MaxBlocksPerSM: 16, SharedPerBlock: 64 * kib, SharedPerSM: 64 * kib,
				L2Bytes: 4 * mib, MemoryBytes: 16 * gib, DRAMBandwidth: 320e9, FP32Flops: 8.1e12, TF32Flops: 0,
				ClockHz: 1.59e9, L1Bytes: 96 * kib, L1DataBytes: 64 * kib, RegistersPerSM: 64 * kib, RegAllocUnit: 256,
			},
			Constants: timing.Constants{
				L2Bandwidth: 1.3e12, IssuePerSMCycle: 4, LaunchOverhead: 3e-6, PCIeBandwidth: 12e9, PCIeLatency: 10e-6,
				L1Latency: 32 / 1.59e9, L2Latency: 188 / 1.59e9, DRAMLatency: 500e-9, WarpCPI: 4, DRAMAchievable: 0.8 * 320e9,
				HostFloor: measuredHostFloor(), L1MissFrom: 0.5,
				L1MissTo: 1.5, L2LineShare: 0.52,
				SharedWavesPerCycle: 1, SharedWaveCycles: 2, BarrierCycles: 11.7, BarrierCyclesPerWarp: 1.0,
			},
		},
		{
			GPU: timing.GPU{
				Key: "a100", Name: "NVIDIA A100 80GB PCIe", CCMajor: 8, CCMinor: 0, SMs: 108, MaxThreadsPerSM: 2048,
				MaxWarpsPerSM: 64, MaxThreadsPerBlock: 1024, MaxBlocksPerSM: 32, SharedPerBlock: 163 * kib,
				SharedPerSM: 164 * kib, L2Bytes: 40 * mib, MemoryBytes: 80 * gib, DRAMBandwidth: 1935e9, FP32Flops: 19.5e12,
				TF32Flops: 156e12, ClockHz: 1.41e9, L1Bytes: 192 * kib, L1DataBytes: 192 * kib, RegistersPerSM: 64 * kib,
				RegAllocUnit: 256,
			},
			Constants: timing.Constants{
				L2Bandwidth: 5.5e12, IssuePerSMCycle: 4, LaunchOverhead: 2.5e-6, PCIeBandwidth: 24e9, PCIeLatency: 8e-6,
				L1Latency: 40e-9, L2Latency: 300e-9, DRAMLatency: 700e-9, WarpCPI: 4, DRAMAchievable: 0.85 * 1935e9,
				HostFloor: measuredHostFloor(), L1MissFrom: 0.5,
				L1MissTo: 1.5, L2LineShare: 0.52,
				SharedWavesPerCycle: 1, SharedWaveCycles: 2, BarrierCycles: 11.7, BarrierCyclesPerWarp: 1.0,
			},
		},
		{
			GPU: timing.GPU{
				Key: "h100", Name: "NVIDIA H100 SXM", CCMajor: 9, CCMinor: 0, SMs: 132, MaxThreadsPerSM: 2048,
				MaxWarpsPerSM: 64, MaxThreadsPerBlock: 1024, MaxBlocksPerSM: 32, SharedPerBlock: 227 * kib,
				SharedPerSM: 228 * kib, L2Bytes: 50 * mib, MemoryBytes: 80 * gib, DRAMBandwidth: 3.35e12, FP32Flops: 67e12,
				TF32Flops: 494.7e12, ClockHz: 1.98e9, L1Bytes: 256 * kib, L1DataBytes: 256 * kib, RegistersPerSM: 64 * kib, RegAllocUnit: 256,
			},
			Constants: timing.Constants{
				L2Bandwidth: 10e12, IssuePerSMCycle: 4, LaunchOverhead: 2e-6, PCIeBandwidth: 50e9, PCIeLatency: 8e-6,
				L1Latency: 20e-9, L2Latency: 150e-9, DRAMLatency: 450e-9, WarpCPI: 4, DRAMAchievable: 0.75 * 3.35e12,
				HostFloor: measuredHostFloor(), L1MissFrom: 0.5,
				L1MissTo: 1.5, L2LineShare: 0.52,
				SharedWavesPerCycle: 1, SharedWaveCycles: 2, BarrierCycles: 11.7, BarrierCyclesPerWarp: 1.0,
				// Hopper's SM, measured (docs/timemodel.md, twenty-eighth
				// and thirty-third passes): linewait.cu on an H100,
				// warpslots.cu and phase.cu on an H200. Not measured on
				// the T4 or the A100, so off there.
				L1InFlight: true, WarpSlotRelease: true, InStepBandwidth: true,
			},
		},
		{
			GPU: timing.GPU{
				Key: "h200", Name: "NVIDIA H200", CCMajor: 9, CCMinor: 0, SMs: 132, MaxThreadsPerSM: 2048, MaxWarpsPerSM: 64,
				MaxThreadsPerBlock: 1024, MaxBlocksPerSM: 32, SharedPerBlock: 227 * kib, SharedPerSM: 228 * kib,
				L2Bytes: 60 * mib, MemoryBytes: 141 * gib, DRAMBandwidth: 4.8e12, FP32Flops: 67e12, TF32Flops: 494.7e12,
				ClockHz: 1.98e9, L1Bytes: 256 * kib, L1DataBytes: 256 * kib, RegistersPerSM: 64 * kib, RegAllocUnit: 256,
			},
			Constants: timing.Constants{
				L2Bandwidth: 10e12, IssuePerSMCycle: 4, LaunchOverhead: 2e-6, PCIeBandwidth: 50e9, PCIeLatency: 8e-6,
				L1Latency: 20e-9, L2Latency: 150e-9, DRAMLatency: 450e-9, WarpCPI: 4, DRAMAchievable: 3.59e12,
				HostFloor: measuredHostFloor(), L1MissFrom: 0.5,
				L1MissTo: 1.5, L2LineShare: 0.52,
				SharedWavesPerCycle: 1, SharedWaveCycles: 2, BarrierCycles: 11.7, BarrierCyclesPerWarp: 1.0,
				// Hopper's SM, measured (docs/timemodel.md, twenty-eighth
				// and thirty-third passes): linewait.cu on an H100,
				// warpslots.cu and phase.cu on an H200. Not measured on
				// the T4 or the A100, so off there.
				L1InFlight: true, WarpSlotRelease: true, InStepBandwidth: true,
			},
		},
	}
	// A recorded microbenchmark run, where one is embedded, replaces the
	// constants above that it measures (timemodel_calib.go).
	for i := range ms {
		ms[i] = calibrate(ms[i])
	}
	return ms
}

// ModelNamed finds the known model whose key is a word of a GPU's name,
// case-insensitively ("NVIDIA H200" -> h200, "NVIDIA H100 80GB HBM3" ->
// h100, "Tesla T4" -> t4): the model a recorded run on that GPU is judged
// against, and the one gpuext builds a real GPU's model from.
func ModelNamed(name string) (Model, bool) {
	lower := strings.ToLower(name)
	isWordChar := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
	for _, m := range Models() {
		key := strings.ToLower(m.Key)
		for i := 0; ; {
			j := strings.Index(lower[i:], key)
			if j < 0 {
				break
			}
			start, end := i+j, i+j+len(key)
			if (start == 0 || !isWordChar(lower[start-1])) && (end == len(lower) || !isWordChar(lower[end])) {
				return m, true
			}
			i = start + 1
		}
	}
	return Model{}, false
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

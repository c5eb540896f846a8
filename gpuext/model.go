package gpuext

import "github.com/warplab/warplab/sim"

// gpuAttrs are the device attributes a simulator model is built from.
type gpuAttrs struct {
	Name                  string
	CCMajor, CCMinor      int
	SMs                   int
	MaxThreadsPerSM       int
	MaxThreadsPerBlock    int
	MaxBlocksPerSM        int
	SharedPerBlockOptin   int
	SharedPerSM           int
	L2Bytes               int64
	MemoryBytes           int64
	ClockKHz, MemClockKHz int
	BusWidthBits          int
}

// modelFor is the simulator model of a real GPU: the known model whose key
// appears as a word in the GPU's name ("NVIDIA H200" -> h200, "Tesla T4" ->
// t4) with the GPU's own counts (SMs, memory, caches, limits) written over
// it; or, for a GPU the simulator does not know, a model built from its
// attributes, its rates estimated from clocks and bus width.
func modelFor(a gpuAttrs) sim.Model {
	m, ok := sim.ModelNamed(a.Name)
	if !ok {
		m = sim.Model{}
		m.Key, m.IssuePerSMCycle, m.LaunchOverhead, m.PCIeBandwidth, m.PCIeLatency = "gpu", 4, 3e-6, 25e9, 10e-6
		m.ClockHz = float64(a.ClockKHz) * 1e3
		m.DRAMBandwidth = 2 * float64(a.MemClockKHz) * 1e3 * float64(a.BusWidthBits) / 8
		m.L2Bandwidth = 3 * m.DRAMBandwidth
		fp32PerSM := 128.0 // FP32 lanes per SM; 64 on Volta, Turing and GA100
		if a.CCMajor == 7 || (a.CCMajor == 8 && a.CCMinor == 0) {
			fp32PerSM = 64
		}
		m.FP32Flops = 2 * fp32PerSM * float64(a.SMs) * m.ClockHz
	}
	m.Name = a.Name
	set := func(dst *int, v int) {
		if v > 0 {
			*dst = v
		}
	}
	set(&m.CCMajor, a.CCMajor)
	m.CCMinor = a.CCMinor
	set(&m.SMs, a.SMs)
	set(&m.MaxThreadsPerSM, a.MaxThreadsPerSM)
	if a.MaxThreadsPerSM > 0 {
		m.MaxWarpsPerSM = a.MaxThreadsPerSM / 32
	}
	set(&m.MaxThreadsPerBlock, a.MaxThreadsPerBlock)
	set(&m.MaxBlocksPerSM, a.MaxBlocksPerSM)
	set(&m.SharedPerBlock, a.SharedPerBlockOptin)
	set(&m.SharedPerSM, a.SharedPerSM)
	if a.L2Bytes > 0 {
		m.L2Bytes = a.L2Bytes
	}
	if a.MemoryBytes > 0 {
		m.MemoryBytes = a.MemoryBytes
	}
	return m
}

package timing

// GPU is what a GPU's datasheet says: the limits a launch must respect,
// its sizes and clocks, and its peak rates. The time model divides by the
// peaks only where nothing measured replaces them; the model's own numbers
// (latencies, achievable rates, fixed costs) are Constants.
type GPU struct {
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
	FP32Flops          float64 // flop/s, peak
	TF32Flops          float64 // flop/s, dense tensor-core peak (0: none)
	ClockHz            float64 // boost clock (a recorded microbenchmark's clock, where one is embedded)
	// L1Bytes is an SM's unified L1 data cache and shared memory; what
	// the resident blocks' shared memory leaves, up to L1DataBytes (the
	// largest data carve-out), is the L1's data capacity.
	L1Bytes, L1DataBytes int
}

// Constants are the time model's own numbers for one GPU: latencies,
// achievable rates and fixed costs, each from a microbenchmark recorded on
// the GPU or, where none is, a published figure (sim.TimeConstants lists
// each with its source). They are set once per GPU, never per kernel.
type Constants struct {
	L2Bandwidth     float64 // bytes/s the L2 serves (l2_read)
	IssuePerSMCycle float64 // warp instructions issued per SM per cycle (4 schedulers)
	LaunchOverhead  float64 // seconds: the GPU's own fixed cost of a kernel, added to every launch
	L1Latency       float64 // seconds: a dependent load that hits L1
	L2Latency       float64 // seconds: a dependent load that misses L1 and hits L2
	DRAMLatency     float64 // seconds: a dependent load that misses L2
	WarpCPI         float64 // cycles per instruction of a warp issuing alone (dependent arithmetic)
	DRAMAchievable  float64 // bytes/s a streaming kernel reaches (below GPU.DRAMBandwidth, the peak)
	TimedLaunch     float64 // seconds: least time per launch between CUDA events when launches come back to back from Go (the host's launch rate), for a kernel without arguments
	// TimedLaunchPerBuffer and TimedLaunchPerScalar are what each buffer
	// and each scalar argument adds to TimedLaunch: gpuext checks every
	// buffer before it launches, and the driver copies every argument.
	TimedLaunchPerBuffer, TimedLaunchPerScalar float64 // seconds
	PCIeBandwidth                              float64 // bytes/s host<->device, achievable
	PCIeLatency                                float64 // seconds per copy call
	// L1MissFrom and L1MissTo are the L1's capacity curve: a load that
	// re-touches a sector misses with probability (ρ − L1MissFrom) /
	// (L1MissTo − L1MissFrom), clamped to [0, 1], where ρ is the SM's
	// resident warps × the 128-byte lines its warp touched since the last
	// touch ÷ the L1's capacity in lines (L1Capacity; sim's worker.l1Lost
	// draws it).
	L1MissFrom, L1MissTo float64
	// L2LineShare is how many line transactions a second the L2 serves,
	// as a share of its sector rate (L2Bandwidth / 32 bytes): a request
	// that uses one sector of each line it touches (a thread-per-row
	// loop's lanes, each in its own line) is held to that many lines a
	// second however few bytes it moves. 0 leaves the L2 counted in bytes
	// alone.
	L2LineShare float64
}

// LaunchFloor is the least time per call the lessons can time for a launch
// with the given arguments: the host's launch interval, TimedLaunch plus
// the cost of each argument (warplab bench launch measures all three).
func (c *Constants) LaunchFloor(buffers, scalars int) float64 {
	return c.TimedLaunch + float64(buffers)*c.TimedLaunchPerBuffer + float64(scalars)*c.TimedLaunchPerScalar
}

// BlocksPerSM is the occupancy: how many blocks of the given shape an SM
// holds at once, limited by the GPU's block, warp, thread and
// shared-memory limits (registers are not modeled).
func (g *GPU) BlocksPerSM(warps, threads, shBytes int) int {
	per := g.MaxBlocksPerSM
	per = min(per, g.MaxWarpsPerSM/max(1, warps), g.MaxThreadsPerSM/max(1, threads))
	if shBytes > 0 {
		per = min(per, g.SharedPerSM/shBytes)
	}
	return max(1, per)
}

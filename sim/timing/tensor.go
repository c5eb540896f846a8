package timing

// The tensor term: a launch's tensor-core multiply-adds at the rate an SM
// sustains them. The rates come from evidence/ptx-corpus-h200-2026-12-04's
// mma-bench.csv (scripts/evidence/ptx-mma-bench.cu): one block an SM, each
// warp running eight independent mma.sync chains, timed by clock64, so a
// rate in multiply-adds per SM cycle with no clock assumed. With 8 and 16
// warps a block the H200 sustains 1207.6 multiply-adds a cycle for f16 and
// for bf16 inputs (m16n8k16), and 603.8 for tf32 (m16n8k8): half. The rate
// is taken per multiply-add and so per format, not per shape: f16
// m16n8k8 reaches 922 a cycle, 24% under the k16 rate, which the term
// does not see (wmma, which the SASS turns into m16n8k16 HMMAs, and the
// corpus's k16 forms are what it is for). The latency of a dependent chain
// (24.8 cycles an m16n8k16 mma) belongs to the latency term and is not in
// it. A GPU without a measured rate has no tensor term (0): a rate is
// never assumed from a datasheet.

// TensorWork is a launch's tensor-core multiply-adds by input format
// (sim.Stats.Tensor): f16 and bf16 A and B, and tf32.
type TensorWork struct {
	HalfMACs, TF32MACs int64
}

// TensorRate is an SM's sustained tensor-core multiply-adds per cycle by
// input format.
type TensorRate struct {
	Half, TF32 float64
}

// tensorRates are the measured rates, by GPU key.
var tensorRates = map[string]TensorRate{
	"h200": {Half: 1207.6, TF32: 603.8},
}

// TensorRateOf is g's measured tensor-core rate, and false when none was
// measured.
func TensorRateOf(g *GPU) (TensorRate, bool) {
	r, ok := tensorRates[g.Key]
	return r, ok
}

// tensorTime is the tensor term in seconds: the launch's multiply-adds
// spread over the SMs that have work (active), at g's rate and clock; 0
// when g has no measured rate or the launch no tensor work.
func tensorTime(g *GPU, w TensorWork, active float64) float64 {
	r, ok := TensorRateOf(g)
	if !ok || active <= 0 || g.ClockHz <= 0 || w.HalfMACs+w.TF32MACs == 0 {
		return 0
	}
	cycles := float64(w.HalfMACs)/r.Half + float64(w.TF32MACs)/r.TF32
	return cycles / (active * g.ClockHz)
}

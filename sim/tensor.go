package sim

import "github.com/warplab/warplab/sim/ptx"

// TensorOps counts a launch's tensor-core work on the PTX path: its
// warp-level matrix multiply-accumulate instructions (wmma.mma and
// mma.sync, each one warp instruction, also counted under InstrMix's
// "float") and the multiply-adds they did, by the inputs' format, since a
// tensor core's rate depends on it (on the H200, tf32 at half the rate of
// f16 and bf16). Nsight Compute's smsp__inst_executed_pipe_tensor counts
// the SASS instructions these become (a wmma.mma m16n16k16 is two
// HMMA.16816), so the simulator's count is PTX instructions and the MACs
// are what compares across shapes.
type TensorOps struct {
	Instructions int64 `json:"instructions"`
	// HalfMACs are the multiply-adds with .f16 or .bf16 A and B; TF32MACs
	// those with .tf32 A and B.
	HalfMACs int64 `json:"half_macs"`
	TF32MACs int64 `json:"tf32_macs"`
}

// add counts one warp's matrix multiply-accumulate w.
func (t *TensorOps) add(w *ptx.Wmma) {
	t.Instructions++
	macs := int64(w.M * w.N * w.K)
	if w.AB == ptx.MatTF32 {
		t.TF32MACs += macs
	} else {
		t.HalfMACs += macs
	}
}

// merge adds o's counts to t.
func (t *TensorOps) merge(o TensorOps) {
	t.Instructions += o.Instructions
	t.HalfMACs += o.HalfMACs
	t.TF32MACs += o.TF32MACs
}

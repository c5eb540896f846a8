package cg

import (
	_ "embed"
	"fmt"

	"github.com/warplab/warplab/gpuext"
)

// cgCU is the CUDA C students read; cgPTX is what scripts/cuda/gen-ptx.sh
// generated from it (nvcc 11.8, -arch=compute_75, -lineinfo; its first line
// records cg.cu's sha256, which TestModule checks).
var (
	//go:embed cg.cu
	cgCU string
	//go:embed cg.ptx
	cgPTX string
)

// Kernel names in cg.cu, as Launch takes them.
const (
	kSpMVThreadPerRow        = "spmvCsrThreadPerRow"
	kSpMVThreadPerRowUnroll1 = "spmvCsrThreadPerRowUnroll1"
	kSpMVSubwarp             = "spmvCsrSubwarp"
	kSpMVStencil27           = "spmvStencil27"
	kWaxpby                  = "waxpby"
	kWaxpbyDeviceScalar      = "waxpbyDeviceScalar"
	kDdotPartial             = "ddotPartial"
	kDdotFinal               = "ddotFinal"
	kCgDivide                = "cgDivide"
	kCopyScalar              = "copyScalar"
	kDdotFinalDivide         = "ddotFinalDivide"
	kUpdateXRDot             = "updateXRDot"
	kUpdateXRDotTo           = "updateXRDotTo"
	kCopyVector              = "copyVector"
	kCgBetaUpdateP           = "cgBetaUpdateP"
	kCgAlphaUpdateXR         = "cgAlphaUpdateXR"
	kSpMVStencil27Dot        = "spmvStencil27Dot"
)

// csrVectorKernel is the name of stage 9's CSR SpMV for w lanes a row
// (spmvCsrVector1 … spmvCsrVector32 in cg.cu, one per power of two).
func csrVectorKernel(w int) string { return fmt.Sprintf("spmvCsrVector%d", w) }

// Module returns the lesson's kernels: the CUDA C of cg.cu and its PTX. A GPU
// runs the CUDA C (compiled by a local nvcc) or the PTX (JIT-compiled by the
// driver); the simulator executes the PTX (sim.LaunchPTX), so both backends
// run one kernel source and the simulator counts the instructions the
// compiler emitted. There are no Go mirrors: the module's PTX is the
// simulator's kernel, and its .loc lines name cg.cu's lines in site labels
// and faults.
//
// It builds a new value on each call (a Module holds no state; gpuext loads
// one per content), so callers may not share one by accident.
func Module() *gpuext.Module {
	return gpuext.NewModule("cg", cgCU, cgPTX)
}

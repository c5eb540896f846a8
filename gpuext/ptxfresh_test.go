package gpuext_test

import (
	"testing"

	"github.com/warplab/warplab/internal/ptxcheck"
)

// TestKernelsPTXFresh: the test module's PTX was made from its CUDA C as
// it is now (an external test: internal/ptxcheck imports gpuext).
func TestKernelsPTXFresh(t *testing.T) {
	if err := ptxcheck.Check("kernels.cu", []byte(kernelsCU), []byte(kernelsPTX)); err != nil {
		t.Fatal(err)
	}
}

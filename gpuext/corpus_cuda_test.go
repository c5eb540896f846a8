//go:build cuda

package gpuext

import "testing"

// TestGPUCorpusThroughGpuext runs the PTX corpus through gpuext's CUDA
// backend and holds every output to the bytes CuPy recorded on the H200
// (order-dependent outputs aside). On an H200 it shows the two GPU paths,
// CuPy's and ours, agree; on another GPU .approx outputs may differ.
func TestGPUCorpusThroughGpuext(t *testing.T) {
	d := openGPUT(t, Options{})
	checkCorpus(t, d, true)
}

//go:build !cuda

package gpuext

// gpuBuilt reports whether this build has the GPU backend.
const gpuBuilt = false

// cudaHeaderVersion is 0: no cuda.h was compiled against.
const cudaHeaderVersion = 0

// openGPU is unreachable without the GPU backend; Open returns
// ErrNoGPUBackend before calling it.
func openGPU(int, Options) (*Device, error) { return nil, ErrNoGPUBackend }

//go:build !cuda

package gpuext

// gpuBuilt reports whether this build has the GPU backend.
const gpuBuilt = false

// openGPU is unreachable without the GPU backend; Open returns
// ErrNoGPUBackend before calling it.
func openGPU(int, Options) (*Device, error) { return nil, ErrNoGPUBackend }

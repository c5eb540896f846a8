package cu

// warplab addition (see PATCHES.md, "Graphs that run"): v0.9.6 builds a
// graph but cannot run it — it has no cuGraphInstantiate or cuGraphLaunch,
// and its AddKernelNode never passes the kernel's arguments
// (KernelNodeParams.c leaves kernelParams NULL). This file adds what a
// graph of kernels, device-to-device copies and 32-bit fills needs.

/*
#include <stdlib.h>
#include <string.h>
#include "cuda_compat.h"

// The node parameter structs are zeroed first, so the fields a newer
// cuda.h adds (CUDA 12's CUDA_KERNEL_NODE_PARAMS_v2: kern, ctx) are NULL,
// which means "use func", as the older struct did.
static CUresult warplab_addKernelNode(CUgraphNode *node, CUgraph g, const CUgraphNode *deps, size_t ndeps,
		CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
		unsigned shared, void **params) {
	CUDA_KERNEL_NODE_PARAMS p;
	memset(&p, 0, sizeof p);
	p.func = f;
	p.gridDimX = gx; p.gridDimY = gy; p.gridDimZ = gz;
	p.blockDimX = bx; p.blockDimY = by; p.blockDimZ = bz;
	p.sharedMemBytes = shared;
	p.kernelParams = params;
	return cuGraphAddKernelNode(node, g, deps, ndeps, &p);
}

static CUresult warplab_addMemcpyDtoDNode(CUgraphNode *node, CUgraph g, const CUgraphNode *deps, size_t ndeps,
		CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUcontext ctx) {
	CUDA_MEMCPY3D p;
	memset(&p, 0, sizeof p);
	p.srcMemoryType = CU_MEMORYTYPE_DEVICE;
	p.srcDevice = src;
	p.dstMemoryType = CU_MEMORYTYPE_DEVICE;
	p.dstDevice = dst;
	// One row of bytes, the pitches and heights set as the runtime's
	// cudaGraphAddMemcpyNode1D sets them (make_cudaPitchedPtr(ptr, count,
	// count, 1)).
	p.srcPitch = bytes;
	p.srcHeight = 1;
	p.dstPitch = bytes;
	p.dstHeight = 1;
	p.WidthInBytes = bytes;
	p.Height = 1;
	p.Depth = 1;
	return cuGraphAddMemcpyNode(node, g, deps, ndeps, &p, ctx);
}

static CUresult warplab_addMemsetD32Node(CUgraphNode *node, CUgraph g, const CUgraphNode *deps, size_t ndeps,
		CUdeviceptr dst, unsigned int value, size_t n, CUcontext ctx) {
	CUDA_MEMSET_NODE_PARAMS p;
	memset(&p, 0, sizeof p);
	p.dst = dst;
	p.value = value;
	p.elementSize = 4;
	p.width = n;
	p.height = 1;
	return cuGraphAddMemsetNode(node, g, deps, ndeps, &p, ctx);
}
*/
import "C"
import "unsafe"

// AddKernelNodeWithArgs adds a node that launches fn with the given grid,
// block, dynamic shared memory and arguments, after the nodes deps. As in
// Function.Launch, 8 bytes are read from each kernelParams pointer (the
// driver takes each parameter's own size from the start of its slot), and
// the values are copied: the driver keeps its own copy from this call on,
// so later changes to them do not reach the node.
func (g Graph) AddKernelNodeWithArgs(deps []Node, fn Function, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes int, kernelParams []unsafe.Pointer) (Node, error) {
	n := len(kernelParams) // go.mod says go 1.13: no built-in max
	if n == 0 {
		n = 1
	}
	argv := C.malloc(C.size_t(n * pointerSize))
	argp := C.malloc(C.size_t(n * pointerSize))
	defer C.free(argv)
	defer C.free(argp)
	for i := range kernelParams {
		*((*unsafe.Pointer)(offset(argp, i))) = offset(argv, i)       // argp[i] = &argv[i]
		*((*uint64)(offset(argv, i))) = *((*uint64)(kernelParams[i])) // argv[i] = *kernelParams[i]
	}
	ptr, numDependencies := unsplatNodes(deps)
	var node Node
	err := result(C.warplab_addKernelNode(&node.n, g.c(), ptr, numDependencies, fn.fn,
		C.uint(gridDimX), C.uint(gridDimY), C.uint(gridDimZ), C.uint(blockDimX), C.uint(blockDimY), C.uint(blockDimZ),
		C.uint(sharedMemBytes), (*unsafe.Pointer)(argp)))
	return node, err
}

// AddMemcpyDtoDNode adds a node that copies bytes from device memory src
// to device memory dst (cuMemcpyDtoD's copy) after the nodes deps; ctx is
// the context the memory belongs to.
func (g Graph) AddMemcpyDtoDNode(deps []Node, dst, src DevicePtr, bytes int64, ctx CUContext) (Node, error) {
	ptr, numDependencies := unsplatNodes(deps)
	var node Node
	err := result(C.warplab_addMemcpyDtoDNode(&node.n, g.c(), ptr, numDependencies,
		C.CUdeviceptr(dst), C.CUdeviceptr(src), C.size_t(bytes), ctx.c()))
	return node, err
}

// AddMemsetD32Node adds a node that sets n 32-bit words at dst to value
// (cuMemsetD32's fill) after the nodes deps; ctx is the context the
// memory belongs to.
func (g Graph) AddMemsetD32Node(deps []Node, dst DevicePtr, value uint32, n int64, ctx CUContext) (Node, error) {
	ptr, numDependencies := unsplatNodes(deps)
	var node Node
	err := result(C.warplab_addMemsetD32Node(&node.n, g.c(), ptr, numDependencies,
		C.CUdeviceptr(dst), C.uint(value), C.size_t(n), ctx.c()))
	return node, err
}

// Instantiate makes an executable graph of g (cuGraphInstantiate, without
// flags). g may be changed or destroyed afterwards; the executable graph
// keeps what it was instantiated from. Free it with ExecGraph.Destroy.
func (g Graph) Instantiate() (ExecGraph, error) {
	var e ExecGraph
	err := result(C.compat_cuGraphInstantiate(&e.g, g.c()))
	return e, err
}

// Launch queues one run of the executable graph on stream s (NoStream: the
// context's default stream), ordered after the work queued there before it
// and before the work after it, and returns without waiting.
func (g ExecGraph) Launch(s Stream) error {
	return result(C.cuGraphLaunch(g.g, s.c()))
}

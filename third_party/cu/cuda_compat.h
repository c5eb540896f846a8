// cuda_compat.h — the driver API calls whose C signature changed after the
// CUDA release this package was written against, each wrapped in a function
// with the old signature, so that one Go source compiles against the cuda.h
// of CUDA 11.x, 12.x and 13.x. Each wrapper switches on CUDA_VERSION (from
// cuda.h) at the release where cuda.h changed what the plain name means;
// older headers get the original call, unchanged. See PATCHES.md.
//
// To adapt another call: add a wrapper here, include this header instead of
// <cuda.h> in the Go file that calls it, and call the wrapper.
#ifndef GORGONIA_CU_CUDA_COMPAT_H
#define GORGONIA_CU_CUDA_COMPAT_H

#include <stddef.h>
#include <cuda.h>

#if CUDA_VERSION >= 13000
// compat_location turns a CUdevice as the old calls took it (an ordinal, or
// CU_DEVICE_CPU for host memory) into the CUmemLocation CUDA 13 wants.
static inline CUmemLocation compat_location(CUdevice dev) {
	CUmemLocation loc;
	loc.id = 0;
	if (dev == CU_DEVICE_CPU) {
		loc.type = CU_MEM_LOCATION_TYPE_HOST;
	} else if (dev < 0) {
		loc.type = CU_MEM_LOCATION_TYPE_INVALID; // CU_DEVICE_INVALID: advice that ignores the device
	} else {
		loc.type = CU_MEM_LOCATION_TYPE_DEVICE;
		loc.id = dev;
	}
	return loc;
}
#endif

// CUDA 13.0: cuCtxCreate is cuCtxCreate_v4, which takes a
// CUctxCreateParams* (execution affinity, CIG); NULL asks for neither, which
// is what the three-argument form did.
static inline CUresult compat_cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev) {
#if CUDA_VERSION >= 13000
	return cuCtxCreate_v4(pctx, NULL, flags, dev);
#else
	return cuCtxCreate(pctx, flags, dev);
#endif
}

// CUDA 13.0: cuMemAdvise is cuMemAdvise_v2 (added in 12.2), which names the
// processor by a CUmemLocation instead of a CUdevice.
static inline CUresult compat_cuMemAdvise(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUdevice dev) {
#if CUDA_VERSION >= 13000
	return cuMemAdvise_v2(devPtr, count, advice, compat_location(dev));
#else
	return cuMemAdvise(devPtr, count, advice, dev);
#endif
}

// CUDA 13.0: cuMemPrefetchAsync is cuMemPrefetchAsync_v2 (added in 12.2):
// a CUmemLocation and a flags word (must be 0) instead of a CUdevice. The
// plain name is kept so that cuda.h still picks the per-thread-stream
// (_ptsz) entry point when CUDA_API_PER_THREAD_DEFAULT_STREAM is defined.
static inline CUresult compat_cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count, CUdevice dstDevice, CUstream hStream) {
#if CUDA_VERSION >= 13000
	return cuMemPrefetchAsync(devPtr, count, compat_location(dstDevice), 0, hStream);
#else
	return cuMemPrefetchAsync(devPtr, count, dstDevice, hStream);
#endif
}

// CUDA 13.0: cuGraphAddDependencies is cuGraphAddDependencies_v2 (added in
// 12.3), which takes per-edge data; NULL means default edges, which is what
// the old call added.
static inline CUresult compat_cuGraphAddDependencies(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to, size_t numDependencies) {
#if CUDA_VERSION >= 13000
	return cuGraphAddDependencies_v2(hGraph, from, to, NULL, numDependencies);
#else
	return cuGraphAddDependencies(hGraph, from, to, numDependencies);
#endif
}

// CUDA 13.0: cuGraphGetEdges is cuGraphGetEdges_v2 (added in 12.3), which
// can also return per-edge data; with NULL it fails with
// CUDA_ERROR_LOSSY_QUERY when an edge has non-default data, which no graph
// built through this package has.
static inline CUresult compat_cuGraphGetEdges(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to, size_t *numEdges) {
#if CUDA_VERSION >= 13000
	return cuGraphGetEdges_v2(hGraph, from, to, NULL, numEdges);
#else
	return cuGraphGetEdges(hGraph, from, to, numEdges);
#endif
}

// cuGraphInstantiate is three functions: CUDA 11.x's cuda.h maps the plain
// name to cuGraphInstantiate_v2 (an error node and a log buffer; 11.x's
// graphs cannot fail to instantiate for a reason these would add to the
// CUresult, so NULL and 0), CUDA 12.0 and later map it to
// cuGraphInstantiateWithFlags (flags; 0 is the default behaviour). Both
// make the same executable graph.
static inline CUresult compat_cuGraphInstantiate(CUgraphExec *phGraphExec, CUgraph hGraph) {
#if CUDA_VERSION >= 12000
	return cuGraphInstantiate(phGraphExec, hGraph, 0);
#else
	return cuGraphInstantiate(phGraphExec, hGraph, NULL, NULL, 0);
#endif
}

#endif // GORGONIA_CU_CUDA_COMPAT_H

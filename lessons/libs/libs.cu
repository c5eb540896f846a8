// SPDX-License-Identifier: MIT
//
// warplab lesson "How libraries win": the kernels.
//
// Day 37 ran two textbook SpMV kernels, thread per row and warp per row, and
// lost to cuSPARSE by up to 3.6x. A library does not have one kernel; it has
// several and picks one from the matrix. This file holds the ones the lesson
// builds, over the same CSR (int32 row pointers and columns, float32 values):
//
//   spmvVector<W>        CSR-vector: a group of W lanes (W = 2, 4, 8, 16, 32)
//                        shares one row; W is chosen from the row lengths
//   spmvVector<W>V4      the same with 16-byte loads of val and colIdx
//                        (float4 / int4) for the aligned middle of each row
//   spmvBinRows<W>       the same over a list of rows (one length bin);
//                        W = 1 is thread per row for the short rows
//   spmvBinBlock         one 256-thread block per row, for the longest rows
//   spmvBinCount         the bins' preparation on the device, a stable
//   spmvBinScan          counting sort of the rows by bin: counts per
//   spmvBinScatter       block of rows, one scan of the counts, a scatter
//   spmvMergePath        merge-path SpMV (Merrill and Garland, SC'16): every
//   spmvMergeFixup       thread gets the same number of rows-plus-nonzeros,
//                        however the nonzeros are spread over the rows
//   spmvSplit<W>[V4]     one launch for any skew: CSR-vector of width W over
//                        the rows in order, except rows longer than 16
//                        passes of their group, which are cut into chunks of
//                        SPLIT_CHUNK nonzeros, a warp each, in extra blocks
//                        of the same launch; the last chunk of a row to
//                        finish adds the row's chunks (no second pass)
//   spmvSplitPrep        its preparation, on the device: the long rows and
//                        their chunks, one thread a row
//   spmvMergePartition   merge path's preparation on the device: one
//                        search a tile
//   spmvTile[V4]         nonzero tiles (CUB's DeviceSpmv, CSR5): each warp
//                        takes TILE_NZ consecutive nonzeros, whatever rows
//                        they belong to, loaded 32 (V4: 128) consecutive a
//                        warp load; rows summed from shared memory, a row
//                        crossing tiles added by its last piece (no second
//                        pass)
//   spmvTilePrep         its preparation on the device: each tile's first
//                        row, one search a tile
//   copyFloat4           a plain copy: the bandwidth reference
//
// Read-only loads: every input pointer is const __restrict__, which lets
// nvcc use the non-coherent read-only path (ld.global.nc, what __ldg
// spells) for them; y is written once per row.
//
// Every kernel is extern "C" so the driver API finds it by this exact name.
// The templates below are shared by the kernels; a template itself cannot
// have C linkage, so each width is a small extern "C" wrapper.
//
// PTX: scripts/cuda/gen-ptx.sh (nvcc 11.8, -ptx -arch=compute_75 -O3
// -lineinfo) writes libs.ptx beside this file; its first line records this
// file's sha256. The simulator runs that PTX; a GPU loads it (or a cubin).

#include <cstddef>

#define LIBS_WARP 32
// Threads a block for every kernel here. spmvBinBlock's shared array and
// spmvMergePath's tile both assume it.
#define LIBS_BLOCK 256
// Merge-path items (row ends plus nonzeros) per thread, and per block.
#define MERGE_ITEMS 8
#define MERGE_TILE (LIBS_BLOCK * MERGE_ITEMS)
// Nonzeros of a long row one warp of spmvSplit takes: 16 passes of 32
// lanes, as many passes as the longest row a CSR-vector group keeps.
#define SPLIT_CHUNK 512
// A row is long for spmvSplit<W> when it is longer than SPLIT_PASSES
// passes of its group of W lanes.
#define SPLIT_PASSES 16
// Nonzeros one warp of spmvTile takes (at 512: 16 passes of 32 lanes, 4
// of 32 float4s; 16 consecutive ones a lane in its segmented sums). 512,
// not 256, since the H200 run of 2026-12-06 (16-20% faster on clustered
// columns, 4-5% slower on random ones: evidence/libs-ab-tilenz-h200-2026-12-06,
// evidence/libs-corpus-h200-2026-12-06). A compile definition
// (-DTILE_NZ=256) builds the tiles at another size for an A/B run; the
// lesson's TileNZ (module.go) must say the same.
#ifndef TILE_NZ
#define TILE_NZ 512
#endif
// A lane's run of consecutive products in the segmented sums (a multiple
// of 8: two float4s of products and 8 start flags at a time).
#define TILE_RUN (TILE_NZ / LIBS_WARP)
// Threads a block of spmvTile: two warps (two tiles), so that a warp
// still on its tile holds its block's slot and shared memory (5 KiB)
// alone, not seven finished warps' too. 64, not 256, since the H200 run
// of 2026-12-06, 20:30 UTC (with the full tile's loads unrolled: 11-13%
// less time on the power laws at 2^23, evidence/libs-ab-blocks-h200-2026-12-06).
// module.go's TileThreads must say the same.
#ifndef TILE_BLOCK
#define TILE_BLOCK 64
#endif
#define TILE_WARPS (TILE_BLOCK / LIBS_WARP)
// Blocks an SM must hold (__launch_bounds__): 24 of two warps, 48 warps,
// up to 40 registers a thread.
#ifndef TILE_MIN_BLOCKS
#define TILE_MIN_BLOCKS 24
#endif

// rowPartial is one lane's share of row [first, last): entries sub,
// sub + W, sub + 2W, ... of the row. With V4 the aligned middle of the row is
// read 4 entries at a time (one float4 of val and one int4 of colIdx a
// lane), so a group of W lanes covers 4W entries a pass; the few entries
// before the first 16-byte boundary (head) and after the last (tail) are
// read one at a time. val and colIdx come from cudaMalloc, 256-byte
// aligned, so index 4q is a 16-byte boundary.
template <int W, bool V4>
__device__ __forceinline__ float rowPartial(const int* __restrict__ colIdx,
                                            const float* __restrict__ val,
                                            const float* __restrict__ x,
                                            int first, int last, int sub) {
    float acc = 0.0f;
    if (!V4) {
        for (int j = first + sub; j < last; j += W) {
            acc += val[j] * x[colIdx[j]];
        }
        return acc;
    }
    int body = (first + 3) & ~3;
    if (body > last) {
        body = last;
    }
    int tail = last & ~3;
    if (tail < body) {
        tail = body;
    }
    for (int j = first + sub; j < body; j += W) {  // head: at most 3 entries
        acc += val[j] * x[colIdx[j]];
    }
    const float4* val4 = reinterpret_cast<const float4*>(val);
    const int4* col4 = reinterpret_cast<const int4*>(colIdx);
    for (int q = body / 4 + sub; q < tail / 4; q += W) {  // body: 4 a lane
        const float4 v = val4[q];
        const int4 c = col4[q];
        acc += v.x * x[c.x] + v.y * x[c.y] + v.z * x[c.z] + v.w * x[c.w];
    }
    for (int j = tail + sub; j < last; j += W) {  // tail: at most 3 entries
        acc += val[j] * x[colIdx[j]];
    }
    return acc;
}

// groupSum folds the partial sums of each aligned group of W lanes into the
// group's first lane: log2(W) shuffle-down steps with width W, so no value
// crosses into the next group. Every lane of the warp must reach it (the
// mask is the full warp), which is why the kernels below never return early.
template <int W>
__device__ __forceinline__ float groupSum(float acc) {
    for (int offset = W / 2; offset > 0; offset >>= 1) {
        acc += __shfl_down_sync(0xffffffffu, acc, offset, W);
    }
    return acc;
}

// CSR-vector: W consecutive lanes own one row, so a warp works on 32/W rows
// at once. Launch: 256 threads a block, ceil(nRows * W / 256) blocks.
//
// What W buys: with W = 32 (warp per row) a row of 16 fills half a pass and
// half the lane-slots are wasted; with W = 1 (thread per row) the lanes of
// a warp read 32 different rows and their loads do not coalesce. A W near
// the typical row length over 4 keeps most lanes busy and still reads
// each row's entries together.
//
// Lanes past the last row compute nothing (first = last = 0) but stay to the
// shuffles, which name all 32 lanes.
template <int W, bool V4>
__device__ __forceinline__ void csrVector(const int* __restrict__ rowPtr,
                                          const int* __restrict__ colIdx,
                                          const float* __restrict__ val,
                                          const float* __restrict__ x,
                                          float* __restrict__ y, size_t nRows) {
    const size_t gid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t row = gid / W;
    const int sub = (int)(threadIdx.x % W);
    int first = 0, last = 0;
    if (row < nRows) {
        first = rowPtr[row];
        last = rowPtr[row + 1];
    }
    float acc = rowPartial<W, V4>(colIdx, val, x, first, last, sub);
    acc = groupSum<W>(acc);
    if (row < nRows && sub == 0) {
        y[row] = acc;
    }
}

// The same over a list of rows, one length bin: group g of W lanes takes
// row rows[g]. W = 1 is thread per row. Launch: 256 threads a block,
// ceil(nList * W / 256) blocks.
template <int W>
__device__ __forceinline__ void csrListed(const int* __restrict__ rowPtr,
                                          const int* __restrict__ colIdx,
                                          const float* __restrict__ val,
                                          const float* __restrict__ x,
                                          float* __restrict__ y,
                                          const int* __restrict__ rows,
                                          int nList) {
    const int gid = blockIdx.x * blockDim.x + threadIdx.x;
    const int g = gid / W;
    const int sub = threadIdx.x % W;
    int row = -1, first = 0, last = 0;
    if (g < nList) {
        row = rows[g];
        first = rowPtr[row];
        last = rowPtr[row + 1];
    }
    float acc = rowPartial<W, false>(colIdx, val, x, first, last, sub);
    acc = groupSum<W>(acc);
    if (row >= 0 && sub == 0) {
        y[row] = acc;
    }
}


// Split SpMV: one launch whatever the skew.
//
// A CSR-vector group of W lanes streams a row of n nonzeros in n/W passes;
// a warp of such groups waits for its longest row. Binning fixes that with
// one launch per length class and a list of row indices per class (an
// indirection, and several launches); merge path with a search per thread
// and shared-memory staging. Split keeps CSR-vector's order and coalescing
// for every row up to SPLIT_PASSES passes of its group (longMin = 16 W
// nonzeros), and hands each longer row to warps of the same launch, one
// warp per SPLIT_CHUNK (512) nonzeros: no unit of work, a group's row or a
// warp's chunk, is longer than 16 passes, so no row is the critical path
// however long it is (a dense row of 46,500 becomes 91 warps).
//
// Blocks 0 .. vecBlocks-1 are the CSR-vector part (a long row's group
// writes nothing); blocks from vecBlocks on hold 8 warps each, warp c
// taking chunk c of the chunk list spmvSplitPrep made. A row of one chunk
// is stored by its warp. A row of several: each warp stores its chunk's sum
// in partial[c], makes it visible (__threadfence), and counts itself in
// longDone[k]; the warp that counts last adds the row's partials in chunk
// order (so y does not depend on which warp finished last), stores y, and
// sets the count back to 0 for the next SpMV. This is the "last block"
// pattern of the CUDA samples' threadFenceReduction: the carry is added in
// the same launch, with no second pass, no spinning and no order between
// blocks.
//
// Launch: 256 threads a block, vecBlocks + ceil(nChunks / 8) blocks.
template <int W, bool V4>
__device__ __forceinline__ void splitSpmv(const int* __restrict__ rowPtr,
                                          const int* __restrict__ colIdx,
                                          const float* __restrict__ val,
                                          const float* __restrict__ x,
                                          float* __restrict__ y, int nRows,
                                          int vecBlocks,
                                          const int* __restrict__ chunkLong,
                                          const int* __restrict__ longRow,
                                          const int* __restrict__ longFirst,
                                          const int* __restrict__ longChunks,
                                          float* partial, int* longDone,
                                          int nChunks) {
    const int longMin = SPLIT_PASSES * W;
    if ((int)blockIdx.x < vecBlocks) {
        const int gid = blockIdx.x * blockDim.x + threadIdx.x;
        const int row = gid / W;
        const int sub = threadIdx.x % W;
        int first = 0, last = 0;
        bool mine = false;
        if (row < nRows) {
            first = rowPtr[row];
            last = rowPtr[row + 1];
            mine = last - first <= longMin;
            if (!mine) {
                last = first;  // a chunk warp takes it
            }
        }
        float acc = rowPartial<W, V4>(colIdx, val, x, first, last, sub);
        acc = groupSum<W>(acc);
        if (mine && sub == 0) {
            y[row] = acc;
        }
        return;
    }
    // Whole warps leave together here, so the shuffles below see all 32.
    const int c = ((int)blockIdx.x - vecBlocks) * (LIBS_BLOCK / LIBS_WARP) + (int)threadIdx.x / LIBS_WARP;
    const int lane = threadIdx.x % LIBS_WARP;
    if (c >= nChunks) {
        return;
    }
    const int k = chunkLong[c];
    const int row = longRow[k];
    const int f = longFirst[k];
    const int nch = longChunks[k];
    const int rowLast = rowPtr[row + 1];
    const int first = rowPtr[row] + (c - f) * SPLIT_CHUNK;
    const int last = min(first + SPLIT_CHUNK, rowLast);
    float acc = rowPartial<LIBS_WARP, V4>(colIdx, val, x, first, last, lane);
    acc = groupSum<LIBS_WARP>(acc);
    if (nch == 1) {
        if (lane == 0) {
            y[row] = acc;
        }
        return;
    }
    int ticket = 0;
    if (lane == 0) {
        partial[c] = acc;
        __threadfence();
        ticket = atomicAdd(&longDone[k], 1);
    }
    ticket = __shfl_sync(0xffffffffu, ticket, 0);
    if (ticket != nch - 1) {
        return;
    }
    // The last warp of row k: every other chunk's partial is visible
    // (each was fenced before its count). Read past L1 (__ldcg), which
    // could hold nothing of them but is not coherent across SMs.
    __threadfence();
    float sum = 0.0f;
    for (int i = lane; i < nch; i += LIBS_WARP) {
        sum += __ldcg(&partial[f + i]);
    }
    sum = groupSum<LIBS_WARP>(sum);
    if (lane == 0) {
        y[row] = sum;
        longDone[k] = 0;
    }
}

// Nonzero tiles: the way CUB's DeviceSpmv (Merrill and Garland) and CSR5
// read a matrix. Every kernel above maps rows to lanes, so a warp load
// covers pieces of several rows (CSR-vector of width 2: 16 rows' pieces, a
// sector or two each) and a warp waits for its longest row. Here warp t
// takes nonzeros [t*TILE_NZ, (t+1)*TILE_NZ), whatever rows they belong to:
// each load instruction reads 32 consecutive values and column indices
// (128 with V4's float4/int4 loads), the x gathers of 32 (128) consecutive
// nonzeros, and every warp has the same work however skewed the rows.
//
// Step 1, staging: the warp stores the products val[j] * x[col[j]] of its
// tile in shared memory (its own TILE_NZ floats). val and colIdx are read
// once each, by coalesced loads, so they are loaded "streaming" (__ldcs,
// ld.global.cs: evict-first in L1 and L2), which leaves L2 to x, the one
// array read again: on the H200 the first version, with plain loads, read
// 1885 MB from DRAM on powerlaw20-2^23 where cuSPARSE read 1353 MB for the
// same L2 sectors (L2 hit rate 50% against 59%). The tile's first rows
// (tileRow, then rowPtr of its first 32 rows) are loaded before the
// staging, so their latency overlaps its loads.
// Step 2, row starts: the rows whose first nonzero lies in the tile
// (tileRow[t] .. tileRow[t+1]-1, from spmvTilePrep; empty rows included, so
// every row belongs to exactly one tile), 32 at a time, a lane each: a row
// with nonzeros marks its first nonzero's place in a byte array, startAt.
// Each lane reads rowPtr[r] once; the row's end is the next lane's value
// (a shuffle; the last lane reads one more).
// Step 3, segmented sums in registers (CSR5, CUB's thread-level reduce by
// key): lane l takes the tile's products kl .. kl+k-1, k = TILE_RUN (16
// at TILE_NZ 512; two float4s from shared memory and 8 start flags, one
// 8-byte load, for each 8), and adds them
// in order; at a row start it closes the segment before it: a row that
// began in the lane is complete and its sum goes back to shared memory, at
// the place of the row's first product (which no lane reads again); the
// first segment (the lane's head) is kept. The lane's running sum at the
// end is its carry-out, the open row's part. A segmented scan over the
// lanes by shuffles (5 steps, each lane adding its neighbour's sum only
// while no row starts between them) gives every lane the sum of the open
// row's parts in the lanes before it, so a lane whose head ends a row
// started in an earlier lane puts that row's sum at its first place. No
// lane loops over a row's length, and no lane waits for a longer row.
// Step 4, y: the lanes store y of the tile's rows, 32 consecutive rows a
// store instruction (coalesced), each from its first place (0 for an
// empty row); a row running on into the next tile is left to step 5. The
// first segmented version stored a row's sum from the lane where it
// ended: up to 9 store instructions a warp, each a few scattered rows
// (ncu on the H200: 2.18 M L1 store requests on powerlaw20-2^23 against
// cuSPARSE's 0.98 M).
// Step 5, pieces: the tile's head (the part of a row that began in an
// earlier tile: what the lanes before the first row start hold) and its
// tail (the last row started here, when it runs on into the next tile) go
// to tileFinish. A row that crosses tiles t_a..t_z has one piece in each.
// Each piece's warp publishes its sum with its flag in one 64-bit store
// (slot[2t+1] for the start piece, slot[2t] for a head piece) and counts
// itself in tileDone[t_a]; the warp that counts last reads the pieces
// (waiting, if it must, for a flag: a store and the count are not ordered
// without a fence), adds them in tile order (so y does not depend on which
// finished last), stores y, and clears the slots and the count for the next
// SpMV: split's last-warp pattern, no second pass, and no fence. The
// version with a __threadfence a piece made each fence an L2 request to
// every slice: ncu on the H200 counted 22.7 M membar requests in the L2
// for powerlaw20-2^23 (cuSPARSE's csrmv 25 K), 16% of all its L2 requests,
// with the L2's tag lookups the busy unit (95%) and 19% of the warps'
// cycles stalled on the fence. Launch: TILE_BLOCK threads a block (64:
// 2 tiles), ceil(nTiles / 2) blocks; nTiles = nnz / TILE_NZ + 1, slot 2 * nTiles
// 64-bit words and tileDone nTiles counts, zero before the first SpMV
// (spmvTilePrep).
__device__ __forceinline__ float warpSum(float v) { return groupSum<LIBS_WARP>(v); }

// A piece's slot: its sum's bits in the low word, 1 in the high word once
// it is written (0: not yet).
#define TILE_SLOT_FULL (1ull << 32)
// The most times the last piece reads a slot waiting for its flag.
#define TILE_SPIN (1 << 16)

// tileFinish: acc (the same in every lane) is the tile's piece of row `row`
// (first nonzero rowFirst, end rowEnd), a row that crosses tiles; hand it
// to the row's last piece. The whole warp calls it.
__device__ __forceinline__ void tileFinish(float acc, int t, int row,
                                           int rowFirst, int rowEnd,
                                           float* __restrict__ y,
                                           unsigned long long* slot,
                                           int* tileDone, int lane) {
    const int ta = rowFirst / TILE_NZ;
    const int n = (rowEnd - 1) / TILE_NZ - ta + 1;
    int ticket = 0;
    if (lane == 0) {
        volatile unsigned long long* s = slot + (t == ta ? 2 * t + 1 : 2 * t);
        *s = TILE_SLOT_FULL | __float_as_uint(acc);
        ticket = atomicAdd(&tileDone[ta], 1);
    }
    ticket = __shfl_sync(0xffffffffu, ticket, 0);
    if (ticket != n - 1) {
        return;
    }
    // The last piece of the row: every other piece was stored before it
    // was counted, but without a fence the count can be seen first, so
    // read each slot (volatile: from L2, not L1, which is not coherent
    // across SMs) until its flag is there. A store is seen within
    // microseconds; the bound (TILE_SPIN reads, tens of milliseconds on a
    // GPU) only turns a broken protocol into a wrong y, which the checks
    // catch, instead of a hang.
    float sum = 0.0f;
    for (int i = lane; i < n; i += LIBS_WARP) {
        volatile unsigned long long* s = slot + (i == 0 ? 2 * ta + 1 : 2 * (ta + i));
        unsigned long long v = *s;
        for (int k = 0; v < TILE_SLOT_FULL && k < TILE_SPIN; ++k) {
            v = *s;
        }
        sum += __uint_as_float((unsigned)v);
        *s = 0ull;
    }
    sum = warpSum(sum);
    if (lane == 0) {
        y[row] = sum;
        tileDone[ta] = 0;
    }
}

// segStep adds one product to a lane's run: at a row start the segment
// before it closes, its sum put at its first place (pos) when its row
// began in this lane (seen), kept as the lane's head otherwise. Written as
// selects and one predicated store, so the lanes of a warp do not diverge.
__device__ __forceinline__ void segStep(float p, bool start, int here, float& s,
                                        float& head, int& pos, bool& seen,
                                        float* prod) {
    if (start && seen) {
        prod[pos] = s;
    }
    head = start && !seen ? s : head;
    seen = seen || start;
    pos = start ? here : pos;
    s = (start ? 0.0f : s) + p;
}

// tileRows loads rowPtr for the 32 rows base .. base+31 of a tile's rows
// [.., r1): f = rowPtr[r], the row's first nonzero (for r up to r1, so
// lane 0 of the first 32 has rowPtr[r0] even when no row starts in the
// tile), and e = rowPtr[r + 1] its end, meaningful for r < r1. The two
// loads are independent, one trip to memory (the end as the next lane's
// f by a shuffle, with the last lane reading one more, waits for the
// first load before the second: two trips).
__device__ __forceinline__ void tileRows(const int* __restrict__ rowPtr,
                                         int base, int r1, int lane, int& f,
                                         int& e) {
    const int r = base + lane;
    f = r <= r1 ? rowPtr[r] : 0;
    e = r < r1 ? rowPtr[r + 1] : 0;
}


// tileProduct4 stages four products of a tile: float4 q of val and int4 q
// of colIdx (streaming), their x gathers, into prod4[q - a4].
__device__ __forceinline__ void tileProduct4(const float4* __restrict__ val4,
                                             const int4* __restrict__ col4,
                                             const float* __restrict__ x,
                                             float4* prod4, int q, int a4) {
    const float4 v = __ldcs(&val4[q]);
    const int4 c = __ldcs(&col4[q]);
    float4 p;
    p.x = v.x * x[c.x];
    p.y = v.y * x[c.y];
    p.z = v.z * x[c.z];
    p.w = v.w * x[c.w];
    prod4[q - a4] = p;
}
template <bool V4>
__device__ __forceinline__ void tileSpmv(const int* __restrict__ rowPtr,
                                         const int* __restrict__ colIdx,
                                         const float* __restrict__ val,
                                         const float* __restrict__ x,
                                         float* __restrict__ y, int nnz,
                                         int nTiles,
                                         const int* __restrict__ tileRow,
                                         unsigned long long* slot,
                                         int* tileDone) {
    __shared__ __align__(16) float prodAll[TILE_WARPS][TILE_NZ];
    __shared__ __align__(16) unsigned char startAll[TILE_WARPS][TILE_NZ];
    const int warp = threadIdx.x / LIBS_WARP;
    const int lane = threadIdx.x % LIBS_WARP;
    const int t = blockIdx.x * TILE_WARPS + warp;
    if (t >= nTiles) {
        return;  // whole warps: the shuffles below see all 32 lanes
    }
    float* prod = prodAll[warp];
    unsigned char* startAt = startAll[warp];
    const int a = t * TILE_NZ;
    const int b = min(a + TILE_NZ, nnz);
    const int mine = TILE_RUN * lane;  // this lane's TILE_RUN places
    const int r0 = tileRow[t], r1 = tileRow[t + 1];
#pragma unroll
    for (int q = 0; q < TILE_RUN / 8; ++q) {
        reinterpret_cast<uint2*>(startAt + mine)[q] = make_uint2(0u, 0u);
    }
    // Step 1: the tile's products, coalesced; the last tile's places past
    // nnz are 0.
    if (V4 && b - a == TILE_NZ) {
        // A full tile: every lane's TILE_RUN / 4 float4s unrolled, so
        // their gathers are in flight together.
        const float4* val4 = reinterpret_cast<const float4*>(val);
        const int4* col4 = reinterpret_cast<const int4*>(colIdx);
        float4* prod4 = reinterpret_cast<float4*>(prod);
#pragma unroll
        for (int r = 0; r < TILE_RUN / 4; ++r) {
            tileProduct4(val4, col4, x, prod4, a / 4 + lane + r * LIBS_WARP, a / 4);
        }
    } else if (!V4 && b - a == TILE_NZ) {
        // A full tile: every lane's TILE_RUN nonzeros unrolled.
#pragma unroll
        for (int r = 0; r < TILE_RUN; ++r) {
            const int j = a + lane + r * LIBS_WARP;
            prod[j - a] = __ldcs(&val[j]) * x[__ldcs(&colIdx[j])];
        }
    } else if (V4) {
        const float4* val4 = reinterpret_cast<const float4*>(val);
        const int4* col4 = reinterpret_cast<const int4*>(colIdx);
        float4* prod4 = reinterpret_cast<float4*>(prod);
        for (int q = a / 4 + lane; 4 * q + 4 <= b; q += LIBS_WARP) {
            tileProduct4(val4, col4, x, prod4, q, a / 4);
        }
        for (int j = max(a, b & ~3) + lane; j < b; j += LIBS_WARP) {
            prod[j - a] = __ldcs(&val[j]) * x[__ldcs(&colIdx[j])];
        }
    } else {
        for (int j = a + lane; j < b; j += LIBS_WARP) {
            prod[j - a] = __ldcs(&val[j]) * x[__ldcs(&colIdx[j])];
        }
    }
    for (int j = b - a + lane; j < TILE_NZ; j += LIBS_WARP) {
        prod[j] = 0.0f;
    }
    __syncwarp();
    // Step 2: the tile's rows mark their starts.
    int f0, e0;  // the first 32 rows' spans, kept for step 4
    tileRows(rowPtr, r0, r1, lane, f0, e0);
    for (int base = r0; base < r1; base += LIBS_WARP) {
        int f = f0, e = e0;
        if (base != r0) {
            tileRows(rowPtr, base, r1, lane, f, e);
        }
        if (base + lane < r1 && e > f) {
            startAt[f - a] = 1;
        }
    }
    __syncwarp();
    // Step 3: each lane's run of TILE_RUN, then the segmented scan over
    // lanes.
    float s = 0.0f, head = 0.0f;
    int pos = 0;
    bool seen = false;
#pragma unroll
    for (int q = 0; q < TILE_RUN / 8; ++q) {
        const int m = mine + 8 * q;
        const float4 p0 = reinterpret_cast<const float4*>(prod + m)[0];
        const float4 p1 = reinterpret_cast<const float4*>(prod + m)[1];
        const uint2 st = reinterpret_cast<const uint2*>(startAt + m)[0];
        segStep(p0.x, st.x & 0xffu, m, s, head, pos, seen, prod);
        segStep(p0.y, st.x & 0xff00u, m + 1, s, head, pos, seen, prod);
        segStep(p0.z, st.x & 0xff0000u, m + 2, s, head, pos, seen, prod);
        segStep(p0.w, st.x & 0xff000000u, m + 3, s, head, pos, seen, prod);
        segStep(p1.x, st.y & 0xffu, m + 4, s, head, pos, seen, prod);
        segStep(p1.y, st.y & 0xff00u, m + 5, s, head, pos, seen, prod);
        segStep(p1.z, st.y & 0xff0000u, m + 6, s, head, pos, seen, prod);
        segStep(p1.w, st.y & 0xff000000u, m + 7, s, head, pos, seen, prod);
    }
    const unsigned starts = __ballot_sync(0xffffffffu, seen);
    // The lanes this lane's open row spans: from the last lane at or
    // before it with a row start (0 when none).
    const unsigned upTo = starts & (0xffffffffu >> (31 - lane));
    const int from = upTo ? 31 - __clz(upTo) : 0;
    float v = s;
#pragma unroll
    for (int d = 1; d < LIBS_WARP; d <<= 1) {
        const float u = __shfl_up_sync(0xffffffffu, v, d);
        if (lane - d >= from) {
            v += u;
        }
    }
    // in: the open row's parts in the lanes before this one.
    float in = __shfl_up_sync(0xffffffffu, v, 1);
    const unsigned before = starts & ((1u << lane) - 1u);
    const int prevPos = __shfl_sync(0xffffffffu, pos, before ? 31 - __clz(before) : 0);
    if (lane == 0) {
        in = 0.0f;
    }
    if (seen && before != 0) {
        prod[prevPos] = in + head;  // a row from an earlier lane ends here
    }
    // The tail row (the last started here) ends in this tile or runs on;
    // its sum so far is the warp's total either way.
    const float total = __shfl_sync(0xffffffffu, v, LIBS_WARP - 1);
    const int tailPos = __shfl_sync(0xffffffffu, pos, starts ? 31 - __clz(starts) : 0);
    if (starts != 0 && lane == 0) {
        prod[tailPos] = total;
    }
    __syncwarp();
    // Step 4: y of the rows that start and end in the tile, coalesced.
    int tf = 0, te = 0;  // the last row's span
    for (int base = r0; base < r1; base += LIBS_WARP) {
        int f = f0, e = e0;
        if (base != r0) {
            tileRows(rowPtr, base, r1, lane, f, e);
        }
        if (base + lane < r1 && e <= b) {
            y[base + lane] = e > f ? prod[f - a] : 0.0f;
        }
        if (base + LIBS_WARP >= r1) {
            tf = __shfl_sync(0xffffffffu, f, r1 - 1 - base);
            te = __shfl_sync(0xffffffffu, e, r1 - 1 - base);
        }
    }
    // Step 5: the head piece and the tail row's piece, when it runs on.
    if (t > 0) {
        const int headEnd = __shfl_sync(0xffffffffu, f0, 0);  // rowPtr[r0]
        if (headEnd > a) {
            const int firstLane = starts ? __ffs(starts) - 1 : LIBS_WARP - 1;
            const float h = __shfl_sync(0xffffffffu, starts ? in + head : total, firstLane);
            tileFinish(h, t, r0 - 1, rowPtr[r0 - 1], headEnd, y, slot, tileDone, lane);
        }
    }
    if (r1 > r0 && te > b) {
        tileFinish(total, t, r1 - 1, tf, te, y, slot, tileDone, lane);
    }
}

extern "C" {

#define LIBS_VECTOR(W)                                                         \
    __global__ void spmvVector##W(                                             \
        const int* __restrict__ rowPtr, const int* __restrict__ colIdx,        \
        const float* __restrict__ val, const float* __restrict__ x,            \
        float* __restrict__ y, size_t nRows) {                                 \
        csrVector<W, false>(rowPtr, colIdx, val, x, y, nRows);                 \
    }                                                                          \
    __global__ void spmvVector##W##V4(                                         \
        const int* __restrict__ rowPtr, const int* __restrict__ colIdx,        \
        const float* __restrict__ val, const float* __restrict__ x,            \
        float* __restrict__ y, size_t nRows) {                                 \
        csrVector<W, true>(rowPtr, colIdx, val, x, y, nRows);                  \
    }

LIBS_VECTOR(2)
LIBS_VECTOR(4)
LIBS_VECTOR(8)
LIBS_VECTOR(16)
LIBS_VECTOR(32)

#define LIBS_BIN(W)                                                            \
    __global__ void spmvBinRows##W(                                            \
        const int* __restrict__ rowPtr, const int* __restrict__ colIdx,        \
        const float* __restrict__ val, const float* __restrict__ x,            \
        float* __restrict__ y, const int* __restrict__ rows, int first,        \
        int nList) {                                                           \
        csrListed<W>(rowPtr, colIdx, val, x, y, rows + first, nList);          \
    }

LIBS_BIN(1)
LIBS_BIN(2)
LIBS_BIN(4)
LIBS_BIN(8)
LIBS_BIN(16)
LIBS_BIN(32)

// Block per row, for rows longer than a warp can take in 32 passes: the
// block's 256 lanes stride the row, each warp folds its partials by
// shuffle, and warp 0 folds the 8 warp sums. Launch: one block of 256
// threads per listed row (grid = nList).
__global__ void spmvBinBlock(const int* __restrict__ rowPtr,
                             const int* __restrict__ colIdx,
                             const float* __restrict__ val,
                             const float* __restrict__ x,
                             float* __restrict__ y,
                             const int* __restrict__ rows, int firstListed,
                             int nList) {
    __shared__ float warpSums[LIBS_BLOCK / LIBS_WARP];
    const int row = rows[firstListed + blockIdx.x];
    const int first = rowPtr[row];
    const int last = rowPtr[row + 1];
    float acc = rowPartial<LIBS_BLOCK, false>(colIdx, val, x, first, last, threadIdx.x);
    acc = groupSum<LIBS_WARP>(acc);
    const int lane = threadIdx.x % LIBS_WARP;
    const int warp = threadIdx.x / LIBS_WARP;
    if (lane == 0) {
        warpSums[warp] = acc;
    }
    __syncthreads();
    if (warp == 0) {
        acc = lane < LIBS_BLOCK / LIBS_WARP ? warpSums[lane] : 0.0f;
        acc = groupSum<LIBS_WARP>(acc);
        if (lane == 0) {
            y[row] = acc;
        }
    }
}

// Merge-path SpMV (Merrill and Garland, "Merge-based parallel sparse
// matrix-vector multiplication", SC'16).
//
// Think of the work as merging two sorted lists: the row ends
// rowPtr[1..nRows] and the nonzero indices 0..nnz-1. Walking the merge,
// each step either consumes a nonzero (multiply-add) or a row end (store y
// and start the next row). The merge has nRows + nnz steps, and every thread
// takes exactly MERGE_ITEMS of them, so a row of 419 costs its threads what
// 419 short rows' worth of steps would: no lane waits on a long row.
//
// The host finds where each block's tile of MERGE_TILE steps starts, by a
// binary search along the tile's first diagonal (diagonal d: i row ends and
// d - i nonzeros consumed); that is the one-time preparation, tileRow and
// tileNz, nBlocks + 1 entries. The block then stages its tile in shared
// memory with coalesced loads, as CUB does: the products val[j] * x[col[j]]
// of its nonzeros, and its row ends. Each thread searches its own diagonal
// there and walks its MERGE_ITEMS steps out of shared memory, adding each
// part of a row it holds (whole, or the piece before or after a thread
// boundary) into the tile's row sums in shared memory (shared atomics: a
// long row gets parts from many threads). The block then stores the sums of
// the rows whose end lies in its tile, coalesced. The one row that runs on
// into the next tile leaves the block as its carry (carryRow, carryVal: one
// entry per block), which spmvMergeFixup adds after every block has stored.
//
// Launch: 256 threads a block, ceil((nRows + nnz) / MERGE_TILE) blocks;
// carryRow and carryVal hold one entry per block.
__global__ void spmvMergePath(const int* __restrict__ rowPtr,
                              const int* __restrict__ colIdx,
                              const float* __restrict__ val,
                              const float* __restrict__ x,
                              float* __restrict__ y,
                              const int* __restrict__ tileRow,
                              const int* __restrict__ tileNz,
                              int* __restrict__ carryRow,
                              float* __restrict__ carryVal, int nRows,
                              int nnz) {
    __shared__ float prod[MERGE_TILE];
    __shared__ int rowEnds[MERGE_TILE + 1];
    __shared__ float rowSums[MERGE_TILE];
    __shared__ float blockCarry;
    __shared__ int startRow[LIBS_BLOCK + 1];
    __shared__ int startNz[LIBS_BLOCK + 1];
    const int t = threadIdx.x;
    const int b = blockIdx.x;
    const int rowLo = tileRow[b], rowHi = tileRow[b + 1];
    const int nzLo = tileNz[b], nzHi = tileNz[b + 1];
    // Stage the tile: rows rowLo..rowHi (the last may continue into the
    // next tile) and nonzeros nzLo..nzHi-1, 256 consecutive entries a pass.
    const int nRowEnds = (rowHi < nRows ? rowHi + 1 : nRows) - rowLo;
    for (int k = t; k < nRowEnds; k += LIBS_BLOCK) {
        rowEnds[k] = rowPtr[rowLo + k + 1];
    }
    for (int k = t; k < nzHi - nzLo; k += LIBS_BLOCK) {
        prod[k] = val[nzLo + k] * x[colIdx[nzLo + k]];
    }
    for (int k = t; k < rowHi - rowLo; k += LIBS_BLOCK) {
        rowSums[k] = 0.0f;
    }
    if (t == 0) {
        blockCarry = 0.0f;
    }
    __syncthreads();
    int d = b * MERGE_TILE + t * MERGE_ITEMS;
    if (d > rowHi + nzHi) {
        d = rowHi + nzHi;
    }
    // The largest i in the tile with rowPtr[i] <= d - i: i row ends come
    // before nonzero d - i on diagonal d.
    int lo = d - nzHi > rowLo ? d - nzHi : rowLo;
    int hi = d - nzLo < rowHi ? d - nzLo : rowHi;
    while (lo < hi) {
        const int pivot = (lo + hi) >> 1;
        if (rowEnds[pivot - rowLo] <= d - pivot - 1) {
            lo = pivot + 1;
        } else {
            hi = pivot;
        }
    }
    startRow[t] = lo;
    startNz[t] = d - lo;
    if (t == 0) {
        startRow[LIBS_BLOCK] = rowHi;
        startNz[LIBS_BLOCK] = nzHi;
    }
    __syncthreads();
    int row = startRow[t], j = startNz[t];
    const int items = startRow[t + 1] + startNz[t + 1] - row - j;
    int rowEnd = row < nRows ? rowEnds[row - rowLo] : nnz;
    float acc = 0.0f;
    for (int i = 0; i < items; ++i) {
        if (j < rowEnd) {
            acc += prod[j - nzLo];
            ++j;
        } else {
            atomicAdd(&rowSums[row - rowLo], acc);
            acc = 0.0f;
            ++row;
            rowEnd = row < nRows ? rowEnds[row - rowLo] : nnz;
        }
    }
    // The piece of a row this thread stopped inside: its end is later in
    // this tile (row < rowHi), or in a later tile (row == rowHi).
    if (acc != 0.0f) {
        atomicAdd(row < rowHi ? &rowSums[row - rowLo] : &blockCarry, acc);
    }
    __syncthreads();
    for (int k = t; k < rowHi - rowLo; k += LIBS_BLOCK) {
        y[rowLo + k] = rowSums[k];
    }
    if (t == 0) {
        carryRow[b] = rowHi;
        carryVal[b] = blockCarry;
    }
}

// The carries: a block whose tile ended inside a row adds its part of that
// row to y, after the block that holds the row's end stored its own part
// (the previous launch). A row longer than a tile gets carries from several
// blocks, so the adds are atomic; their order varies, which is one reason y
// differs from a sequential sum in the last bits (the shared-memory adds in
// spmvMergePath are another). Launch: one thread per block of the walk.
__global__ void spmvMergeFixup(const int* __restrict__ carryRow,
                               const float* __restrict__ carryVal,
                               float* __restrict__ y, int nCarry, int nRows) {
    const int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= nCarry) {
        return;
    }
    const int row = carryRow[gid];
    const float v = carryVal[gid];
    if (row < nRows && v != 0.0f) {
        atomicAdd(&y[row], v);
    }
}

#define LIBS_SPLIT(W)                                                          \
    __global__ void spmvSplit##W(                                              \
        const int* __restrict__ rowPtr, const int* __restrict__ colIdx,        \
        const float* __restrict__ val, const float* __restrict__ x,            \
        float* __restrict__ y, int nRows, int vecBlocks,                       \
        const int* __restrict__ chunkLong, const int* __restrict__ longRow,    \
        const int* __restrict__ longFirst, const int* __restrict__ longChunks, \
        float* partial, int* longDone, int nChunks) {                          \
        splitSpmv<W, false>(rowPtr, colIdx, val, x, y, nRows, vecBlocks,       \
                            chunkLong, longRow, longFirst, longChunks,         \
                            partial, longDone, nChunks);                       \
    }                                                                          \
    __global__ void spmvSplit##W##V4(                                          \
        const int* __restrict__ rowPtr, const int* __restrict__ colIdx,        \
        const float* __restrict__ val, const float* __restrict__ x,            \
        float* __restrict__ y, int nRows, int vecBlocks,                       \
        const int* __restrict__ chunkLong, const int* __restrict__ longRow,    \
        const int* __restrict__ longFirst, const int* __restrict__ longChunks, \
        float* partial, int* longDone, int nChunks) {                          \
        splitSpmv<W, true>(rowPtr, colIdx, val, x, y, nRows, vecBlocks,        \
                           chunkLong, longRow, longFirst, longChunks,          \
                           partial, longDone, nChunks);                        \
    }

LIBS_SPLIT(2)
LIBS_SPLIT(4)
LIBS_SPLIT(8)
LIBS_SPLIT(16)
LIBS_SPLIT(32)

// spmvSplit's preparation, on the device: one thread a row. A row longer
// than longMin nonzeros takes the next long-row slot k and the next nch
// chunk slots by two atomic counters (counts[0], counts[1], zero before the
// launch), records its row, first chunk and chunk count, and marks each of
// its chunks with k; its done-count starts at 0. Long rows land in the list
// in whatever order the atomics give; spmvSplit adds each row's chunks in
// chunk order, so y does not depend on it. maxLong and maxChunks are the
// lists' sizes (the host's bound: nnz / (longMin + 1) long rows and
// nnz / SPLIT_CHUNK + that many chunks); a row that would overflow them
// leaves counts past the bound, which the host reads and refuses.
// Launch: 256 threads a block, ceil(nRows / 256) blocks.
__global__ void spmvSplitPrep(const int* __restrict__ rowPtr, int nRows,
                              int longMin, int* counts, int* longRow,
                              int* longFirst, int* longChunks, int* chunkLong,
                              int* longDone, int maxLong, int maxChunks) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= nRows) {
        return;
    }
    const int len = rowPtr[r + 1] - rowPtr[r];
    if (len <= longMin) {
        return;
    }
    const int nch = (len + SPLIT_CHUNK - 1) / SPLIT_CHUNK;
    const int k = atomicAdd(&counts[0], 1);
    const int f = atomicAdd(&counts[1], nch);
    if (k >= maxLong || f + nch > maxChunks) {
        return;
    }
    longRow[k] = r;
    longFirst[k] = f;
    longChunks[k] = nch;
    longDone[k] = 0;
    for (int i = 0; i < nch; ++i) {
        chunkLong[f + i] = k;
    }
}

// Merge path's preparation on the device: thread b finds where tile b's
// first diagonal (b * MERGE_TILE, the last one clamped to nRows + nnz)
// crosses the merge path, the binary search MergeCoord does on the host.
// Launch: 256 threads a block, ceil((nBlocks + 1) / 256) blocks.
__global__ void spmvMergePartition(const int* __restrict__ rowPtr, int nRows,
                                   int nnz, int nBlocks, int* tileRow,
                                   int* tileNz) {
    const int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b > nBlocks) {
        return;
    }
    const long long total = (long long)nRows + nnz;
    long long dl = (long long)b * MERGE_TILE;
    if (dl > total) {
        dl = total;
    }
    const int d = (int)dl;
    int lo = d - nnz > 0 ? d - nnz : 0;
    int hi = d < nRows ? d : nRows;
    while (lo < hi) {
        const int pivot = (lo + hi) >> 1;
        if (rowPtr[pivot + 1] <= d - pivot - 1) {
            lo = pivot + 1;
        } else {
            hi = pivot;
        }
    }
    tileRow[b] = lo;
    tileNz[b] = d - lo;
}

// spmvTile's preparation, on the device: tileRow[t] is the first row whose
// first nonzero is at or after t * TILE_NZ (a binary search over rowPtr),
// tileRow[nTiles] = nRows, and the tiles' done-counts and piece slots
// start at 0.
// Launch: 256 threads a block, ceil((nTiles + 1) / 256) blocks.
__global__ void spmvTilePrep(const int* __restrict__ rowPtr, int nRows,
                             int nTiles, int* tileRow, int* tileDone,
                             unsigned long long* slot) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t > nTiles) {
        return;
    }
    if (t == nTiles) {
        tileRow[t] = nRows;
        return;
    }
    tileDone[t] = 0;
    slot[2 * t] = 0ull;
    slot[2 * t + 1] = 0ull;
    const long long d = (long long)t * TILE_NZ;
    int lo = 0, hi = nRows;  // the first r in [0, nRows] with rowPtr[r] >= d
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (rowPtr[mid] < d) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    tileRow[t] = lo;
}

// The binned method's preparation on the device: a stable counting sort of
// the rows into the 7 bins (BIN_CLASSES: 1, 2, 4, 8, 16, 32 lanes, then a
// block), the list the host's Bins makes, in three launches. Each block
// of spmvBinCount and spmvBinScatter takes BIN_ROWS consecutive rows, in
// BIN_ITEMS rounds of 256; within a round a warp ranks its rows of each bin
// by ballot (the rows before it in the warp with the same bin), and the
// block adds the counts of the warps before it, so a row's place depends
// only on the rows before it: ascending row order inside every bin, with
// no atomics. blockCounts is bin-major (bin k of block b at
// k * nBlocks + b), so one exclusive scan over it gives every block's first
// place in every bin, and binStart[k] (the scanned value at k * nBlocks)
// each bin's first place in binRows; binStart[BIN_CLASSES] = nRows.
#define BIN_CLASSES 7
#define BIN_ITEMS 8
#define BIN_ROWS (LIBS_BLOCK * BIN_ITEMS)

// binClass is BinWidth's rule as a bin index: the narrowest group of
// 1..32 lanes with at most 4 nonzeros a lane, a warp up to 32 passes,
// the block bin (6) beyond.
__device__ __forceinline__ int binClass(int n) {
    if (n > 32 * LIBS_WARP) {
        return BIN_CLASSES - 1;
    }
    int k = 0;
    for (int w = 1; w < LIBS_WARP && w * 4 < n; w *= 2) {
        ++k;
    }
    return k;
}

// binRound ranks one round's rows: row r's bin (-1 past nRows), its rank
// among the warp's earlier rows of that bin, and each warp's count per bin
// in warpCnt. Every lane of the block must reach it.
__device__ __forceinline__ int binRound(const int* __restrict__ rowPtr,
                                        int nRows, int r, int* rank,
                                        int (*warpCnt)[BIN_CLASSES]) {
    const int lane = threadIdx.x % LIBS_WARP;
    const int warp = threadIdx.x / LIBS_WARP;
    const int b = r < nRows ? binClass(rowPtr[r + 1] - rowPtr[r]) : -1;
    const unsigned before = (1u << lane) - 1u;
#pragma unroll
    for (int k = 0; k < BIN_CLASSES; ++k) {
        const unsigned m = __ballot_sync(0xffffffffu, b == k);
        if (b == k) {
            *rank = __popc(m & before);
        }
        if (lane == 0) {
            warpCnt[warp][k] = __popc(m);
        }
    }
    return b;
}

// spmvBinCount: each block's row count per bin. Launch: 256 threads a
// block, nBlocks = ceil(nRows / BIN_ROWS) blocks.
__global__ void spmvBinCount(const int* __restrict__ rowPtr, int nRows,
                             int nBlocks, int* blockCounts) {
    __shared__ int warpCnt[LIBS_BLOCK / LIBS_WARP][BIN_CLASSES];
    int total = 0;  // thread k < BIN_CLASSES: bin k's rows so far
    for (int i = 0; i < BIN_ITEMS; ++i) {
        const int r = blockIdx.x * BIN_ROWS + i * LIBS_BLOCK + threadIdx.x;
        int rank = 0;
        binRound(rowPtr, nRows, r, &rank, warpCnt);
        __syncthreads();
        if (threadIdx.x < BIN_CLASSES) {
            for (int w = 0; w < LIBS_BLOCK / LIBS_WARP; ++w) {
                total += warpCnt[w][threadIdx.x];
            }
        }
        __syncthreads();
    }
    if (threadIdx.x < BIN_CLASSES) {
        blockCounts[threadIdx.x * nBlocks + blockIdx.x] = total;
    }
}

// spmvBinScan: the exclusive scan of blockCounts (n = BIN_CLASSES *
// nBlocks entries) in place, by one block: each thread sums a contiguous
// stretch, the 256 sums are scanned by shuffles, and each thread writes
// its stretch's running offsets; then binStart. Launch: one block of 256.
__global__ void spmvBinScan(int* blockCounts, int n, int nBlocks,
                            int* binStart) {
    __shared__ int warpTotal[LIBS_BLOCK / LIBS_WARP];
    const int per = (n + LIBS_BLOCK - 1) / LIBS_BLOCK;
    const int lo = threadIdx.x * per;
    const int hi = lo + per < n ? lo + per : n;
    int sum = 0;
    for (int i = lo; i < hi; ++i) {
        sum += blockCounts[i];
    }
    const int lane = threadIdx.x % LIBS_WARP;
    const int warp = threadIdx.x / LIBS_WARP;
    int inc = sum;  // inclusive scan of the stretches' sums in the warp
    for (int d = 1; d < LIBS_WARP; d *= 2) {
        const int v = __shfl_up_sync(0xffffffffu, inc, d);
        if (lane >= d) {
            inc += v;
        }
    }
    if (lane == LIBS_WARP - 1) {
        warpTotal[warp] = inc;
    }
    __syncthreads();
    int run = inc - sum;
    for (int w = 0; w < warp; ++w) {
        run += warpTotal[w];
    }
    for (int i = lo; i < hi; ++i) {
        const int c = blockCounts[i];
        blockCounts[i] = run;
        run += c;
    }
    __syncthreads();
    if (threadIdx.x < BIN_CLASSES) {
        binStart[threadIdx.x] = blockCounts[threadIdx.x * nBlocks];
    }
    if (threadIdx.x == BIN_CLASSES) {
        int total = 0;
        for (int w = 0; w < LIBS_BLOCK / LIBS_WARP; ++w) {
            total += warpTotal[w];
        }
        binStart[BIN_CLASSES] = total;
    }
}

// spmvBinScatter: each row's place, its block's first place in its bin
// (the scanned blockCounts) plus the rows of that bin before it in the
// block, and binRows[place] = row. Launch: as spmvBinCount.
__global__ void spmvBinScatter(const int* __restrict__ rowPtr, int nRows,
                               int nBlocks,
                               const int* __restrict__ blockOffsets,
                               int* binRows) {
    __shared__ int warpCnt[LIBS_BLOCK / LIBS_WARP][BIN_CLASSES];
    __shared__ int base[BIN_CLASSES];
    if (threadIdx.x < BIN_CLASSES) {
        base[threadIdx.x] = blockOffsets[threadIdx.x * nBlocks + blockIdx.x];
    }
    const int warp = threadIdx.x / LIBS_WARP;
    for (int i = 0; i < BIN_ITEMS; ++i) {
        const int r = blockIdx.x * BIN_ROWS + i * LIBS_BLOCK + threadIdx.x;
        int rank = 0;
        const int b = binRound(rowPtr, nRows, r, &rank, warpCnt);
        __syncthreads();
        if (b >= 0) {
            int place = base[b] + rank;
            for (int w = 0; w < warp; ++w) {
                place += warpCnt[w][b];
            }
            binRows[place] = r;
        }
        __syncthreads();
        if (threadIdx.x < BIN_CLASSES) {
            int add = 0;
            for (int w = 0; w < LIBS_BLOCK / LIBS_WARP; ++w) {
                add += warpCnt[w][threadIdx.x];
            }
            base[threadIdx.x] += add;
        }
        __syncthreads();
    }
}

// __launch_bounds__(64, 24): at most 40 registers, so 24 blocks of two
// warps (48 warps) fit an SM. Blocks of 256 had (256, 8), 32 registers
// for 64 warps: without a bound ptxas (sm_90) gave 40 registers, 6 blocks
// of 8 warps, and ncu measured 65% of the warps active against cuSPARSE's
// 94%; with blocks of two a warp that finishes frees its slot sooner.
__global__ void __launch_bounds__(TILE_BLOCK, TILE_MIN_BLOCKS) spmvTile(const int* __restrict__ rowPtr,
                         const int* __restrict__ colIdx,
                         const float* __restrict__ val,
                         const float* __restrict__ x, float* __restrict__ y,
                         int nnz, int nTiles, const int* __restrict__ tileRow,
                         unsigned long long* slot, int* tileDone) {
    tileSpmv<false>(rowPtr, colIdx, val, x, y, nnz, nTiles, tileRow, slot, tileDone);
}

__global__ void __launch_bounds__(TILE_BLOCK, TILE_MIN_BLOCKS) spmvTileV4(const int* __restrict__ rowPtr,
                           const int* __restrict__ colIdx,
                           const float* __restrict__ val,
                           const float* __restrict__ x, float* __restrict__ y,
                           int nnz, int nTiles, const int* __restrict__ tileRow,
                           unsigned long long* slot, int* tileDone) {
    tileSpmv<true>(rowPtr, colIdx, val, x, y, nnz, nTiles, tileRow, slot, tileDone);
}

// The bandwidth reference: read n4 float4 and write them elsewhere, a
// grid-stride loop so any grid covers any length. Bytes moved: 32 * n4.
__global__ void copyFloat4(const float4* __restrict__ src,
                           float4* __restrict__ dst, size_t n4) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        dst[i] = src[i];
    }
}

}  // extern "C"

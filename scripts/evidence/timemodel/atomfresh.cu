// atomfresh.cu — does a global atomic cost more when its words change from
// one operation to the next (issue 27, milestone 3)?
//
// The model prices a line's atomic operations by their lanes, words and
// sectors (atomics.cu's atom_g_words and atom_g_lanes: the same words every
// operation). The random-bin rows (atom_g_bins: each lane's bin a random
// value mod B) come out 0.46–1.67 of the model's time over B = 16 to 2^20
// (docs/timemodel.md). This run times the same kernel with each lane's bin
// drawn two ways, at the same B:
//   fresh  bin = r[thread] mod B   (atom_g_bins: new words every operation)
//   fixed  bin = r[lane] mod B     (every warp the same 32 bins: the same
//                                   words, lanes and collisions as one
//                                   random operation, every operation)
// 2^24 threads of 256, one atomicAdd each. Rows: atom_g_fresh and
// atom_g_fixed, "B=b", updates a second (eventTime: 3 warm-ups, 10 runs).
#include "bench.cuh"

__global__ void bins(const unsigned* __restrict__ r, unsigned* p, unsigned mask, int n, int fixed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&p[r[fixed ? (threadIdx.x & 31) : i] & mask], 1u);
}

int main() {
    cudaDeviceProp prop;
    check(cudaGetDeviceProperties(&prop, 0), "properties");
    int sms;
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "attribute");
    std::printf("# device: %s, %d SMs, cc %d.%d, L2 %d bytes\n", prop.name, sms, prop.major, prop.minor, prop.l2CacheSize);
    std::printf("name,param,value,unit,note\n");
    row("device_sms", "", sms, "count", prop.name);
    const int N = 1 << 24;
    unsigned *r, *p;
    check(cudaMalloc(&r, sizeof(unsigned) * (size_t)N), "malloc r");
    check(cudaMalloc(&p, sizeof(unsigned) * (size_t)(1 << 20)), "malloc p");
    uploadRandom(r, N, 27); // atomics.cu's and atomfresh.cu's values
    char prm[32];
    for (int lg : {1, 4, 6, 8, 10, 14, 20}) {
        for (int fixed = 0; fixed < 2; ++fixed) {
            check(cudaMemset(p, 0, sizeof(unsigned) * (size_t)(1 << 20)), "memset");
            double ms = eventTime([&] { bins<<<N / 256, 256>>>(r, p, (1u << lg) - 1, N, fixed); });
            std::snprintf(prm, sizeof prm, "B=%d", 1 << lg);
            row(fixed ? "atom_g_fixed" : "atom_g_fresh", prm, (double)N / (ms * 1e-3), "updates/s",
                fixed ? "2^24 updates, bin r[lane] mod B: every warp the same 32 bins" : "2^24 updates, bin r[thread] mod B: random bins");
        }
    }
    check(cudaDeviceSynchronize(), "end");
    return 0;
}

// fitcheck GPU probe, memory kernels (CUDA C++ -> PTX, loaded with cuModuleLoadDataEx).
//
// Built with `nvcc -ptx` when nvcc is installed; fc_stream.ptx next to this
// file is the committed fallback for builds without nvcc (see docs/gpu.md).
// Every kernel is extern "C" so the entry names stay unmangled, and every
// kernel writes its result only under a condition the data never meets, so
// the compiler cannot drop the loads or the math it is meant to time.

#include <stdint.h>

// Loads per thread per grid step: enough independent 16-byte loads in flight
// to cover HBM latency (clpeak and gpu-benches use 16).
#define FC_READ_UNROLL 16

// Fills n 16-byte words with a hash of their index: random-looking data so
// memory compression cannot inflate the read bandwidth.
extern "C" __global__ void fc_fill(uint4 *p, unsigned long long n, unsigned int seed) {
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        unsigned int x = (unsigned int)i * 2654435761u ^ seed;
        x ^= x >> 15; x *= 2246822519u; x ^= x >> 13;
        p[i] = make_uint4(x, x * 3266489917u, x ^ 0x9e3779b9u, ~x);
    }
}

// Reads n 16-byte words, FC_READ_UNROLL loads in flight per thread (the tail
// is handled by the bounds check). Streaming loads (ld.global.cs, evict
// first): the buffer is far larger than L2 and must not be kept there.
extern "C" __global__ void fc_read(const uint4 *__restrict__ p, unsigned long long n, uint4 *sink) {
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned int acc = 0;
    for (unsigned long long base = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; base < n;
         base += stride * FC_READ_UNROLL) {
        uint4 v[FC_READ_UNROLL];
#pragma unroll
        for (int k = 0; k < FC_READ_UNROLL; k++) {
            unsigned long long i = base + k * stride;
            v[k] = i < n ? __ldcs(p + i) : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
        for (int k = 0; k < FC_READ_UNROLL; k++)
            acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
    }
    // The fill pattern makes acc == 0x7fc0ffee across all bits practically
    // impossible; the store keeps the loads alive.
    if (acc == 0x7fc0ffeeu)
        sink[0] = make_uint4(acc, acc, acc, acc);
}

// An empty kernel: the launch-latency probe.
extern "C" __global__ void fc_empty(void) {}

// Busy-waits for `cycles` SM clocks: holds the stream while the host queues
// timed copies behind it, so queueing gaps do not count (nvbandwidth's trick).
extern "C" __global__ void fc_spin(long long cycles) {
    long long start = clock64();
    while (clock64() - start < cycles) {
    }
}

// fp32 throughput: each thread runs FC_FMA_CHAINS independent fused
// multiply-add chains (2 flops each) for `iters` rounds, in registers.
#define FC_FMA_CHAINS 8
extern "C" __global__ void fc_fma(int iters, float *sink) {
    float a = threadIdx.x * 1e-7f, b = 0.999999f, x[FC_FMA_CHAINS];
#pragma unroll
    for (int k = 0; k < FC_FMA_CHAINS; k++)
        x[k] = a + k;
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int k = 0; k < FC_FMA_CHAINS; k++)
            x[k] = fmaf(x[k], b, a);
    }
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < FC_FMA_CHAINS; k++)
        s += x[k];
    if (s == -1.2345f)
        sink[0] = s;
}

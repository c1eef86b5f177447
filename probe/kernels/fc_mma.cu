// fitcheck GPU probe, tensor-core kernels (CUDA C++ -> PTX). Needs sm_80 or
// newer (mma.sync with bf16); a separate module so older GPUs still get the
// memory kernels of fc_stream.cu. fc_mma.ptx is the committed fallback.

// Independent mma chains per warp: hides the tensor-core pipeline latency.
#define FC_MMA_CHAINS 4

// Tensor-core throughput: each warp issues `iters` x FC_MMA_CHAINS
// mma.sync.m16n8k16 on register fragments (4096 flops each), fp32
// accumulation. No memory traffic, so this is the peak of the mma.sync path
// (Hopper's wgmma path is faster still; see docs/gpu.md).
#define FC_MMA_KERNEL(NAME, TYPE)                                                                   \
    extern "C" __global__ void NAME(int iters, float *sink) {                                          \
        unsigned int a0 = threadIdx.x * 0x3c003c00u, a1 = a0 ^ 0x00010001u, a2 = a0 ^ 0x00020002u,    \
                     a3 = a0 ^ 0x00030003u, b0 = a0 ^ 0x00040004u, b1 = a0 ^ 0x00050005u;              \
        float c[FC_MMA_CHAINS][4] = {};                                                                 \
        for (int it = 0; it < iters; it++) {                                                            \
            _Pragma("unroll") for (int k = 0; k < FC_MMA_CHAINS; k++) {                                 \
                asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." TYPE "." TYPE ".f32 "            \
                             "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"                  \
                             : "+f"(c[k][0]), "+f"(c[k][1]), "+f"(c[k][2]), "+f"(c[k][3])              \
                             : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));                  \
            }                                                                                           \
        }                                                                                               \
        float s = 0.0f;                                                                                 \
        _Pragma("unroll") for (int k = 0; k < FC_MMA_CHAINS; k++) s += c[k][0] + c[k][1] + c[k][2] + c[k][3]; \
        if (s == -1.2345f)                                                                              \
            sink[0] = s;                                                                                \
    }

FC_MMA_KERNEL(fc_mma_f16, "f16")
FC_MMA_KERNEL(fc_mma_bf16, "bf16")

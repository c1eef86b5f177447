/* llama.cpp's x86 tiled GEMM (ggml-cpu/tiled, ggml-org/llama.cpp#27851): the
 * prefill of the K-quant and IQ types the CPU backend does not repack, on x86.
 *
 * Before it, such a type's GEMM ran vec_dot row by row, unpacking every weight
 * block once per activation row; the tiled GEMM unpacks a 256 x 256 window of
 * int8 once and sweeps a 16 x 16 micro-kernel over it (the PR's description).
 * It takes a batch of at least 8 rows (ggml_tiled_min_batch), so decode keeps
 * vec_dot, and it leaves weights in the CPU_REPACK buffer to their repacked
 * kernels (ggml_tiled_supported: src0->extra): Q4_K always, Q2_K on AVX-512.
 * Its micro-kernel is VNNI's with AVX512-VNNI, VL and DQ, else AVX2's
 * (tiled-kernel.cpp), and the PR measured the two apart: 3-7x vec_dot with
 * VNNI, up to 2x with AVX2.
 *
 * The shares below are the tiled GEMM's prefill rate over vec_dot's, per type:
 * the rate the CPU constants' pp_eff holds (data/efficiency.csv: this
 * machine's runs with GGML_CPU_TILED_MM=0, the kernels of every corpus CPU row,
 * all from builds before it) times the share is a current x86 build's.
 *
 * VNNI: bench/cpu_types_vs_llamacpp.sh, 7 Dec 2026: llama-bench pp256 at 2
 * threads on `fitcheck gen --like tinyllama-1.1b` files of each type (its
 * llama-quantize mix; each type's share solved over the mixes), tiled GEMM on
 * and off (GGML_CPU_TILED_MM), 3 interleaved cycles on this machine (a 2-core
 * AMD EPYC Zen 4 VM, AVX512-VNNI), the llama.cpp tree of
 * bench/llamacpp_build.sh.
 * AVX2: the same script (ISA=avx2, 2 cycles) with that tree's ggml-cpu built
 * with GGML_AVX512=OFF, on the same cores, the machine busy with two other
 * processes (tiled and vec_dot runs of a type adjacent in time). Q2_K, not
 * repacked there, comes out slower tiled; the IQ3 types, 4.2-4.6x, beyond the
 * PR's "up to 2x", whose AVX2 GEMM bench (8192 square, 8 threads, another CPU)
 * has Q2_K 1.16x, Q3_K 1.88x, Q5_K 2.09x: a Zen 4 core running AVX2 code is not
 * an AVX2-only core, and a catalog x86 platform takes these shares. */
#include "planner/planner.h"

enum tiled_kernel { TILED_AVX2, TILED_VNNI };

typedef struct tiled_rule {
    int kernel;
    uint32_t type;
    double share;
} tiled_rule;

static const tiled_rule tiled_rules[] = {
    {TILED_VNNI, GGML_TYPE_Q3_K, 3.80},    {TILED_VNNI, GGML_TYPE_Q5_K, 4.65},    {TILED_VNNI, GGML_TYPE_Q6_K, 2.89},
    {TILED_VNNI, GGML_TYPE_IQ4_XS, 5.26},  {TILED_VNNI, GGML_TYPE_IQ2_XXS, 7.11}, {TILED_VNNI, GGML_TYPE_IQ2_XS, 7.10},
    {TILED_VNNI, GGML_TYPE_IQ2_S, 6.33},   {TILED_VNNI, GGML_TYPE_IQ3_XXS, 10.3}, {TILED_VNNI, GGML_TYPE_IQ3_S, 12.1},
    {TILED_VNNI, GGML_TYPE_IQ1_S, 6.74},   {TILED_VNNI, GGML_TYPE_IQ1_M, 5.74},
    {TILED_AVX2, GGML_TYPE_Q2_K, 0.81},    {TILED_AVX2, GGML_TYPE_Q3_K, 3.01},    {TILED_AVX2, GGML_TYPE_Q5_K, 2.32},
    {TILED_AVX2, GGML_TYPE_Q6_K, 1.66},    {TILED_AVX2, GGML_TYPE_IQ4_XS, 1.75},  {TILED_AVX2, GGML_TYPE_IQ2_XXS, 3.08},
    {TILED_AVX2, GGML_TYPE_IQ2_XS, 3.23},  {TILED_AVX2, GGML_TYPE_IQ2_S, 2.76},   {TILED_AVX2, GGML_TYPE_IQ3_XXS, 4.24},
    {TILED_AVX2, GGML_TYPE_IQ3_S, 4.55},   {TILED_AVX2, GGML_TYPE_IQ1_S, 3.13},   {TILED_AVX2, GGML_TYPE_IQ1_M, 3.05},
};

double plan_tiled_share(int isa, double int8_share, uint32_t type) {
    if (isa != PLAN_REPACK_X86_AVX2 && isa != PLAN_REPACK_X86_AVX512) return 1.0;
    if (plan_repack_type(isa, type)) return 1.0; /* its repacked GEMM runs it */
    /* VNNI's micro-kernel needs AVX-512 (AVX-VNNI alone gets AVX2's) */
    int kernel = isa == PLAN_REPACK_X86_AVX512 && int8_share >= PROBE_INT8_DOT / PLAN_INT8_REF ? TILED_VNNI : TILED_AVX2;
    for (size_t i = 0; i < FC_ARRAY_LEN(tiled_rules); i++)
        if (tiled_rules[i].kernel == kernel && tiled_rules[i].type == type) return tiled_rules[i].share;
    return 1.0;
}

/* Bandwidth kernels, one body per operation, instantiated for each SIMD level
 * by KERNEL_SET with that level's vector type and intrinsics; the widest one
 * the CPU runs is chosen at run time (__builtin_cpu_supports), so one binary
 * measures any x86-64 at its best.
 *
 * Every loop keeps 8 independent 64-byte streams in flight (8 accumulators
 * for read) so one core issues as many misses as it can; writes use
 * non-temporal stores, which skip the read-for-ownership, as likwid-bench's
 * *_mem kernels and STREAM's best runs do. The write kernel stores a
 * different vector each time (random lanes from the buffer, plus a step): on
 * this project's VM a stream of zeros was written 5x faster than real data
 * (the host elides or compresses it), so a constant, least of all zero,
 * would measure the wrong thing. */
#include "probe/probe_internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define PROBE_X86 1
#endif

/* Unrolled by 8 vectors; `L` is the lane count of the vector type, `attr` the
 * target attribute that lets the compiler emit that level's instructions. */
#define KERNEL_SET(isa, attr, vec, L, load, stream, storeu, add, mul, splat, zero, fence)                    \
    attr static float isa##_read(const float *a, size_t n) {                       \
        vec s0 = zero(), s1 = zero(), s2 = zero(), s3 = zero(), s4 = zero(), s5 = zero(), s6 = zero(),      \
            s7 = zero();                                                                                    \
        for (size_t i = 0; i < n; i += 8 * (L)) {                                                           \
            s0 = add(s0, load(a + i));                                                                      \
            s1 = add(s1, load(a + i + (L)));                                                                \
            s2 = add(s2, load(a + i + 2 * (L)));                                                            \
            s3 = add(s3, load(a + i + 3 * (L)));                                                            \
            s4 = add(s4, load(a + i + 4 * (L)));                                                            \
            s5 = add(s5, load(a + i + 5 * (L)));                                                            \
            s6 = add(s6, load(a + i + 6 * (L)));                                                            \
            s7 = add(s7, load(a + i + 7 * (L)));                                                            \
        }                                                                                                   \
        float lanes[L];                                                                                     \
        storeu(lanes, add(add(add(s0, s1), add(s2, s3)), add(add(s4, s5), add(s6, s7))));                   \
        float sum = 0;                                                                                      \
        for (int j = 0; j < (L); j++) sum += lanes[j];                                                      \
        return sum;                                                                                         \
    }                                                                                                       \
    attr static void isa##_write(float *a, size_t n, float v) {                                           \
        vec step = splat(v), x = add(load(a), step);                                                        \
        for (size_t i = 0; i < n; i += 8 * (L))                                                             \
            for (int u = 0; u < 8; u++) {                                                                   \
                stream(a + i + u * (L), x);                                                                 \
                x = add(x, step);                                                                           \
            }                                                                                               \
        fence();                                                                                            \
    }                                                                                                       \
    attr static void isa##_copy(float *restrict d, const float *restrict s,         \
                                                        size_t n) {                                         \
        for (size_t i = 0; i < n; i += 8 * (L))                                                             \
            for (int u = 0; u < 8; u++) stream(d + i + u * (L), load(s + i + u * (L)));                     \
        fence();                                                                                            \
    }                                                                                                       \
    attr static void isa##_triad(float *restrict a, const float *restrict b,        \
                                                         const float *restrict c, float s, size_t n) {      \
        vec k = splat(s);                                                                                   \
        for (size_t i = 0; i < n; i += 8 * (L))                                                             \
            for (int u = 0; u < 8; u++)                                                                     \
                stream(a + i + u * (L), add(load(b + i + u * (L)), mul(k, load(c + i + u * (L)))));         \
        fence();                                                                                            \
    }                                                                                                       \
    static const probe_kernels isa##_kernels = {#isa, isa##_read, isa##_write, isa##_copy, isa##_triad};

/* Scalar: plain C, the fallback for CPUs without the x86 vector units. */
#define SC_LOAD(p) (*(p))
#define SC_STORE(p, v) (*(p) = (v))
#define SC_ADD(a, b) ((a) + (b))
#define SC_MUL(a, b) ((a) * (b))
#define SC_SPLAT(v) (v)
#define SC_ZERO() 0.0f
#define SC_FENCE() ((void)0)
#define SC_STOREU(lanes, v) ((lanes)[0] = (v))
KERNEL_SET(scalar, , float, 1, SC_LOAD, SC_STORE, SC_STOREU, SC_ADD, SC_MUL, SC_SPLAT, SC_ZERO, SC_FENCE)

#ifdef PROBE_X86
KERNEL_SET(sse2, __attribute__((target("sse2"))), __m128, 4, _mm_load_ps, _mm_stream_ps, _mm_storeu_ps, _mm_add_ps, _mm_mul_ps, _mm_set1_ps,
           _mm_setzero_ps, _mm_sfence)
KERNEL_SET(avx2, __attribute__((target("avx2"))), __m256, 8, _mm256_load_ps, _mm256_stream_ps, _mm256_storeu_ps, _mm256_add_ps,
           _mm256_mul_ps, _mm256_set1_ps, _mm256_setzero_ps, _mm_sfence)
KERNEL_SET(avx512, __attribute__((target("avx512f"))), __m512, 16, _mm512_load_ps, _mm512_stream_ps, _mm512_storeu_ps, _mm512_add_ps,
           _mm512_mul_ps, _mm512_set1_ps, _mm512_setzero_ps, _mm_sfence)
#endif

typedef struct kernel_choice {
    const probe_kernels *k;
    int (*supported)(void);
} kernel_choice;

#ifdef PROBE_X86
static int has_avx512(void) { return __builtin_cpu_supports("avx512f"); }
static int has_avx2(void) { return __builtin_cpu_supports("avx2"); }
static int has_sse2(void) { return __builtin_cpu_supports("sse2"); }
#endif
static int always(void) { return 1; }

/* Widest first. */
static const kernel_choice choices[] = {
#ifdef PROBE_X86
    {&avx512_kernels, has_avx512},
    {&avx2_kernels, has_avx2},
    {&sse2_kernels, has_sse2},
#endif
    {&scalar_kernels, always},
};

const probe_kernels *probe_kernels_best(void) {
    for (size_t i = 0; i < FC_ARRAY_LEN(choices); i++)
        if (choices[i].supported()) return choices[i].k;
    return &scalar_kernels;
}

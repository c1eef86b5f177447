/* SIMD kernels. This file is compiled twice (engine/meson.build): once with
 * AVX2+FMA+F16C and once with AVX-512 (F, BW, VL, VNNI). The only difference
 * is the 8-bit multiply-add: VNNI's vpdpbusd, or AVX2's maddubs+madd pair.
 *
 * A quantized dot product walks 32 weights at a time: load_<type> unpacks them
 * to bytes in a register (the only per-type code), they are multiplied with 32
 * activation bytes, and the eight int32 partial sums are scaled by the weight's
 * per-16 scales times the activation scale. Offsets (Q4_0's -8, K-quant mins)
 * multiply the activation's precomputed sums. With nr = 4 activation rows the
 * weights are unpacked once and used four times (batched prefill). */
#include "engine/quant.h"

#include <immintrin.h>

#if defined(ENG_SIMD_AVX512)
#define FILL_FN eng_kernels_fill_avx512
static inline __m256i dot_u8s8(__m256i u, __m256i s) { return _mm256_dpbusd_epi32(_mm256_setzero_si256(), u, s); }
static inline __m256i bits32(const uint8_t *qh4) {
    uint32_t m;
    memcpy(&m, qh4, 4);
    return _mm256_maskz_set1_epi8(m, 0x10);
}
#else
#define FILL_FN eng_kernels_fill_avx2
static inline __m256i dot_u8s8(__m256i u, __m256i s) {
    return _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1));
}
/* Byte i = 0x10 where bit i of the 32-bit word is set. */
static inline __m256i bits32(const uint8_t *qh4) {
    uint32_t m;
    memcpy(&m, qh4, 4);
    const __m256i pick = _mm256_set_epi64x(0x0303030303030303, 0x0202020202020202, 0x0101010101010101, 0);
    const __m256i bit = _mm256_set1_epi64x((int64_t)0x8040201008040201ull);
    __m256i v = _mm256_and_si256(_mm256_shuffle_epi8(_mm256_set1_epi32((int32_t)m), pick), bit);
    return _mm256_and_si256(_mm256_cmpeq_epi8(v, bit), _mm256_set1_epi8(0x10));
}
#endif

#define ALWAYS_INLINE static inline __attribute__((always_inline))
/* Weights stream from DRAM once per token: asking for them this far ahead
 * keeps more cache-line reads in flight than the hardware prefetcher alone. */
#define ENG_PREFETCH_BYTES 1024

static inline float hsum8(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/* ---- per type: 32 weights of a block as bytes ------------------------------ */

static inline __m256i nib32(const uint8_t *qs) {
    const __m128i m = _mm_set1_epi8(0x0F);
    __m128i b = _mm_loadu_si128((const __m128i *)qs);
    return _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(b, 4), m), _mm_and_si128(b, m));
}
static inline __m256i nib_half(__m256i v, int high) {
    const __m256i m = _mm256_set1_epi8(0x0F);
    return _mm256_and_si256(high ? _mm256_srli_epi16(v, 4) : v, m);
}
static inline __m256i load32(const void *p) { return _mm256_loadu_si256((const __m256i *)p); }

ALWAYS_INLINE __m256i load_q4_0(const void *b, int j) { (void)j; return nib32(((const blk_q4_0 *)b)->qs); }
ALWAYS_INLINE __m256i load_q4_1(const void *b, int j) { (void)j; return nib32(((const blk_q4_1 *)b)->qs); }
ALWAYS_INLINE __m256i load_q5_0(const void *b, int j) {
    (void)j;
    const blk_q5_0 *x = b;
    return _mm256_or_si256(nib32(x->qs), bits32(x->qh));
}
ALWAYS_INLINE __m256i load_q5_1(const void *b, int j) {
    (void)j;
    const blk_q5_1 *x = b;
    return _mm256_or_si256(nib32(x->qs), bits32(x->qh));
}
ALWAYS_INLINE __m256i load_q8_0(const void *b, int j) { (void)j; return load32(((const blk_q8_0 *)b)->qs); }
ALWAYS_INLINE __m256i load_iq4_nl(const void *b, int j) {
    (void)j;
    const __m256i table = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)eng_iq4nl_values));
    return _mm256_shuffle_epi8(table, nib32(((const blk_iq4_nl *)b)->qs));
}
ALWAYS_INLINE __m256i load_q4_K(const void *b, int j) {
    return nib_half(load32(((const blk_q4_K *)b)->qs + 32 * (j / 2)), j & 1);
}
ALWAYS_INLINE __m256i load_q5_K(const void *b, int j) {
    const blk_q5_K *x = b;
    __m256i hi = _mm256_and_si256(_mm256_srl_epi16(load32(x->qh), _mm_cvtsi32_si128(j)), _mm256_set1_epi8(1));
    return _mm256_or_si256(nib_half(load32(x->qs + 32 * (j / 2)), j & 1), _mm256_slli_epi16(hi, 4));
}
ALWAYS_INLINE __m256i load_q6_K(const void *b, int j) {
    const blk_q6_K *x = b;
    int c = j / 4, g = j % 4;
    __m256i lo = nib_half(load32(x->ql + 64 * c + 32 * (g & 1)), g >= 2);
    __m256i hi = _mm256_and_si256(_mm256_srl_epi16(load32(x->qh + 32 * c), _mm_cvtsi32_si128(2 * g)),
                                  _mm256_set1_epi8(3));
    return _mm256_or_si256(lo, _mm256_slli_epi16(hi, 4));
}

/* ---- the generic quantized dot product --------------------------------------
 * SIGNED: q holds signed bytes (Q8_0, IQ4_NL): multiply |q| by sign(q)*a.
 * SUB16: scales change every 16 elements (Q6_K). HAS_OFF: offsets are non-zero.
 * 256-element blocks alternate two accumulators per row to hide the FMA
 * latency; the index must be a compile-time constant after unrolling, or the
 * accumulators live on the stack. */
#define DEFINE_QDOT(T, BLCK, SIGNED, SUB16, HAS_OFF)                                                         \
    ALWAYS_INLINE void qdot_##T(int64_t n, const void *w, const void *act, size_t as, float *out, size_t os,  \
                                const int nr) {                                                               \
        const blk_##T *x = w;                                                                                 \
        const int64_t nb = n / (BLCK);                                                                        \
        __m256 acc[ENG_NR_MAX][2];                                                                            \
        float acco[ENG_NR_MAX];                                                                               \
        for (int r = 0; r < nr; r++) {                                                                        \
            acc[r][0] = acc[r][1] = _mm256_setzero_ps();                                                      \
            acco[r] = 0.0f;                                                                                   \
        }                                                                                                     \
        for (int64_t ib = 0; ib < nb; ib++) {                                                                 \
            float sc[(BLCK) / 16], off[(BLCK) / 16];                                                          \
            _mm_prefetch((const char *)&x[ib] + ENG_PREFETCH_BYTES, _MM_HINT_T0);                             \
            scales_##T(&x[ib], sc, off);                                                                      \
            for (int j = 0; j < (BLCK) / 32; j++) {                                                           \
                const int k = j & 1;                                                                          \
                __m256i q = load_##T(&x[ib], j);                                                              \
                __m256i qu = (SIGNED) ? _mm256_sign_epi8(q, q) : q;                                           \
                __m256 s = (SUB16) ? _mm256_setr_m128(_mm_set1_ps(sc[2 * j]), _mm_set1_ps(sc[2 * j + 1]))     \
                                   : _mm256_setzero_ps();                                                     \
                for (int r = 0; r < nr; r++) {                                                                \
                    const eng_q8a *a = (const eng_q8a *)((const uint8_t *)act + r * as) + ib * ((BLCK) / 32) + j; \
                    __m256i av = load32(a->qs);                                                               \
                    if (SIGNED) av = _mm256_sign_epi8(av, q);                                                 \
                    __m256 p = _mm256_cvtepi32_ps(dot_u8s8(qu, av));                                          \
                    /* one scale per 32: multiply the scalars, broadcast once */                                      \
                    __m256 sd = (SUB16) ? _mm256_mul_ps(s, _mm256_set1_ps(a->d)) : _mm256_set1_ps(sc[2 * j] * a->d);  \
                    acc[r][k] = _mm256_fmadd_ps(p, sd, acc[r][k]);                                                    \
                    if (HAS_OFF && (SUB16)) acco[r] += off[2 * j] * a->ds[0] + off[2 * j + 1] * a->ds[1];             \
                    else if (HAS_OFF) acco[r] += off[2 * j] * a->dsum;                                                \
                }                                                                                             \
            }                                                                                                 \
        }                                                                                                     \
        for (int r = 0; r < nr; r++) out[r * os] = hsum8(_mm256_add_ps(acc[r][0], acc[r][1])) + acco[r];     \
    }                                                                                                         \
    static void vec_dot_##T(int64_t n, const void *w, const void *act, size_t as, int nr, float *out, size_t os) { \
        if (nr == ENG_NR_MAX) {                                                                               \
            qdot_##T(n, w, act, as, out, os, ENG_NR_MAX);                                                     \
            return;                                                                                           \
        }                                                                                                     \
        for (int r = 0; r < nr; r++) qdot_##T(n, w, (const uint8_t *)act + r * as, as, out + r * os, os, 1);  \
    }

DEFINE_QDOT(q4_0, 32, 0, 0, 1)
DEFINE_QDOT(q4_1, 32, 0, 0, 1)
DEFINE_QDOT(q5_0, 32, 0, 0, 1)
DEFINE_QDOT(q5_1, 32, 0, 0, 1)
DEFINE_QDOT(q8_0, 32, 1, 0, 0)
DEFINE_QDOT(iq4_nl, 32, 1, 0, 0)
DEFINE_QDOT(q4_K, 256, 0, 0, 1)
DEFINE_QDOT(q5_K, 256, 0, 0, 1)
DEFINE_QDOT(q6_K, 256, 0, 1, 1)

/* ---- float weights ------------------------------------------------------------ */

ALWAYS_INLINE __m256 load8_f32(const void *w, int64_t i) { return _mm256_loadu_ps((const float *)w + i); }
ALWAYS_INLINE __m256 load8_f16(const void *w, int64_t i) {
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)((const eng_half *)w + i)));
}
ALWAYS_INLINE __m256 load8_bf16(const void *w, int64_t i) {
    __m256i v = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)((const uint16_t *)w + i)));
    return _mm256_castsi256_ps(_mm256_slli_epi32(v, 16));
}
ALWAYS_INLINE float load1_f32(const void *w, int64_t i) { return ((const float *)w)[i]; }
ALWAYS_INLINE float load1_f16(const void *w, int64_t i) { return eng_half_to_float(((const eng_half *)w)[i]); }
ALWAYS_INLINE float load1_bf16(const void *w, int64_t i) { return eng_bf16_to_float(((const uint16_t *)w)[i]); }

#define DEFINE_FDOT(T)                                                                                        \
    ALWAYS_INLINE void fdot_##T(int64_t n, const void *w, const void *act, size_t as, float *out, size_t os,  \
                                const int nr) {                                                               \
        __m256 acc[ENG_NR_MAX][2];                                                                            \
        for (int r = 0; r < nr; r++) acc[r][0] = acc[r][1] = _mm256_setzero_ps();                             \
        int64_t i = 0;                                                                                        \
        for (; i + 16 <= n; i += 16) {                                                                        \
            __m256 w0 = load8_##T(w, i), w1 = load8_##T(w, i + 8);                                            \
            for (int r = 0; r < nr; r++) {                                                                    \
                const float *a = (const float *)((const uint8_t *)act + r * as);                              \
                acc[r][0] = _mm256_fmadd_ps(w0, _mm256_loadu_ps(a + i), acc[r][0]);                           \
                acc[r][1] = _mm256_fmadd_ps(w1, _mm256_loadu_ps(a + i + 8), acc[r][1]);                       \
            }                                                                                                 \
        }                                                                                                     \
        for (int r = 0; r < nr; r++) {                                                                        \
            const float *a = (const float *)((const uint8_t *)act + r * as);                                  \
            float s = hsum8(_mm256_add_ps(acc[r][0], acc[r][1]));                                             \
            for (int64_t t = i; t < n; t++) s += load1_##T(w, t) * a[t];                                      \
            out[r * os] = s;                                                                                  \
        }                                                                                                     \
    }                                                                                                         \
    static void vec_dot_##T(int64_t n, const void *w, const void *act, size_t as, int nr, float *out, size_t os) { \
        if (nr == ENG_NR_MAX) {                                                                               \
            fdot_##T(n, w, act, as, out, os, ENG_NR_MAX);                                                     \
            return;                                                                                           \
        }                                                                                                     \
        for (int r = 0; r < nr; r++) fdot_##T(n, w, (const uint8_t *)act + r * as, as, out + r * os, os, 1);  \
    }

DEFINE_FDOT(f32)
DEFINE_FDOT(f16)
DEFINE_FDOT(bf16)

/* ---- attention over the f16 cache ---------------------------------------------- */

static float dot_f16(const eng_half *k, const float *q, int n) {
    __m256 acc = _mm256_setzero_ps();
    int i = 0;
    for (; i + 8 <= n; i += 8) acc = _mm256_fmadd_ps(load8_f16(k, i), _mm256_loadu_ps(q + i), acc);
    float s = hsum8(acc);
    for (; i < n; i++) s += eng_half_to_float(k[i]) * q[i];
    return s;
}

static void axpy_f16(float *y, float a, const eng_half *v, int n) {
    __m256 av = _mm256_set1_ps(a);
    int i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_fmadd_ps(av, load8_f16(v, i), _mm256_loadu_ps(y + i)));
    for (; i < n; i++) y[i] += a * eng_half_to_float(v[i]);
}

static void to_f16(const float *x, eng_half *y, int n) {
    int i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(y + i), _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT));
    for (; i < n; i++) y[i] = eng_float_to_half(x[i]);
}

#define SET_DOT(ID, T) k->type[ID].vec_dot = vec_dot_##T

void FILL_FN(eng_kernels *k) {
    SET_DOT(GGML_TYPE_F32, f32);
    SET_DOT(GGML_TYPE_F16, f16);
    SET_DOT(GGML_TYPE_BF16, bf16);
    SET_DOT(GGML_TYPE_Q4_0, q4_0);
    SET_DOT(GGML_TYPE_Q4_1, q4_1);
    SET_DOT(GGML_TYPE_Q5_0, q5_0);
    SET_DOT(GGML_TYPE_Q5_1, q5_1);
    SET_DOT(GGML_TYPE_Q8_0, q8_0);
    SET_DOT(GGML_TYPE_IQ4_NL, iq4_nl);
    SET_DOT(GGML_TYPE_Q4_K, q4_K);
    SET_DOT(GGML_TYPE_Q5_K, q5_K);
    SET_DOT(GGML_TYPE_Q6_K, q6_K);
    k->dot_f16 = dot_f16;
    k->axpy_f16 = axpy_f16;
    k->to_f16 = to_f16;
}

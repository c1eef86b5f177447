/* Internal to engine/'s SIMD sources: the per-type unpack of 32 weights to
 * bytes in a register (load_<type>) and of 8 float weights (load8_<type>),
 * the only per-type code of the SIMD kernels. Compiled into each ISA build;
 * ENG_SIMD_AVX512 selects the AVX-512 bit expansion.
 * Both kernels_simd.c and kernels_gemm.c include it. */
#ifndef FC_ENGINE_KERNELS_LOAD_H
#define FC_ENGINE_KERNELS_LOAD_H

#include "engine/quant.h"

#include <immintrin.h>

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* Byte i = 0x10 where bit i of the 32-bit word at qh4 is set. */
#if defined(ENG_SIMD_AVX512)
static inline __m256i bits32(const uint8_t *qh4) {
    uint32_t m;
    memcpy(&m, qh4, 4);
    return _mm256_maskz_set1_epi8(m, 0x10);
}
#else
static inline __m256i bits32(const uint8_t *qh4) {
    uint32_t m;
    memcpy(&m, qh4, 4);
    const __m256i pick = _mm256_set_epi64x(0x0303030303030303, 0x0202020202020202, 0x0101010101010101, 0);
    const __m256i bit = _mm256_set1_epi64x((int64_t)0x8040201008040201ull);
    __m256i v = _mm256_and_si256(_mm256_shuffle_epi8(_mm256_set1_epi32((int32_t)m), pick), bit);
    return _mm256_and_si256(_mm256_cmpeq_epi8(v, bit), _mm256_set1_epi8(0x10));
}
#endif

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

/* 32 weights (sub-block j of a 256-block) as bytes: 0..63 for the unsigned
 * types, -128..127 for Q8_0, IQ4_NL and MXFP4 (quant.h). */
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
ALWAYS_INLINE __m256i load_mxfp4(const void *b, int j) {
    (void)j;
    const __m256i table = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)eng_mxfp4_values));
    return _mm256_shuffle_epi8(table, nib32(((const blk_mxfp4 *)b)->qs));
}
ALWAYS_INLINE __m256i load_iq4_xs(const void *b, int j) {
    const __m256i table = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)eng_iq4nl_values));
    return _mm256_shuffle_epi8(table, nib32(((const blk_iq4_xs *)b)->qs + 16 * j));
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

/* Packed groups (quant.h pk_*): pw_<type> unpacks sub-block j's 8 granule
 * vectors of one group, bytes as load_<type> gives them (Q8_0 signed). */
ALWAYS_INLINE void pk_nib(const uint8_t *qs, __m256i W[8]) {
    for (int v = 0; v < 4; v++) {
        __m256i x = load32(qs + 32 * v);
        W[2 * v] = nib_half(x, 0);
        W[2 * v + 1] = nib_half(x, 1);
    }
}
ALWAYS_INLINE void pw_q4_0(const pk_q4_0 *x, int j, __m256i W[8]) { (void)j; pk_nib(x->qs, W); }
ALWAYS_INLINE void pw_q8_0(const pk_q8_0 *x, int j, __m256i W[8]) {
    (void)j;
    for (int g = 0; g < 8; g++) W[g] = load32(x->qs + 32 * g);
}
ALWAYS_INLINE void pw_q4_K(const pk_q4_K *x, int j, __m256i W[8]) { pk_nib(x->sub[j].qs, W); }
/* Bits 2k..2k+1 of qh vector u become bits 4..5 of granule 4u + k. */
ALWAYS_INLINE void pw_q6_K(const pk_q6_K *x, int j, __m256i W[8]) {
    const __m256i m = _mm256_set1_epi8(0x30);
    pk_nib(x->sub[j].ql, W);
    for (int u = 0; u < 2; u++) {
        __m256i h = load32(x->sub[j].qh + 32 * u);
        W[4 * u] = _mm256_or_si256(W[4 * u], _mm256_and_si256(_mm256_slli_epi16(h, 4), m));
        W[4 * u + 1] = _mm256_or_si256(W[4 * u + 1], _mm256_and_si256(_mm256_slli_epi16(h, 2), m));
        W[4 * u + 2] = _mm256_or_si256(W[4 * u + 2], _mm256_and_si256(h, m));
        W[4 * u + 3] = _mm256_or_si256(W[4 * u + 3], _mm256_and_si256(_mm256_srli_epi16(h, 2), m));
    }
}
/* 8 float weights from element i; load1_<type> for tails. */
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

#endif

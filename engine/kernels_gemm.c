/* Register-blocked matrix products for prefill (nt > 1 tokens). Compiled once
 * per instruction set, like kernels_simd.c (engine/meson.build).
 *
 * The single-row kernels hold 32 consecutive weights of one row in a register,
 * so every (row, token, 32-block) ends in a horizontal sum, a convert and a
 * scalar scale. Here the vector lanes are weight ROWS instead (VL = 16 rows
 * with AVX-512, 8 with AVX2): a panel of rows is unpacked and transposed once
 * per call so that vector g of a block holds bytes 4g..4g+3 of every row. One
 * vpdpbusd with a token's 4 activation bytes broadcast then advances the dot
 * products of all VL rows at once; after a block's 8 steps each lane holds its
 * row's block sum, and one convert, one multiply by the token's scale and one
 * FMA with the rows' scales (a vector) fold it into the float accumulators,
 * plus one FMA for the offsets. A tile is GEMM_RV row vectors x GEMM_NR tokens;
 * the packed panel (ENG_GEMM_ROWS rows x GEMM_KC elements) stays in L1 while
 * it serves every token, which pays for the unpack and transpose.
 *
 * The 8-bit product takes unsigned weights. Q8_0 and IQ4_NL weights are signed:
 * AVX-512 stores them as q + 128 with an extra offset of -128 * scale (one FMA
 * that the offset types pay anyway); AVX2's maddubs would saturate on q + 128
 * (255 * 127 * 2 > 32767), so it multiplies |q| by the activation carrying
 * q's sign instead.
 *
 * Float weights (F32, F16, BF16) use the same panel idea with float lanes: the
 * panel holds the rows converted to f32 and transposed, and each step is one
 * FMA per (row vector, token) with the activation broadcast. */
#include "engine/kernels_load.h"

#include <assert.h>
#include <math.h>

/* Elements of a row packed at a time: the packed panel (at most 24 KiB for
 * quantized types, 64 KiB for floats) stays in L1/L2 while every token
 * passes over it. A multiple of the 256-element K-quant block. */
#define GEMM_KC 512
#define GEMM_FKC 256

#if defined(ENG_SIMD_AVX512)
#define FILL_FN eng_gemm_fill_avx512
#define VL 16
#define GEMM_RV 2      /* row vectors per tile: 2 x 16 rows */
#define GEMM_NR 6      /* tokens per quantized tile: 2 x 6 int + 2 x 6 float accumulators of 32 registers */
#define GEMM_FRV 2     /* row vectors per float tile */
#define GEMM_FNR 8     /* tokens per float tile: 2 x 8 accumulators; GCC keeps the 8 broadcasts in registers */
#define GEMM_FLIP_SIGNED 1
#define ATT_QR 4       /* queries per attention step: 4 x 4 accumulators */
typedef __m512i ivec;
typedef __m512 fvec;
static inline ivec iv_zero(void) { return _mm512_setzero_si512(); }
static inline ivec iv_load(const void *p) { return _mm512_load_si512(p); }
static inline ivec iv_bcast4(const int8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return _mm512_set1_epi32(v);
}
static inline ivec iv_udot(ivec acc, ivec u, ivec s) { return _mm512_dpbusd_epi32(acc, u, s); }
static inline ivec iv_abs8(ivec w) { return _mm512_abs_epi8(w); }
/* s negated where w is negative (AVX-512 has no vpsignb). Only AVX2 takes the
 * |q| * sign path, but the one kernel body must compile for both. */
static inline ivec iv_sign8(ivec s, ivec w) { return _mm512_mask_sub_epi8(s, _mm512_movepi8_mask(w), iv_zero(), s); }
static inline fvec fv_zero(void) { return _mm512_setzero_ps(); }
static inline fvec fv_load(const float *p) { return _mm512_load_ps(p); }
static inline fvec fv_bcast(float x) { return _mm512_set1_ps(x); }
static inline fvec fv_cvt(ivec v) { return _mm512_cvtepi32_ps(v); }
static inline fvec fv_mul(fvec a, fvec b) { return _mm512_mul_ps(a, b); }
static inline fvec fv_add(fvec a, fvec b) { return _mm512_add_ps(a, b); }
static inline fvec fv_fma(fvec a, fvec b, fvec c) { return _mm512_fmadd_ps(a, b, c); }
/* The first n lanes (1..VL) at p. */
static inline fvec fv_load_n(const float *p, int n) {
    return n == VL ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps((__mmask16)((1u << n) - 1), p);
}
static inline void fv_store_n(float *p, fvec v, int n) {
    if (n == VL) _mm512_storeu_ps(p, v);
    else _mm512_mask_storeu_ps(p, (__mmask16)((1u << n) - 1), v);
}
static inline void fv_store(float *p, fvec v) { _mm512_store_ps(p, v); }
static inline fvec fv_loadu(const float *p) { return _mm512_loadu_ps(p); }
static inline fvec fv_abs(fvec v) { return _mm512_abs_ps(v); }
static inline ivec iv_round(fvec v) { return _mm512_cvtps_epi32(v); }
static inline int iv_hsum(ivec v) { return _mm512_reduce_add_epi32(v); }
/* the VL lanes (each within int8) as bytes */
static inline void iv_store_bytes(int8_t *p, ivec v) { _mm_storeu_si128((__m128i *)p, _mm512_cvtsepi32_epi8(v)); }
static inline fvec fv_max(fvec a, fvec b) { return _mm512_max_ps(a, b); }
static inline float fv_hsum(fvec v) { return _mm512_reduce_add_ps(v); }
static inline float fv_hmax(fvec v) { return _mm512_reduce_max_ps(v); }
static inline fvec fv_iota(void) { return _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15); }
static inline fvec fv_round(fvec x) { return _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
/* 2^n for integral n in the normal range */
static inline fvec fv_pow2i(fvec n) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23));
}
/* x where lo <= p <= hi, else y */
static inline fvec fv_in_range(fvec x, fvec p, fvec lo, fvec hi, fvec y) {
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(p, lo, _CMP_GE_OQ) & _mm512_cmp_ps_mask(p, hi, _CMP_LE_OQ), y, x);
}
/* rows[i] holds 8 dwords of row i (i < 16); stores vector g (lane i = dword g
 * of row i) at p + g * stride. Rows i and i + 8 share a register, and each
 * 256-bit half then goes through the usual 8x8 transpose. */
static inline void transpose_store(const __m256i *rows, uint8_t *p, size_t stride) {
    __m512i z[8], t[8], u[8];
    for (int k = 0; k < 8; k++) z[k] = _mm512_inserti64x4(_mm512_castsi256_si512(rows[k]), rows[k + 8], 1);
    for (int k = 0; k < 8; k += 2) {
        t[k] = _mm512_unpacklo_epi32(z[k], z[k + 1]);
        t[k + 1] = _mm512_unpackhi_epi32(z[k], z[k + 1]);
    }
    for (int k = 0; k < 8; k += 4) {
        u[k] = _mm512_unpacklo_epi64(t[k], t[k + 2]);
        u[k + 1] = _mm512_unpackhi_epi64(t[k], t[k + 2]);
        u[k + 2] = _mm512_unpacklo_epi64(t[k + 1], t[k + 3]);
        u[k + 3] = _mm512_unpackhi_epi64(t[k + 1], t[k + 3]);
    }
    /* u[c] (c < 4) has columns c (128-bit lanes 0, 2) and c + 4 (lanes 1, 3)
     * of rows 0-3 and 8-11; u[c + 4] the same of rows 4-7 and 12-15. */
    const __m512i lo = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13), hi = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
    for (int c = 0; c < 4; c++) {
        _mm512_store_si512(p + (size_t)c * stride, _mm512_permutex2var_epi64(u[c], lo, u[c + 4]));
        _mm512_store_si512(p + (size_t)(c + 4) * stride, _mm512_permutex2var_epi64(u[c], hi, u[c + 4]));
    }
}
#else
#define FILL_FN eng_gemm_fill_avx2
#define VL 8
#define GEMM_RV 1      /* 16 registers: 1 x 8 rows */
#define GEMM_NR 4      /* 4 int + 4 float accumulators, weights, signs */
#define GEMM_FRV 2     /* float tile: 2 x 8 rows x 4 tokens, so each broadcast serves two FMAs */
#define GEMM_FNR 4
#define GEMM_FLIP_SIGNED 0
#define ATT_QR 2       /* 2 x 4 accumulators, 4 key or value vectors */
typedef __m256i ivec;
typedef __m256 fvec;
static inline ivec iv_zero(void) { return _mm256_setzero_si256(); }
static inline ivec iv_load(const void *p) { return _mm256_load_si256((const __m256i *)p); }
static inline ivec iv_bcast4(const int8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}
static inline ivec iv_udot(ivec acc, ivec u, ivec s) {
    return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1)));
}
static inline ivec iv_abs8(ivec w) { return _mm256_abs_epi8(w); }
static inline ivec iv_sign8(ivec s, ivec w) { return _mm256_sign_epi8(s, w); }
static inline fvec fv_zero(void) { return _mm256_setzero_ps(); }
static inline fvec fv_load(const float *p) { return _mm256_load_ps(p); }
static inline fvec fv_bcast(float x) { return _mm256_set1_ps(x); }
static inline fvec fv_cvt(ivec v) { return _mm256_cvtepi32_ps(v); }
static inline fvec fv_mul(fvec a, fvec b) { return _mm256_mul_ps(a, b); }
static inline fvec fv_add(fvec a, fvec b) { return _mm256_add_ps(a, b); }
static inline fvec fv_fma(fvec a, fvec b, fvec c) { return _mm256_fmadd_ps(a, b, c); }
static inline __m256i lane_mask(int n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
static inline fvec fv_load_n(const float *p, int n) {
    return n == VL ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, lane_mask(n));
}
static inline void fv_store_n(float *p, fvec v, int n) {
    if (n == VL) _mm256_storeu_ps(p, v);
    else _mm256_maskstore_ps(p, lane_mask(n), v);
}
static inline void fv_store(float *p, fvec v) { _mm256_store_ps(p, v); }
static inline fvec fv_loadu(const float *p) { return _mm256_loadu_ps(p); }
static inline fvec fv_abs(fvec v) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v); }
static inline ivec iv_round(fvec v) { return _mm256_cvtps_epi32(v); }
static inline int iv_hsum(ivec v) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(1, 0, 3, 2)));
    return _mm_cvtsi128_si32(_mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(2, 3, 0, 1))));
}
static inline void iv_store_bytes(int8_t *p, ivec v) {
    __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    _mm_storel_epi64((__m128i *)p, _mm_packs_epi16(w, w));
}
static inline fvec fv_max(fvec a, fvec b) { return _mm256_max_ps(a, b); }
static inline float fv_hsum(fvec v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}
static inline float fv_hmax(fvec v) {
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_max_ss(s, _mm_movehdup_ps(s)));
}
static inline fvec fv_iota(void) { return _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7); }
static inline fvec fv_round(fvec x) { return _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
static inline fvec fv_pow2i(fvec n) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23));
}
static inline fvec fv_in_range(fvec x, fvec p, fvec lo, fvec hi, fvec y) {
    __m256 m = _mm256_and_ps(_mm256_cmp_ps(p, lo, _CMP_GE_OQ), _mm256_cmp_ps(p, hi, _CMP_LE_OQ));
    return _mm256_blendv_ps(y, x, m);
}
/* The 8x8 dword transpose: vector g (lane i = dword g of row i) at p + g * stride. */
static inline void transpose_store(const __m256i *r, uint8_t *p, size_t stride) {
    __m256i t[8], u[8];
    for (int k = 0; k < 8; k += 2) {
        t[k] = _mm256_unpacklo_epi32(r[k], r[k + 1]);
        t[k + 1] = _mm256_unpackhi_epi32(r[k], r[k + 1]);
    }
    for (int k = 0; k < 8; k += 4) {
        u[k] = _mm256_unpacklo_epi64(t[k], t[k + 2]);
        u[k + 1] = _mm256_unpackhi_epi64(t[k], t[k + 2]);
        u[k + 2] = _mm256_unpacklo_epi64(t[k + 1], t[k + 3]);
        u[k + 3] = _mm256_unpackhi_epi64(t[k + 1], t[k + 3]);
    }
    for (int c = 0; c < 4; c++) {
        _mm256_store_si256((__m256i *)(p + (size_t)c * stride), _mm256_permute2x128_si256(u[c], u[c + 4], 0x20));
        _mm256_store_si256((__m256i *)(p + (size_t)(c + 4) * stride), _mm256_permute2x128_si256(u[c], u[c + 4], 0x31));
    }
}
#endif

#define GEMM_ROWS (GEMM_RV * VL)
#define GEMM_FROWS (GEMM_FRV * VL)
static_assert(ENG_GEMM_ROWS % GEMM_ROWS == 0 && ENG_GEMM_ROWS % GEMM_FROWS == 0, "threads split rows in whole tiles");
static_assert(GEMM_KC % QK_K == 0, "a packed chunk holds whole K-quant blocks");
static_assert(VL % ENG_PACK_ROWS == 0 && GEMM_ROWS % ENG_PACK_ROWS == 0, "a row vector holds whole packed groups");
static_assert(GEMM_FKC % 8 == 0, "float panels are packed 8 columns at a time");

/* Token-count dispatch: a tile's loops must unroll over a constant nr so its
 * accumulators stay in registers. */
#define NR_CASE(F, k, ...) case k: F(__VA_ARGS__, k); break;
#define NR_CASES_4(F, ...) NR_CASE(F, 1, __VA_ARGS__) NR_CASE(F, 2, __VA_ARGS__) NR_CASE(F, 3, __VA_ARGS__)            \
    NR_CASE(F, 4, __VA_ARGS__)
#define NR_CASES_6(F, ...) NR_CASES_4(F, __VA_ARGS__) NR_CASE(F, 5, __VA_ARGS__) NR_CASE(F, 6, __VA_ARGS__)
#define NR_CASES_8(F, ...) NR_CASES_6(F, __VA_ARGS__) NR_CASE(F, 7, __VA_ARGS__) NR_CASE(F, 8, __VA_ARGS__)
#if GEMM_NR == 6
#define QNR_CASES NR_CASES_6
#else
#define QNR_CASES NR_CASES_4
#endif
#if GEMM_FNR == 8
#define FNR_CASES NR_CASES_8
#else
#define FNR_CASES NR_CASES_4
#endif

/* Stores (or adds, after the first K chunk) a tile's accumulators to out. */
#define STORE_TILE(RV, acc, out, os, nrows, accumulate, nr)                                                            \
    for (int rv = 0; rv < (RV) && rv * VL < (nrows); rv++)                                                             \
        for (int t = 0; t < (nr); t++) {                                                                               \
            float *o_ = (out) + (size_t)t * (os) + rv * VL;                                                            \
            int n_ = (nrows) - rv * VL < VL ? (nrows) - rv * VL : VL;                                                  \
            fv_store_n(o_, (accumulate) ? fv_add(acc[rv][t], fv_load_n(o_, n_)) : acc[rv][t], n_);                     \
        }

/* ---- quantized weights ---------------------------------------------------------
 * Packed panel, per 32-block and row vector: 8 vectors of weight bytes, then
 * NSUB vectors of scales and NSUB of offsets (NSUB = 2 when the scale changes
 * every 16 elements, Q6_K). */
#define QPACK_BYTES(nsub) ((size_t)VL * (32 + 8 * (nsub)))
#define QPANEL_BYTES (GEMM_KC / 32 * GEMM_RV * QPACK_BYTES(2))

/* One tile: nr tokens (act rows as bytes apart, from 32-block ab0) times the
 * panel's rows, over nb 32-blocks. */
ALWAYS_INLINE void qtile(const uint8_t *panel, int64_t nb, const uint8_t *act, size_t as, int64_t ab0, float *out,
                         size_t os, int nrows, int accumulate, const int nsub, const int sgn, const int has_off,
                         const int nr) {
    const int steps = 8 / nsub;
    const eng_q8a *a[GEMM_NR];
    fvec acc[GEMM_RV][GEMM_NR];
    for (int t = 0; t < nr; t++) {
        a[t] = (const eng_q8a *)(act + (size_t)t * as) + ab0;
        for (int rv = 0; rv < GEMM_RV; rv++) acc[rv][t] = fv_zero();
    }
    for (int64_t b = 0; b < nb; b++, panel += GEMM_RV * QPACK_BYTES(nsub)) {
        for (int h = 0; h < nsub; h++) {
            ivec ia[GEMM_RV][GEMM_NR];
            for (int rv = 0; rv < GEMM_RV; rv++)
                for (int t = 0; t < nr; t++) ia[rv][t] = iv_zero();
            for (int g = h * steps; g < (h + 1) * steps; g++)
                for (int rv = 0; rv < GEMM_RV; rv++) {
                    ivec w = iv_load(panel + rv * QPACK_BYTES(nsub) + (size_t)g * VL * 4);
                    ivec wu = sgn ? iv_abs8(w) : w;
                    for (int t = 0; t < nr; t++) {
                        ivec s = iv_bcast4(a[t][b].qs + 4 * g);
                        ia[rv][t] = iv_udot(ia[rv][t], wu, sgn ? iv_sign8(s, w) : s);
                    }
                }
            for (int rv = 0; rv < GEMM_RV; rv++) {
                const float *sc = (const float *)(panel + rv * QPACK_BYTES(nsub) + 32 * VL);
                fvec s = fv_load(sc + h * VL), o = fv_load(sc + (nsub + h) * VL);
                for (int t = 0; t < nr; t++) {
                    acc[rv][t] = fv_fma(fv_mul(fv_cvt(ia[rv][t]), fv_bcast(a[t][b].d)), s, acc[rv][t]);
                    if (has_off) acc[rv][t] = fv_fma(o, fv_bcast(nsub == 2 ? a[t][b].ds[h] : a[t][b].dsum), acc[rv][t]);
                }
            }
        }
    }
    STORE_TILE(GEMM_RV, acc, out, os, nrows, accumulate, nr)
}

/* The quantized GEMM over panels: PACK fills a panel from rows (STEP 1:
 * row-major, rs bytes apart) or from packed groups (STEP ENG_PACK_ROWS: group_bytes
 * apart) and TILE runs it against every token. */
#define DEFINE_QDRIVER(NAME, PACK, TILE, BLCK, STEP)                                                                 \
    static void NAME(int64_t n, const void *w, size_t rs, int64_t nrows, const void *act, size_t as, int nt,           \
                     float *out, size_t os) {                                                                          \
        _Alignas(64) uint8_t panel[QPANEL_BYTES];                                                                      \
        for (int64_t r0 = 0; r0 < nrows; r0 += GEMM_ROWS) {                                                            \
            int mr = nrows - r0 < GEMM_ROWS ? (int)(nrows - r0) : GEMM_ROWS;                                           \
            for (int64_t k0 = 0; k0 < n; k0 += GEMM_KC) {                                                              \
                int64_t kc = n - k0 < GEMM_KC ? n - k0 : GEMM_KC;                                                      \
                PACK((const uint8_t *)w + (size_t)(r0 / (STEP)) * rs, rs, (mr + (STEP) - 1) / (STEP), k0 / (BLCK),      \
                     kc / (BLCK), panel);                                                                              \
                for (int t0 = 0; t0 < nt; t0 += GEMM_NR) {                                                             \
                    switch (nt - t0 < GEMM_NR ? nt - t0 : GEMM_NR) {                                                   \
                        QNR_CASES(TILE, panel, kc / 32, (const uint8_t *)act + (size_t)t0 * as, as, k0 / 32,           \
                                  out + (size_t)t0 * os + r0, os, mr, k0 > 0)                                          \
                    }                                                                                                  \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
    }

/* SIGNED: q holds signed bytes (Q8_0, IQ4_NL). SUB16: scales change every 16
 * elements (Q6_K). HAS_OFF: offsets are non-zero. pack_<type> unpacks
 * super-blocks [ib0, ib0 + nib) of nrows (<= GEMM_ROWS) rows into the panel;
 * rows past nrows are zero. */
#define DEFINE_QGEMM(T, ID, BLCK, SIGNED, SUB16, HAS_OFF)                                                                  \
    static void pack_##T(const uint8_t *w, size_t rs, int nrows, int64_t ib0, int64_t nib, uint8_t *panel) {           \
        enum { NSUB = (SUB16) ? 2 : 1, NJ = (BLCK) / 32, FLIP = (SIGNED) && GEMM_FLIP_SIGNED };                        \
        for (int64_t ib = 0; ib < nib; ib++)                                                                           \
            for (int rv = 0; rv < GEMM_RV; rv++) {                                                                     \
                const blk_##T *x[VL];                                                                                  \
                float sc[VL][(BLCK) / 16], off[VL][(BLCK) / 16];                                                       \
                for (int i = 0; i < VL; i++) {                                                                         \
                    int r = rv * VL + i;                                                                               \
                    x[i] = r < nrows ? (const blk_##T *)(w + (size_t)r * rs) + ib0 + ib : NULL;                        \
                    if (x[i]) scales_##T(x[i], sc[i], off[i]);                                                         \
                    else memset(sc[i], 0, sizeof sc[i]), memset(off[i], 0, sizeof off[i]);                             \
                }                                                                                                      \
                for (int j = 0; j < NJ; j++) {                                                                         \
                    uint8_t *p = panel + ((size_t)(ib * NJ + j) * GEMM_RV + rv) * QPACK_BYTES(NSUB);                   \
                    __m256i rows[VL];                                                                                  \
                    for (int i = 0; i < VL; i++) {                                                                     \
                        rows[i] = x[i] ? load_##T(x[i], j) : _mm256_setzero_si256();                                   \
                        if (FLIP) rows[i] = _mm256_xor_si256(rows[i], _mm256_set1_epi8((char)0x80));                   \
                    }                                                                                                  \
                    transpose_store(rows, p, (size_t)VL * 4);                                                          \
                    float *f = (float *)(p + 32 * VL);                                                                 \
                    for (int h = 0; h < NSUB; h++)                                                                     \
                        for (int i = 0; i < VL; i++) {                                                                 \
                            f[h * VL + i] = sc[i][2 * j + h];                                                          \
                            f[(NSUB + h) * VL + i] = off[i][2 * j + h] - (FLIP ? 128.0f * sc[i][2 * j] : 0.0f);        \
                        }                                                                                              \
                }                                                                                                      \
            }                                                                                                          \
    }                                                                                                                  \
    ALWAYS_INLINE void qtile_##T(const uint8_t *panel, int64_t nb, const uint8_t *act, size_t as, int64_t ab0,         \
                                 float *out, size_t os, int nrows, int accumulate, const int nr) {                     \
        qtile(panel, nb, act, as, ab0, out, os, nrows, accumulate, (SUB16) ? 2 : 1,                                    \
              (SIGNED) && !GEMM_FLIP_SIGNED, (HAS_OFF) || ((SIGNED) && GEMM_FLIP_SIGNED), nr);                         \
    }                                                                                                                  \
    DEFINE_QDRIVER(gemm_##T, pack_##T, qtile_##T, BLCK, 1)

ENG_QUANT_TYPES(DEFINE_QGEMM)

/* ---- packed weights (quant.h pk_*): the panel filled from 8-row groups -------------
 * A packed group already holds 8 rows' weights in 4-byte granules, the panel's
 * own order: register g of a 32-block is granule g of VL / 8 consecutive
 * groups side by side, so filling the panel is a copy, with no transpose.
 * pw_<type> unpacks sub-block j's 8 granule vectors of one group (bytes as
 * load_<type> gives them), ps_<type> its 8 rows' scales and offsets per 16
 * weights; both follow the layout comments in quant.h. */
ALWAYS_INLINE void ps_q4_0(const pk_q4_0 *x, int j, float sc[2][8], float off[2][8]) {
    (void)j;
    for (int r = 0; r < 8; r++) {
        sc[0][r] = sc[1][r] = eng_half_to_float(x->d[r]);
        off[0][r] = off[1][r] = -8.0f * sc[0][r];
    }
}
ALWAYS_INLINE void ps_q8_0(const pk_q8_0 *x, int j, float sc[2][8], float off[2][8]) {
    (void)j;
    for (int r = 0; r < 8; r++) {
        sc[0][r] = sc[1][r] = eng_half_to_float(x->d[r]);
        off[0][r] = off[1][r] = 0.0f;
    }
}
ALWAYS_INLINE void ps_q4_K(const pk_q4_K *x, int j, float sc[2][8], float off[2][8]) {
    for (int r = 0; r < 8; r++) {
        sc[0][r] = sc[1][r] = eng_half_to_float(x->d[r]) * x->sub[j].sc[r];
        off[0][r] = off[1][r] = -eng_half_to_float(x->dmin[r]) * x->sub[j].m[r];
    }
}
ALWAYS_INLINE void ps_q6_K(const pk_q6_K *x, int j, float sc[2][8], float off[2][8]) {
    for (int h = 0; h < 2; h++)
        for (int r = 0; r < 8; r++) {
            sc[h][r] = eng_half_to_float(x->d[r]) * x->sub[j].sc[h][r];
            off[h][r] = -32.0f * sc[h][r];
        }
}

/* ppack_<type> fills the panel from ngroups (<= GEMM_ROWS / 8) groups, gb bytes
 * apart, super-blocks [ib0, ib0 + nib); missing groups are zero. */
#define DEFINE_PGEMM(T, ID, PK_SCALE)                                                                                    \
    static void ppack_##T(const uint8_t *groups, size_t gb, int ngroups, int64_t ib0, int64_t nib, uint8_t *panel) {   \
        enum { NSUB = (ENG_SUB16_##T) ? 2 : 1, NJ = ENG_BLCK_##T / 32, FLIP = (ENG_SIGNED_##T) && GEMM_FLIP_SIGNED };                         \
        for (int64_t ib = 0; ib < nib; ib++)                                                                           \
            for (int rv = 0; rv < GEMM_RV; rv++)                                                                       \
                for (int j = 0; j < NJ; j++) {                                                                         \
                    uint8_t *p = panel + ((size_t)(ib * NJ + j) * GEMM_RV + rv) * QPACK_BYTES(NSUB);                   \
                    float *f = (float *)(p + 32 * VL);                                                                 \
                    for (int h8 = 0; h8 < VL / ENG_PACK_ROWS; h8++) {                                                  \
                        int gi = rv * (VL / ENG_PACK_ROWS) + h8;                                                       \
                        __m256i W[8];                                                                                  \
                        float sc[2][8] = {{0}}, off[2][8] = {{0}};                                                     \
                        if (gi < ngroups) {                                                                            \
                            const pk_##T *x = (const pk_##T *)(groups + (size_t)gi * gb) + ib0 + ib;                   \
                            pw_##T(x, j, W);                                                                           \
                            ps_##T(x, j, sc, off);                                                                     \
                        } else {                                                                                       \
                            for (int g = 0; g < 8; g++) W[g] = _mm256_setzero_si256();                                 \
                        }                                                                                              \
                        for (int g = 0; g < 8; g++) {                                                                  \
                            if (FLIP) W[g] = _mm256_xor_si256(W[g], _mm256_set1_epi8((char)0x80));                     \
                            _mm256_store_si256((__m256i *)(p + (size_t)g * VL * 4 + h8 * 32), W[g]);                   \
                        }                                                                                              \
                        for (int h = 0; h < NSUB; h++)                                                                 \
                            for (int r = 0; r < ENG_PACK_ROWS; r++) {                                                  \
                                f[h * VL + h8 * 8 + r] = sc[h][r];                                                     \
                                f[(NSUB + h) * VL + h8 * 8 + r] = off[h][r] - (FLIP ? 128.0f * sc[h][r] : 0.0f);       \
                            }                                                                                          \
                    }                                                                                                  \
                }                                                                                                      \
    }                                                                                                                  \
    DEFINE_QDRIVER(gemm_packed_##T, ppack_##T, qtile_##T, ENG_BLCK_##T, ENG_PACK_ROWS)

ENG_PACKED_TYPES(DEFINE_PGEMM)

/* ---- float weights ----------------------------------------------------------------
 * Packed panel: column k of row vector rv at (k * GEMM_FRV + rv) * VL floats. */
#define FPANEL_FLOATS (GEMM_FKC * GEMM_FROWS)

ALWAYS_INLINE void ftile(const float *panel, int64_t kc, const uint8_t *act, size_t as, int64_t k0, float *out,
                         size_t os, int nrows, int accumulate, const int nr) {
    const float *a[GEMM_FNR];
    fvec acc[GEMM_FRV][GEMM_FNR];
    for (int t = 0; t < nr; t++) {
        a[t] = (const float *)(act + (size_t)t * as) + k0;
        for (int rv = 0; rv < GEMM_FRV; rv++) acc[rv][t] = fv_zero();
    }
    for (int64_t k = 0; k < kc; k++, panel += GEMM_FROWS)
        for (int rv = 0; rv < GEMM_FRV; rv++) {
            fvec w = fv_load(panel + rv * VL);
            for (int t = 0; t < nr; t++) acc[rv][t] = fv_fma(w, fv_bcast(a[t][k]), acc[rv][t]);
        }
    STORE_TILE(GEMM_FRV, acc, out, os, nrows, accumulate, nr)
}

/* fpack_<type> converts columns [k0, k0 + kc) of nrows rows into the panel;
 * rows past nrows and columns past kc (up to a multiple of 8) are zero. */
#define DEFINE_FGEMM(T)                                                                                                \
    static void fpack_##T(const uint8_t *w, size_t rs, int nrows, int64_t k0, int64_t kc, float *panel) {              \
        for (int64_t k = 0; k < kc; k += 8)                                                                            \
            for (int rv = 0; rv < GEMM_FRV; rv++) {                                                                    \
                __m256i rows[VL];                                                                                      \
                for (int i = 0; i < VL; i++) {                                                                         \
                    int r = rv * VL + i;                                                                               \
                    const uint8_t *row = w + (size_t)r * rs;                                                           \
                    if (r >= nrows) {                                                                                  \
                        rows[i] = _mm256_setzero_si256();                                                              \
                    } else if (k + 8 <= kc) {                                                                          \
                        rows[i] = _mm256_castps_si256(load8_##T(row, k0 + k));                                         \
                    } else {                                                                                           \
                        float tail[8] = {0};                                                                           \
                        for (int64_t e = 0; e < kc - k; e++) tail[e] = load1_##T(row, k0 + k + e);                     \
                        rows[i] = _mm256_castps_si256(_mm256_loadu_ps(tail));                                          \
                    }                                                                                                  \
                }                                                                                                      \
                transpose_store(rows, (uint8_t *)(panel + ((size_t)k * GEMM_FRV + rv) * VL),                           \
                                (size_t)GEMM_FROWS * sizeof(float));                                                   \
            }                                                                                                          \
    }                                                                                                                  \
    static void gemm_##T(int64_t n, const void *w, size_t rs, int64_t nrows, const void *act, size_t as, int nt,       \
                         float *out, size_t os) {                                                                      \
        _Alignas(64) float panel[FPANEL_FLOATS];                                                                       \
        for (int64_t r0 = 0; r0 < nrows; r0 += GEMM_FROWS) {                                                           \
            int mr = nrows - r0 < GEMM_FROWS ? (int)(nrows - r0) : GEMM_FROWS;                                         \
            for (int64_t k0 = 0; k0 < n; k0 += GEMM_FKC) {                                                             \
                int64_t kc = n - k0 < GEMM_FKC ? n - k0 : GEMM_FKC;                                                    \
                fpack_##T((const uint8_t *)w + (size_t)r0 * rs, rs, mr, k0, kc, panel);                                \
                for (int t0 = 0; t0 < nt; t0 += GEMM_FNR) {                                                            \
                    switch (nt - t0 < GEMM_FNR ? nt - t0 : GEMM_FNR) {                                                 \
                        FNR_CASES(ftile, panel, kc, (const uint8_t *)act + (size_t)t0 * as, as, k0,                    \
                                  out + (size_t)t0 * os + r0, os, mr, k0 > 0)                                          \
                    }                                                                                                  \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
    }

DEFINE_FGEMM(f32)
DEFINE_FGEMM(f16)
DEFINE_FGEMM(bf16)

/* ---- float decode: one activation row against GEMV_ROWS weight rows at once --------
 * Decoding a float matrix reads every weight once (F16: 2 bytes per
 * multiply-add) and is bound by DRAM, so the kernel's job is to keep enough
 * reads in flight and spend few instructions per byte: GEMV_ROWS rows are
 * GEMV_ROWS independent streams (each with its own software prefetch, as the
 * hardware prefetchers track a few streams per core at most), each activation
 * vector is loaded once for all of them, full-width conversions (16 halves a
 * vpcvtph2ps with AVX-512) and 2 accumulators per row, 8 FMA chains in all:
 * enough to cover the FMA latency. The row-at-a-time vec_dot loaded the
 * activations once per row and ran one stream per call. */
#define GEMV_ROWS 4
/* bytes ahead of each row's read position (F16 decode: see ENG_PREFETCH_BYTES) */
#define GEMV_PREFETCH_BYTES 2048
#if defined(ENG_SIMD_AVX512)
ALWAYS_INLINE fvec fvw_f32(const void *w, int64_t i) { return _mm512_loadu_ps((const float *)w + i); }
ALWAYS_INLINE fvec fvw_f16(const void *w, int64_t i) {
    return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)((const eng_half *)w + i)));
}
ALWAYS_INLINE fvec fvw_bf16(const void *w, int64_t i) {
    __m512i v = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)((const uint16_t *)w + i)));
    return _mm512_castsi512_ps(_mm512_slli_epi32(v, 16));
}
#else
#define fvw_f32 load8_f32
#define fvw_f16 load8_f16
#define fvw_bf16 load8_bf16
#endif

/* The table's gemv entry: GEMV_ROWS rows at a time through ROWS_FN, then the rest one by one. */
#define DEFINE_GEMV_OVER_ROWS(NAME, ROWS_FN, ATTR)                                                                     \
    ATTR static void NAME(int64_t n, const void *w, size_t rs, int64_t nrows, const void *act, size_t as, int nt,      \
                          float *out, size_t os) {                                                                     \
        (void)as, (void)nt, (void)os; /* one activation row */                                                        \
        int64_t r = 0;                                                                                                 \
        for (; r + GEMV_ROWS <= nrows; r += GEMV_ROWS)                                                                 \
            ROWS_FN(n, (const uint8_t *)w + (size_t)r * rs, rs, act, out + r, GEMV_ROWS);                              \
        for (; r < nrows; r++) ROWS_FN(n, (const uint8_t *)w + (size_t)r * rs, rs, act, out + r, 1);                   \
    }

#define DEFINE_FGEMV(T, ESZ)                                                                                           \
    ALWAYS_INLINE void fgemv_rows_##T(int64_t n, const uint8_t *w, size_t rs, const float *a, float *out,          \
                                      const int nr) {                                                                  \
        fvec acc[GEMV_ROWS][2];                                                                                        \
        for (int j = 0; j < nr; j++) acc[j][0] = acc[j][1] = fv_zero();                                                \
        int64_t i = 0;                                                                                                 \
        for (; i + 2 * VL <= n; i += 2 * VL) {                                                                         \
            fvec a0 = fv_loadu(a + i), a1 = fv_loadu(a + i + VL);                                                      \
            for (int j = 0; j < nr; j++) {                                                                             \
                const uint8_t *row = w + (size_t)j * rs;                                                               \
                _mm_prefetch((const char *)row + i * (ESZ) + GEMV_PREFETCH_BYTES, _MM_HINT_T0);                        \
                acc[j][0] = fv_fma(fvw_##T(row, i), a0, acc[j][0]);                                                   \
                acc[j][1] = fv_fma(fvw_##T(row, i + VL), a1, acc[j][1]);                                              \
            }                                                                                                          \
        }                                                                                                              \
        for (int j = 0; j < nr; j++) {                                                                                 \
            float s = fv_hsum(fv_add(acc[j][0], acc[j][1]));                                                           \
            for (int64_t e = i; e < n; e++) s += load1_##T(w + (size_t)j * rs, e) * a[e];                             \
            out[j] = s;                                                                                                \
        }                                                                                                              \
    }                                                                                                                  \
    DEFINE_GEMV_OVER_ROWS(gemv_##T, fgemv_rows_##T, )

DEFINE_FGEMV(f32, 4)
DEFINE_FGEMV(f16, 2)
DEFINE_FGEMV(bf16, 2)

#if defined(ENG_SIMD_AVX512)
/* BF16 decode with AVX512_BF16 (Zen 4, Sapphire Rapids): vdpbf16ps multiplies
 * 32 pairs of bf16 and adds them into 16 float lanes, one instruction per 64
 * bytes of weights, where widening takes a zero-extend, a shift and an FMA
 * per 32 bytes (fvw_bf16): on Zen 4 that widening path decoded at 65% of the
 * read bandwidth, compute-bound (docs/engine.md). The activations are rounded
 * to bf16 once per 32 for all GEMV_ROWS rows, as llama.cpp's BF16 dot does
 * (its vec_dot_type for BF16 is BF16); the sums stay in fp32. */
#define BF16_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))
BF16_TARGET static inline __m512 dp_bf16(__m512 acc, __m512bh a, const uint16_t *w) {
    return _mm512_dpbf16_ps(acc, a, (__m512bh)_mm512_loadu_si512(w));
}
BF16_TARGET static void gemv_rows_bf16_dp(int64_t n, const uint8_t *w, size_t rs, const float *a, float *out, int nr) {
    __m512 acc[GEMV_ROWS][2];
    for (int j = 0; j < nr; j++) acc[j][0] = acc[j][1] = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m512bh a0 = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(a + i));
        __m512bh a1 = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(a + i + 48), _mm512_loadu_ps(a + i + 32));
        for (int j = 0; j < nr; j++) {
            const uint16_t *row = (const uint16_t *)(w + (size_t)j * rs) + i;
            /* a step reads two cache lines of each row: ask for both */
            _mm_prefetch((const char *)row + GEMV_PREFETCH_BYTES, _MM_HINT_T0);
            _mm_prefetch((const char *)row + GEMV_PREFETCH_BYTES + 64, _MM_HINT_T0);
            acc[j][0] = dp_bf16(acc[j][0], a0, row);
            acc[j][1] = dp_bf16(acc[j][1], a1, row + 32);
        }
    }
    for (int j = 0; j < nr; j++) {
        const uint16_t *row = (const uint16_t *)(w + (size_t)j * rs);
        float s = _mm512_reduce_add_ps(_mm512_add_ps(acc[j][0], acc[j][1]));
        /* the tail rounds its activations to bf16 too: every element of a row is multiplied alike */
        for (int64_t e = i; e < n; e++) s += eng_bf16_to_float(row[e]) * eng_bf16_to_float(eng_float_to_bf16(a[e]));
        out[j] = s;
    }
}
DEFINE_GEMV_OVER_ROWS(gemv_bf16_dp, gemv_rows_bf16_dp, BF16_TARGET)
#endif

/* ---- prefill attention ---------------------------------------------------------------
 * A block of queries of one head meets the keys ATT_KB at a time. The key block
 * (f16 or q8_0 cache rows) is converted to f32 and transposed once (lanes = keys) and serves every
 * query: scores are FMAs of ATT_QR queries x 4 key vectors with no horizontal
 * sums. Softmax runs online (a running max and sum per query, rescaling the
 * partial output when the max grows), so no buffer of context length is
 * needed, and uses a vector exp. The probabilities then weight the value rows,
 * ATT_QR queries x 4 value vectors per step. */
#define ATT_KB 64
static_assert(ATT_KB % (4 * VL) == 0 && ENG_ATTN_DIM_ALIGN % (4 * VL) == 0, "attention steps are 4 vectors wide");
static_assert(ENG_ATTN_QB % ATT_QR == 0, "a query block is whole steps");

/* e^x for x <= 0 (Cephes expf: 2^n times a degree-7 polynomial of the
 * remainder, about 1 ulp); 0 below the smallest normal result. */
static inline fvec fv_exp(fvec x) {
    const fvec lo = fv_bcast(-87.0f);
    fvec xc = fv_max(x, lo), n = fv_round(fv_mul(xc, fv_bcast(1.44269504088896341f)));
    fvec r = fv_fma(n, fv_bcast(-0.693359375f), xc);
    r = fv_fma(n, fv_bcast(2.12194440e-4f), r);
    fvec p = fv_bcast(1.9875691500e-4f);
    p = fv_fma(p, r, fv_bcast(1.3981999507e-3f));
    p = fv_fma(p, r, fv_bcast(8.3334519073e-3f));
    p = fv_fma(p, r, fv_bcast(4.1665795894e-2f));
    p = fv_fma(p, r, fv_bcast(1.6666665459e-1f));
    p = fv_fma(p, r, fv_bcast(5.0000001201e-1f));
    p = fv_fma(fv_mul(p, r), r, fv_add(r, fv_bcast(1.0f)));
    return fv_in_range(fv_mul(p, fv_pow2i(n)), x, lo, fv_bcast(0.0f), fv_zero());
}

typedef float att_row[ENG_ATTN_DIM_MAX];
typedef float att_keys[ATT_KB];

/* sb[i][keys] = qb[i] . kt[][keys] for ATT_QR queries, all ATT_KB keys. */
ALWAYS_INLINE void att_scores(const att_row *qb, const att_keys *kt, int hd, att_keys *sb) {
    for (int c0 = 0; c0 < ATT_KB / VL; c0 += 4) {
        fvec acc[ATT_QR][4];
        for (int i = 0; i < ATT_QR; i++)
            for (int c = 0; c < 4; c++) acc[i][c] = fv_zero();
        for (int d = 0; d < hd; d++) {
            fvec kv[4];
            for (int c = 0; c < 4; c++) kv[c] = fv_load(&kt[d][(c0 + c) * VL]);
            for (int i = 0; i < ATT_QR; i++) {
                fvec b = fv_bcast(qb[i][d]);
                for (int c = 0; c < 4; c++) acc[i][c] = fv_fma(kv[c], b, acc[i][c]);
            }
        }
        for (int i = 0; i < ATT_QR; i++)
            for (int c = 0; c < 4; c++) fv_store(&sb[i][(c0 + c) * VL], acc[i][c]);
    }
}

/* ob[i][d0 .. d0 + 4 VL) += sum_j sb[i][j] vb[j][...] for ATT_QR queries, nk keys. */
ALWAYS_INLINE void att_values(const att_keys *sb, const att_row *vb, int nk, int d0, att_row *ob) {
    fvec acc[ATT_QR][4];
    for (int i = 0; i < ATT_QR; i++)
        for (int c = 0; c < 4; c++) acc[i][c] = fv_load(&ob[i][d0 + c * VL]);
    for (int j = 0; j < nk; j++) {
        fvec vv[4];
        for (int c = 0; c < 4; c++) vv[c] = fv_load(&vb[j][d0 + c * VL]);
        for (int i = 0; i < ATT_QR; i++) {
            fvec b = fv_bcast(sb[i][j]);
            for (int c = 0; c < 4; c++) acc[i][c] = fv_fma(vv[c], b, acc[i][c]);
        }
    }
    for (int i = 0; i < ATT_QR; i++)
        for (int c = 0; c < 4; c++) fv_store(&ob[i][d0 + c * VL], acc[i][c]);
}

/* 8 cache values of a row from element d (a multiple of 8) as floats: f16, or
 * q8_0 blocks (the 8 lie in one block). */
static inline __m256 kv_load8(const uint8_t *row, int type, int d) {
    if (type == ENG_KV_Q8_0) {
        const blk_q8_0 *b = (const blk_q8_0 *)row + d / QK32;
        __m256i q = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(b->qs + d % QK32)));
        return _mm256_mul_ps(_mm256_cvtepi32_ps(q), _mm256_set1_ps(eng_half_to_float(b->d)));
    }
    return load8_f16(row, d);
}

static uint32_t att_first(uint32_t pos, uint32_t window) { return window && pos + 1 > window ? pos + 1 - window : 0; }

static void attn(const float *q, size_t qs, int nq, uint32_t pos0, uint32_t step, uint32_t window, const uint8_t *k,
                 size_t k_row,
                 int type_k, const uint8_t *v, size_t v_row, int type_v, int hd, int hv, float scale,
                 const float *sink, uint32_t sink_step, float *out, size_t os) {
    _Alignas(64) att_row qb[ENG_ATTN_QB], ob[ENG_ATTN_QB], vb[ATT_KB];
    _Alignas(64) att_keys kt[ENG_ATTN_DIM_MAX], sb[ENG_ATTN_QB];
    float mx[ENG_ATTN_QB], sum[ENG_ATTN_QB];
    /* rows past nq are zero queries: their scores are finite and unused */
    for (int i = 0; i < ENG_ATTN_QB; i++) {
        for (int d = 0; d < hd; d++) qb[i][d] = i < nq ? q[(size_t)i * qs + d] * scale : 0.0f;
        memset(ob[i], 0, (size_t)hv * sizeof(float));
        mx[i] = -INFINITY;
        sum[i] = 0.0f;
    }
    uint32_t last = pos0 + ((uint32_t)nq - 1) * step;
    int nq_steps = (nq + ATT_QR - 1) / ATT_QR * ATT_QR; /* whole steps; the rest are zero queries */
    for (uint32_t s0 = att_first(pos0, window); s0 <= last; s0 += ATT_KB) {
        int nk = last + 1 - s0 < ATT_KB ? (int)(last + 1 - s0) : ATT_KB;
        for (int j0 = 0; j0 < ATT_KB; j0 += VL)
            for (int d0 = 0; d0 < hd; d0 += 8) {
                __m256i rows[VL];
                for (int i = 0; i < VL; i++)
                    rows[i] = j0 + i < nk ? _mm256_castps_si256(kv_load8(k + (size_t)(s0 + j0 + i) * k_row, type_k, d0))
                                          : _mm256_setzero_si256();
                transpose_store(rows, (uint8_t *)&kt[d0][j0], sizeof(att_keys));
            }
        for (int j = 0; j < nk; j++)
            for (int d = 0; d < hv; d += 8)
                _mm256_store_ps(&vb[j][d], kv_load8(v + (size_t)(s0 + j) * v_row, type_v, d));
        for (int i = 0; i < nq_steps; i += ATT_QR) att_scores(qb + i, kt, hd, sb + i);
        for (int i = 0; i < nq; i++) {
            uint32_t pos = pos0 + (uint32_t)i * step;
            fvec lo = fv_bcast((float)att_first(pos, window)), hi = fv_bcast((float)pos), m = fv_bcast(-INFINITY);
            for (int c = 0; c < ATT_KB; c += VL) {
                fvec x = fv_in_range(fv_load(&sb[i][c]), fv_add(fv_bcast((float)(s0 + (uint32_t)c)), fv_iota()), lo, hi,
                                     fv_bcast(-INFINITY));
                fv_store(&sb[i][c], x);
                m = fv_max(m, x);
            }
            float nm = fmaxf(mx[i], fv_hmax(m));
            if (nm == -INFINITY) { /* no key of this block is visible to query i */
                memset(sb[i], 0, sizeof sb[i]);
                continue;
            }
            float corr = expf(mx[i] - nm);
            fvec ps = fv_zero();
            for (int c = 0; c < ATT_KB; c += VL) {
                fvec p = fv_exp(fv_add(fv_load(&sb[i][c]), fv_bcast(-nm)));
                fv_store(&sb[i][c], p);
                ps = fv_add(ps, p);
            }
            mx[i] = nm;
            sum[i] = sum[i] * corr + fv_hsum(ps);
            if (corr != 1.0f)
                for (int d = 0; d < hv; d += VL) fv_store(&ob[i][d], fv_mul(fv_load(&ob[i][d]), fv_bcast(corr)));
        }
        for (int i = 0; i < nq_steps; i += ATT_QR)
            for (int d = 0; d < hv; d += 4 * VL) att_values(sb + i, vb, nk, d, ob + i);
    }
    for (int i = 0; i < nq; i++) {
        /* a sink joins the denominator as one more score (the running max
         * moves to it when it is larger, and the sums rescale with it) */
        float corr = 1.0f, den = sum[i];
        if (sink) {
            float sk = sink[(size_t)i * sink_step], nm = fmaxf(mx[i], sk);
            corr = expf(mx[i] - nm);
            den = sum[i] * corr + expf(sk - nm);
        }
        for (int d = 0; d < hv; d++) out[(size_t)i * os + d] = ob[i][d] * corr / den;
    }
}

/* ---- activation quantization ---------------------------------------------------------
 * eng_quantize_act (quant.c) with vectors: the same operations in the same
 * order (the conversion rounds half to even like nearbyintf), so the same
 * bytes; the scalar loop calls nearbyintf per value and cost 16% of prefill. */
static void quantize_act(const float *x, eng_q8a *y, int64_t n) {
    for (int64_t b = 0; b < n / 32; b++, x += 32) {
        fvec v[32 / VL], m = fv_zero();
        for (int i = 0; i < 32 / VL; i++) {
            v[i] = fv_loadu(x + i * VL);
            m = fv_max(m, fv_abs(v[i]));
        }
        float d = fv_hmax(m) / 127.0f, id = d > 0.0f ? 1.0f / d : 0.0f;
        int sum[2] = {0, 0};
        for (int i = 0; i < 32 / VL; i++) {
            ivec q = iv_round(fv_mul(v[i], fv_bcast(id)));
            iv_store_bytes(y[b].qs + i * VL, q);
            sum[i * VL / 16] += iv_hsum(q);
        }
        y[b].d = d;
        y[b].ds[0] = d * sum[0];
        y[b].ds[1] = d * sum[1];
        y[b].dsum = d * (sum[0] + sum[1]);
    }
}

#define SET_GEMM(T, ID, ...) k->type[ID].gemm = gemm_##T;
#define SET_GEMV(T, ID) k->type[ID].gemv = gemv_##T;
#define SET_GEMM_PACKED(T, ID, ...) k->type[ID].gemm_packed = gemm_packed_##T;

void FILL_FN(eng_kernels *k) {
    ENG_FLOAT_TYPES(SET_GEMM)
    ENG_FLOAT_TYPES(SET_GEMV)
#if defined(ENG_SIMD_AVX512)
    if (k->isa >= ENG_ISA_AVX512BF16) k->type[GGML_TYPE_BF16].gemv = gemv_bf16_dp;
#endif
    ENG_QUANT_TYPES(SET_GEMM)
    ENG_PACKED_TYPES(SET_GEMM_PACKED)
    k->attn = attn;
    k->quantize_act = quantize_act;
}

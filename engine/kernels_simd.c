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
#include "engine/kernels_load.h"

#if defined(ENG_SIMD_AVX512)
#define FILL_FN eng_kernels_fill_avx512
static inline __m256i dot_u8s8(__m256i u, __m256i s) { return _mm256_dpbusd_epi32(_mm256_setzero_si256(), u, s); }
/* Signed weights x signed activations, accumulated. VNNI multiplies unsigned
 * by signed bytes: weights are stored +128 (pk_prep_signed), and the kernel
 * subtracts 128 * sum(a) through the offset term (PK_SIGNED_BIAS). */
#define PK_SIGNED_BIAS 128.0f
static inline __m256i pk_prep_signed(__m256i w) { return _mm256_xor_si256(w, _mm256_set1_epi8((char)0x80)); }
static inline __m256i dp_s8(__m256i acc, __m256i w, __m256i a) { return _mm256_dpbusd_epi32(acc, w, a); }
static inline __m256i dp_u8(__m256i acc, __m256i w, __m256i a) { return _mm256_dpbusd_epi32(acc, w, a); }
#else
#define FILL_FN eng_kernels_fill_avx2
static inline __m256i dot_u8s8(__m256i u, __m256i s) {
    return _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1));
}
/* maddubs adds pairs of products in int16: 255 * 127 * 2 would saturate, so
 * signed weights keep their sign and multiply |w| by sign(w) * a instead. */
#define PK_SIGNED_BIAS 0.0f
static inline __m256i pk_prep_signed(__m256i w) { return w; }
static inline __m256i dp_s8(__m256i acc, __m256i w, __m256i a) {
    return _mm256_add_epi32(acc, dot_u8s8(_mm256_sign_epi8(w, w), _mm256_sign_epi8(a, w)));
}
static inline __m256i dp_u8(__m256i acc, __m256i w, __m256i a) { return _mm256_add_epi32(acc, dot_u8s8(w, a)); }
#endif

/* Weights stream from DRAM once per token: asking for them this far ahead
 * keeps more cache-line reads in flight than the hardware prefetcher alone
 * (F16 decode, 2 threads: 14.8 t/s at 512 bytes, 18.2 at 2048 and 4096). */
#define ENG_PREFETCH_BYTES 2048

static inline float hsum8(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/* ---- the generic quantized dot product --------------------------------------
 * SIGNED: q holds signed bytes (Q8_0, IQ4_NL): multiply |q| by sign(q)*a.
 * SUB16: scales change every 16 elements (Q6_K). HAS_OFF: offsets are non-zero.
 *
 * qblock_T adds one weight block times one activation row into accumulator
 * chains. A chain is a sum whose next FMA waits for the previous one (4 cycles
 * of latency), so one chain caps a core at a block per 4 cycles, which is
 * below DRAM speed for every type; ENG_CHAINS independent chains, cycled
 * through 32 elements at a time, let the core issue one FMA per cycle. The
 * chain index must be a compile-time constant after unrolling, or the
 * accumulators live on the stack. */
#define ENG_CHAINS 4
/* Blocks per unrolled step: enough 32-element pieces to feed every chain. */
#define ENG_STEP_BLOCKS(BLCK) ((BLCK) >= 32 * ENG_CHAINS ? 1 : ENG_CHAINS * 32 / (BLCK))

#define DEFINE_QDOT(T, ID, BLCK, SIGNED, SUB16, HAS_OFF)                                                         \
    ALWAYS_INLINE void qblock_##T(const blk_##T *x, const eng_q8a *a, __m256 *acc, float *acco, int c0) {    \
        float sc[(BLCK) / 16], off[(BLCK) / 16];                                                              \
        scales_##T(x, sc, off);                                                                               \
        _Pragma("GCC unroll 8") for (int j = 0; j < (BLCK) / 32; j++) {                                       \
            const int k = (c0 + j) % ENG_CHAINS;                                                              \
            __m256i q = load_##T(x, j);                                                                       \
            __m256i qu = (SIGNED) ? _mm256_sign_epi8(q, q) : q;                                               \
            __m256i av = load32(a[j].qs);                                                                     \
            if (SIGNED) av = _mm256_sign_epi8(av, q);                                                         \
            __m256 p = _mm256_cvtepi32_ps(dot_u8s8(qu, av));                                                  \
            /* one scale per 32: multiply the scalars, broadcast once */                                      \
            __m256 sd = (SUB16) ? _mm256_mul_ps(_mm256_setr_m128(_mm_set1_ps(sc[2 * j]), _mm_set1_ps(sc[2 * j + 1])), \
                                                _mm256_set1_ps(a[j].d))                                       \
                                : _mm256_set1_ps(sc[2 * j] * a[j].d);                                         \
            acc[k] = _mm256_fmadd_ps(p, sd, acc[k]);                                                          \
            if (HAS_OFF && (SUB16)) acco[k] += off[2 * j] * a[j].ds[0] + off[2 * j + 1] * a[j].ds[1];         \
            else if (HAS_OFF) acco[k] += off[2 * j] * a[j].dsum;                                              \
        }                                                                                                     \
    }                                                                                                         \
    /* NR activation rows; each row's sums run in the same order whatever NR   \
     * is, so batched and token-by-token results are bit for bit the same. */  \
    ALWAYS_INLINE void qdot_##T(int64_t n, const blk_##T *x, const void *act, size_t as, float *out, size_t os, \
                                const int nr) {                                                               \
        enum { SB = ENG_STEP_BLOCKS(BLCK), PIECES = (BLCK) / 32 };                                            \
        const int64_t nb = n / (BLCK);                                                                        \
        __m256 acc[ENG_NR_MAX][ENG_CHAINS];                                                                   \
        float acco[ENG_NR_MAX][ENG_CHAINS];                                                                   \
        for (int r = 0; r < nr; r++)                                                                          \
            for (int k = 0; k < ENG_CHAINS; k++) {                                                            \
                acc[r][k] = _mm256_setzero_ps();                                                              \
                acco[r][k] = 0.0f;                                                                            \
            }                                                                                                 \
        int64_t ib = 0;                                                                                       \
        for (; ib + SB <= nb; ib += SB) {                                                                     \
            _mm_prefetch((const char *)&x[ib] + ENG_PREFETCH_BYTES, _MM_HINT_T0);                             \
            for (int r = 0; r < nr; r++) {                                                                    \
                const eng_q8a *a = (const eng_q8a *)((const uint8_t *)act + r * as) + ib * PIECES;            \
                _Pragma("GCC unroll 4") for (int u = 0; u < SB; u++)                                          \
                    qblock_##T(&x[ib + u], a + u * PIECES, acc[r], acco[r], u * PIECES);                      \
            }                                                                                                 \
        }                                                                                                     \
        for (; ib < nb; ib++)                                                                                 \
            for (int r = 0; r < nr; r++)                                                                      \
                qblock_##T(&x[ib], (const eng_q8a *)((const uint8_t *)act + r * as) + ib * PIECES, acc[r], acco[r], 0); \
        for (int r = 0; r < nr; r++) {                                                                        \
            __m256 s = _mm256_add_ps(_mm256_add_ps(acc[r][0], acc[r][1]), _mm256_add_ps(acc[r][2], acc[r][3]));  \
            out[r * os] = hsum8(s) + ((acco[r][0] + acco[r][1]) + (acco[r][2] + acco[r][3]));                   \
        }                                                                                                     \
    }                                                                                                         \
    static void vec_dot_##T(int64_t n, const void *w, const void *act, size_t as, int nr, float *out, size_t os) { \
        if (nr == ENG_NR_MAX) {                                                                               \
            qdot_##T(n, w, act, as, out, os, ENG_NR_MAX);                                                     \
            return;                                                                                           \
        }                                                                                                     \
        for (int r = 0; r < nr; r++) qdot_##T(n, w, (const uint8_t *)act + r * as, as, out + r * os, os, 1);  \
    }

ENG_QUANT_TYPES(DEFINE_QDOT)

/* ---- packed weights (quant.h): one register = 4 weights of each of 8 rows ----
 * For each 32 weights (sub-block j) of a group-block: 8 granule registers W,
 * and per token two int32 vectors (weights 0..15 and 16..31 of each row)
 * from 8 multiply-adds against broadcast activation bytes. Then, with the
 * rows' integer scales SC (K-quants), per token
 *     A += d_a * float(SC-scaled sums)      B += OFF * (d_a * sum of a)
 * and at the end of the block acc += D * A - E * B, where D is the rows'
 * scale and E their offset multiplier. Each type supplies its weights
 * (pw_T, kernels_load.h), its per-32 scales (pks_T) and D and E (pkd_T); SCALE says whether
 * the integer scales are absent (0), per 32 (1) or per 16 weights (2). */
/* Every cache line of a group-block is asked for this far ahead: a
 * group-block holds several streams' worth of lines (scales, weights). */
#define ENG_PACK_PREFETCH_BYTES 2048

ALWAYS_INLINE __m256i bcast4(const int8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}
ALWAYS_INLINE __m256 half8(const eng_half *h) { return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)h)); }
ALWAYS_INLINE __m256i ld8_u8(const uint8_t *p) { return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p)); }
ALWAYS_INLINE __m256i ld8_s8(const int8_t *p) { return _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)p)); }

/* Q4_0 and Q8_0: no integer scales, one offset per 32 weights (unit B). */
ALWAYS_INLINE void pks_unit(const void *x, int j, __m256i *s0, __m256i *s1, __m256 *o0, __m256 *o1) {
    (void)x, (void)j, (void)s0, (void)s1;
    *o0 = *o1 = _mm256_set1_ps(1.0f);
}
#define pks_q4_0 pks_unit
#define pks_q8_0 pks_unit
ALWAYS_INLINE void pks_q4_K(const pk_q4_K *x, int j, __m256i *s0, __m256i *s1, __m256 *o0, __m256 *o1) {
    *s0 = *s1 = ld8_u8(x->sub[j].sc);
    *o0 = *o1 = _mm256_cvtepi32_ps(ld8_u8(x->sub[j].m));
}
ALWAYS_INLINE void pks_q6_K(const pk_q6_K *x, int j, __m256i *s0, __m256i *s1, __m256 *o0, __m256 *o1) {
    *s0 = ld8_s8(x->sub[j].sc[0]);
    *s1 = ld8_s8(x->sub[j].sc[1]);
    *o0 = _mm256_cvtepi32_ps(*s0);
    *o1 = _mm256_cvtepi32_ps(*s1);
}

ALWAYS_INLINE void pkd_q4_0(const pk_q4_0 *x, __m256 *d, __m256 *e) {
    *d = half8(x->d);
    *e = _mm256_mul_ps(*d, _mm256_set1_ps(8.0f));
}
ALWAYS_INLINE void pkd_q8_0(const pk_q8_0 *x, __m256 *d, __m256 *e) {
    *d = half8(x->d);
    *e = _mm256_mul_ps(*d, _mm256_set1_ps(PK_SIGNED_BIAS));
}
ALWAYS_INLINE void pkd_q4_K(const pk_q4_K *x, __m256 *d, __m256 *e) {
    *d = half8(x->d);
    *e = half8(x->dmin);
}
ALWAYS_INLINE void pkd_q6_K(const pk_q6_K *x, __m256 *d, __m256 *e) {
    *d = half8(x->d);
    *e = _mm256_mul_ps(*d, _mm256_set1_ps(32.0f));
}

#define DEFINE_PACKED(T, ID, SCALE)                                                                           \
    /* One token over one group (decoding; prefill runs kernels_gemm.c's tiles). */                         \
    ALWAYS_INLINE void pkrun_##T(int64_t nb, const pk_##T *x, const eng_q8a *a, float *out) {               \
        __m256 acc = _mm256_setzero_ps();                                                                    \
        for (int64_t ib = 0; ib < nb; ib++, x++) {                                                           \
            for (size_t off = 0; off < sizeof *x; off += 64)                                                 \
                _mm_prefetch((const char *)x + ENG_PACK_PREFETCH_BYTES + off, _MM_HINT_T0);                  \
            __m256 A = _mm256_setzero_ps(), B = A;                                                           \
            for (int j = 0; j < ENG_BLCK_##T / 32; j++, a++) {                                                     \
                __m256i W[8], s0 = _mm256_setzero_si256(), s1 = s0, lo = s0, hi = s0;                        \
                __m256 o0, o1;                                                                               \
                pw_##T(x, j, W);                                                                             \
                if (ENG_SIGNED_##T)                                                                                  \
                    for (int g = 0; g < 8; g++) W[g] = pk_prep_signed(W[g]);                                 \
                pks_##T(x, j, &s0, &s1, &o0, &o1);                                                           \
                for (int g = 0; g < 4; g++) {                                                                \
                    lo = (ENG_SIGNED_##T) ? dp_s8(lo, W[g], bcast4(a->qs + 4 * g)) : dp_u8(lo, W[g], bcast4(a->qs + 4 * g)); \
                    hi = (ENG_SIGNED_##T) ? dp_s8(hi, W[g + 4], bcast4(a->qs + 16 + 4 * g))                         \
                                  : dp_u8(hi, W[g + 4], bcast4(a->qs + 16 + 4 * g));                         \
                }                                                                                            \
                __m256i I = (SCALE) == 0 ? _mm256_add_epi32(lo, hi)                                          \
                          : (SCALE) == 1 ? _mm256_mullo_epi32(_mm256_add_epi32(lo, hi), s0)                  \
                                         : _mm256_add_epi32(_mm256_mullo_epi32(lo, s0), _mm256_mullo_epi32(hi, s1)); \
                A = _mm256_fmadd_ps(_mm256_cvtepi32_ps(I), _mm256_set1_ps(a->d), A);                         \
                if ((SCALE) == 2)                                                                            \
                    B = _mm256_fmadd_ps(o1, _mm256_set1_ps(a->ds[1]), _mm256_fmadd_ps(o0, _mm256_set1_ps(a->ds[0]), B)); \
                else                                                                                         \
                    B = _mm256_fmadd_ps(o0, _mm256_set1_ps(a->dsum), B);                                     \
            }                                                                                                \
            __m256 d, e;                                                                                     \
            pkd_##T(x, &d, &e);                                                                              \
            acc = _mm256_fnmadd_ps(e, B, _mm256_fmadd_ps(d, A, acc));                                        \
        }                                                                                                    \
        _mm256_storeu_ps(out, acc);                                                                          \
    }                                                                                                        \
    static void packed_dot_##T(int64_t n, const void *group, const void *act, size_t as, int nt, float *out, \
                               size_t os) {                                                                  \
        for (int t = 0; t < nt; t++)                                                                         \
            pkrun_##T(n / ENG_BLCK_##T, group, (const eng_q8a *)((const uint8_t *)act + t * as), out + t * os);   \
    }

ENG_PACKED_TYPES(DEFINE_PACKED)

/* ---- float weights ------------------------------------------------------------ */

ALWAYS_INLINE const char *at_f32(const void *w, int64_t i) { return (const char *)((const float *)w + i); }
ALWAYS_INLINE const char *at_f16(const void *w, int64_t i) { return (const char *)((const eng_half *)w + i); }
ALWAYS_INLINE const char *at_bf16(const void *w, int64_t i) { return (const char *)((const uint16_t *)w + i); }
/* ENG_CHAINS accumulators of 8 per row, 32 weights per step (see qdot_T). */
#define DEFINE_FDOT(T)                                                                                        \
    ALWAYS_INLINE void fdot_##T(int64_t n, const void *w, const void *act, size_t as, float *out, size_t os,  \
                                const int nr) {                                                               \
        __m256 acc[ENG_NR_MAX][ENG_CHAINS];                                                                   \
        for (int r = 0; r < nr; r++)                                                                          \
            for (int k = 0; k < ENG_CHAINS; k++) acc[r][k] = _mm256_setzero_ps();                             \
        int64_t i = 0;                                                                                        \
        for (; i + 8 * ENG_CHAINS <= n; i += 8 * ENG_CHAINS) {                                                \
            _mm_prefetch(at_##T(w, i) + ENG_PREFETCH_BYTES, _MM_HINT_T0);                                    \
            __m256 wv[ENG_CHAINS];                                                                            \
            for (int k = 0; k < ENG_CHAINS; k++) wv[k] = load8_##T(w, i + 8 * k);                             \
            for (int r = 0; r < nr; r++) {                                                                    \
                const float *a = (const float *)((const uint8_t *)act + r * as);                              \
                for (int k = 0; k < ENG_CHAINS; k++)                                                          \
                    acc[r][k] = _mm256_fmadd_ps(wv[k], _mm256_loadu_ps(a + i + 8 * k), acc[r][k]);            \
            }                                                                                                 \
        }                                                                                                     \
        for (int r = 0; r < nr; r++) {                                                                        \
            const float *a = (const float *)((const uint8_t *)act + r * as);                                  \
            float s = hsum8(_mm256_add_ps(_mm256_add_ps(acc[r][0], acc[r][1]), _mm256_add_ps(acc[r][2], acc[r][3]))); \
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

/* ---- the KV cache formats (quant.h eng_kv_ops) ---------------------------------- */

static float kv_dot_f16(const void *k, const float *q, int n) {
    __m256 acc = _mm256_setzero_ps();
    int i = 0;
    for (; i + 8 <= n; i += 8) acc = _mm256_fmadd_ps(load8_f16(k, i), _mm256_loadu_ps(q + i), acc);
    float s = hsum8(acc);
    for (; i < n; i++) s += eng_half_to_float(((const eng_half *)k)[i]) * q[i];
    return s;
}

static void kv_axpy_f16(float *y, float a, const void *v, int n) {
    __m256 av = _mm256_set1_ps(a);
    int i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_fmadd_ps(av, load8_f16(v, i), _mm256_loadu_ps(y + i)));
    for (; i < n; i++) y[i] += a * eng_half_to_float(((const eng_half *)v)[i]);
}

static void kv_store_f16(const float *x, void *row, int n) {
    eng_half *y = row;
    int i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(y + i), _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT));
    for (; i < n; i++) y[i] = eng_float_to_half(x[i]);
}

/* 8 values of a Q8_0 block as floats, before the block scale. */
ALWAYS_INLINE __m256 q8_8(const int8_t *qs) {
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)qs)));
}

static float kv_dot_q8_0(const void *k, const float *q, int n) {
    const blk_q8_0 *b = k;
    __m256 acc = _mm256_setzero_ps();
    for (int ib = 0; ib < n / QK32; ib++, q += QK32) {
        __m256 s = _mm256_mul_ps(q8_8(b[ib].qs), _mm256_loadu_ps(q));
        for (int c = 1; c < 4; c++) s = _mm256_fmadd_ps(q8_8(b[ib].qs + 8 * c), _mm256_loadu_ps(q + 8 * c), s);
        acc = _mm256_fmadd_ps(s, _mm256_set1_ps(eng_half_to_float(b[ib].d)), acc);
    }
    return hsum8(acc);
}

static void kv_axpy_q8_0(float *y, float a, const void *v, int n) {
    const blk_q8_0 *b = v;
    for (int ib = 0; ib < n / QK32; ib++, y += QK32) {
        __m256 ad = _mm256_set1_ps(a * eng_half_to_float(b[ib].d));
        for (int c = 0; c < 4; c++)
            _mm256_storeu_ps(y + 8 * c, _mm256_fmadd_ps(ad, q8_8(b[ib].qs + 8 * c), _mm256_loadu_ps(y + 8 * c)));
    }
}

#define SET_DOT(T, ID, ...) k->type[ID].vec_dot = vec_dot_##T;
#define SET_PACKED(T, ID, ...) k->type[ID].packed_dot = packed_dot_##T;

void FILL_FN(eng_kernels *k) {
    ENG_FLOAT_TYPES(SET_DOT)
    ENG_QUANT_TYPES(SET_DOT)
    ENG_PACKED_TYPES(SET_PACKED)
    k->kv[ENG_KV_F16] = (eng_kv_ops){kv_store_f16, kv_dot_f16, kv_axpy_f16};
    k->kv[ENG_KV_Q8_0] = (eng_kv_ops){eng_kv_store_q8_0, kv_dot_q8_0, kv_axpy_q8_0};
}

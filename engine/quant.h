/* Internal to engine/: ggml block layouts, the activation block, and the
 * kernel table.
 *
 * Every quantized weight type is described the same way: a block unpacks to
 * small integers q (int8: 0..63 for the "unsigned" types, -128..127 for Q8_0
 * and IQ4_NL) plus, per 16 elements, a scale and an offset, so that
 * x = scale * q + offset. Q4_0's "-8" becomes offset -8d, a K-quant's min
 * becomes offset -dmin*m. The scalar reference, the dequantizer and the SIMD
 * kernels all use this one description; only the SIMD unpack of q is per type.
 *
 * Activations are quantized to one format, 32 int8 values with a float scale
 * and the scaled sums of each 16-element half (the offsets multiply those). One
 * format instead of ggml's three (Q8_0, Q8_1, Q8_K): per-32 scales are at least
 * as precise as Q8_K's per-256 scale and keep every kernel the same shape. */
#ifndef FC_ENGINE_QUANT_H
#define FC_ENGINE_QUANT_H

#include "engine/engine.h"

#include <string.h>

#define QK32 32
#define QK_K 256
#define ENG_NR_MAX 4 /* activation rows one vec_dot call handles (weight unpacked once) */

typedef uint16_t eng_half;

typedef struct { eng_half d; uint8_t qs[16]; } blk_q4_0;
typedef struct { eng_half d, m; uint8_t qs[16]; } blk_q4_1;
typedef struct { eng_half d; uint8_t qh[4]; uint8_t qs[16]; } blk_q5_0;
typedef struct { eng_half d, m; uint8_t qh[4]; uint8_t qs[16]; } blk_q5_1;
typedef struct { eng_half d; int8_t qs[32]; } blk_q8_0;
typedef struct { eng_half d; uint8_t qs[16]; } blk_iq4_nl;
/* IQ4_XS: IQ4_NL's code book per 256 values, a 6-bit scale per 32 (low 4 bits
 * in scales_l, nibble ib % 2 of byte ib / 2; high 2 bits in bits 2ib of
 * scales_h), each 32's qs laid out as one IQ4_NL block's. */
typedef struct { eng_half d; uint16_t scales_h; uint8_t scales_l[4]; uint8_t qs[128]; } blk_iq4_xs;
/* MXFP4 (gpt-oss experts): 32 E2M1 values (as IQ4_NL's nibbles, through a
 * code book of doubled E2M1 values) and one E8M0 exponent as the scale. */
typedef struct { uint8_t e; uint8_t qs[16]; } blk_mxfp4;
typedef struct { eng_half d, dmin; uint8_t scales[12]; uint8_t qs[128]; } blk_q4_K;
typedef struct { eng_half d, dmin; uint8_t scales[12]; uint8_t qh[32]; uint8_t qs[128]; } blk_q5_K;
typedef struct { uint8_t ql[128]; uint8_t qh[64]; int8_t scales[16]; eng_half d; } blk_q6_K;

/* ---- packed weights: 8 rows interleaved ------------------------------------
 * A matrix-vector product over row-major blocks spends most of its
 * instructions on per-row, per-block bookkeeping (one scale conversion, one
 * horizontal sum per 32 weights of one row). The packed layout puts 8 rows'
 * blocks side by side so that one 256-bit register holds 4 consecutive
 * weights of each of the 8 rows (a "granule"): one vpdpbusd against a
 * broadcast of 4 activation bytes advances all 8 rows, and the 8 rows' scales
 * sit in one vector. llama.cpp repacks the same types for the same reason.
 * Group-blocks are the same size as the 8 blocks they replace (Q4_K: +32
 * bytes of unpacked 6-bit scales per 8 x 256 weights).
 *
 * Within 32 weights, a row's granule g holds weights 4g..4g+3. Nibble types
 * store 4 vectors of 32 bytes; byte 4r+b of vector v holds weight 8v+b of row
 * r in its low nibble and weight 8v+4+b in its high nibble (granules 2v and
 * 2v+1). Q8_0 stores 8 vectors, one per granule, signed. */
#define ENG_PACK_ROWS 8
typedef struct { eng_half d[8]; uint8_t qs[128]; } pk_q4_0;
typedef struct { eng_half d[8]; int8_t qs[256]; } pk_q8_0;
/* K-quants keep each sub-block of 32 weights (its scales, then its weights)
 * together, so a group-block is read front to back as one stream. Q4_K's
 * sub-block j has integer scale sc[r] and min m[r]. */
typedef struct { eng_half d[8], dmin[8]; struct { uint8_t sc[8], m[8]; uint8_t qs[128]; } sub[8]; } pk_q4_K;
/* Q6_K: scales per 16 weights; the low 4 bits as Q4_0's nibbles, and the 2
 * high bits of granule 4u+k in bits 2k..2k+1 of byte 4r+b of qh vector u. */
typedef struct { eng_half d[8]; struct { int8_t sc[2][8]; uint8_t ql[128]; uint8_t qh[64]; } sub[8]; } pk_q6_K;

/* The quantized activation block (see above). */
typedef struct eng_q8a {
    float d;
    float ds[2];  /* d * (sum of each 16-value half): what the offsets multiply */
    float dsum;   /* ds[0] + ds[1], for types with one offset per 32 */
    int8_t qs[32];
} eng_q8a;

/* IQ4_NL's non-linear code book (ggml-common.h kvalues_iq4nl). */
extern const int8_t eng_iq4nl_values[16];
/* MXFP4's code book: twice the E2M1 values (ggml-common.h kvalues_mxfp4),
 * so they are integers; the scale is halved to match (eng_e8m0_half). */
extern const int8_t eng_mxfp4_values[16];

/* An E8M0 exponent x as the float 2^(x - 127) / 2, exactly (ggml-impl.h
 * ggml_e8m0_to_fp32_half: x < 2 gives the subnormals 2^-128, 2^-127). */
static inline float eng_e8m0_half(uint8_t x) {
    uint32_t bits = x < 2 ? 0x00200000u << x : (uint32_t)(x - 1) << 23;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* ---- half precision, exactly (round to nearest even) ---------------------- */

#if defined(__F16C__)
/* The SIMD builds convert with the F16C instruction (same result, exact). */
#include <immintrin.h>
static inline float eng_half_to_float(eng_half h) { return _cvtsh_ss(h); }
#else
static inline float eng_half_to_float(eng_half h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);
    } else if (exp) {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    } else if (man) { /* subnormal: normalise */
        int e = -1;
        do { man <<= 1; e++; } while (!(man & 0x400));
        bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3ff) << 13);
    } else {
        bits = sign;
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}
#endif

static inline eng_half eng_float_to_half(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000, ax = x & 0x7fffffff;
    if (ax > 0x7f800000u) return (eng_half)(sign | 0x7e00);               /* NaN */
    if (ax >= 0x477ff000u) return (eng_half)(sign | 0x7c00);              /* overflow -> inf */
    if (ax < 0x38800000u) {                                               /* subnormal or zero */
        if (ax < 0x33000000u) return (eng_half)sign;
        uint32_t e = ax >> 23, man = (ax & 0x7fffff) | 0x800000, shift = 126 - e;
        uint32_t h = man >> shift, rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1))) h++;
        return (eng_half)(sign | h);
    }
    uint32_t h = ((ax - 0x38000000u) >> 13), rem = ax & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) h++;
    return (eng_half)(sign | h);
}

static inline float eng_bf16_to_float(uint16_t h) {
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* Round to nearest even, as vcvtne2ps2bf16 does; a NaN stays a NaN. */
static inline uint16_t eng_float_to_bf16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40);
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1)) >> 16);
}

/* ---- the kernel table ----------------------------------------------------- */

/* out[r * out_stride] = dot(weight row w, activation row r) for r < nr.
 * Activation rows are eng_q8a blocks (quantized types) or floats (float types),
 * act_stride bytes apart. n is the row length in elements. */
typedef void (*eng_vec_dot_fn)(int64_t n, const void *w, const void *act, size_t act_stride, int nr, float *out,
                               size_t out_stride);
/* out[t * out_stride + r] = dot(weight row r, activation row t) for r < nrows
 * and t < nt: the batched (prefill) product. Rows are row_bytes apart,
 * activation rows act_stride bytes apart, as for vec_dot. */
typedef void (*eng_gemm_fn)(int64_t n, const void *w, size_t row_bytes, int64_t nrows, const void *act,
                            size_t act_stride, int nt, float *out, size_t out_stride);
/* Rows of a GEMM tile: matmul gives each thread whole tiles. */
#define ENG_GEMM_ROWS 32
/* Causal attention for nq <= ENG_ATTN_QB queries over one KV head, query i at
 * position pos0 + i * pos_step: pos_step 1 for a batch of tokens of one head
 * (prefill), 0 for the query heads that share the KV head, at one position
 * (decoding). Query i at q + i * q_stride floats, its output at out +
 * i * out_stride; this head's slice of the KV cache: row s of k at
 * k + s * k_row bytes in cache type type_k (enum eng_kv_type), v likewise.
 * Query i sees keys [pos + 1 - window, pos] (window 0: from 0). Scores are
 * scaled by scale. sink: NULL, or query i's attention sink (gpt-oss) at
 * sink[i * sink_step], a logit that joins the softmax's denominator with no
 * value row (ggml_soft_max_ext's sinks). hd, hv: multiples of
 * ENG_ATTN_DIM_ALIGN, at most ENG_ATTN_DIM_MAX. */
typedef void (*eng_attn_fn)(const float *q, size_t q_stride, int nq, uint32_t pos0, uint32_t pos_step, uint32_t window,
                            const uint8_t *k, size_t k_row, int type_k, const uint8_t *v, size_t v_row, int type_v,
                            int hd, int hv, float scale, const float *sink, uint32_t sink_step, float *out,
                            size_t out_stride);
#define ENG_ATTN_QB 16
#define ENG_ATTN_DIM_ALIGN 64
#define ENG_ATTN_DIM_MAX 256
/* Dequantizes n elements (whole blocks) of a row. */
typedef void (*eng_to_float_fn)(const void *w, float *y, int64_t n);

enum eng_act { ENG_ACT_NONE = 0, ENG_ACT_F32, ENG_ACT_Q8 };

/* out[t * out_stride + r] = dot(row r of a packed group, activation row t)
 * for r < ENG_PACK_ROWS, t < nt. */
typedef void (*eng_packed_dot_fn)(int64_t n, const void *group, const void *act, size_t act_stride, int nt,
                                  float *out, size_t out_stride);
/* Packs or unpacks the blocks of 8 rows: row r's block ib <-> group-block ib. */
typedef void (*eng_pack_fn)(const uint8_t *rows, size_t row_bytes, void *group, int64_t n_blocks);
typedef void (*eng_unpack_fn)(const void *group, int r, uint8_t *row, int64_t n_blocks);

typedef struct eng_type_ops {
    int act;                   /* enum eng_act: what vec_dot wants as activation */
    eng_to_float_fn to_float;
    eng_vec_dot_fn vec_dot;
    /* packed layout; pack_bytes 0: the type stays row-major */
    size_t pack_bytes;         /* bytes of one group-block (8 rows, one block each) */
    eng_pack_fn pack;
    eng_unpack_fn unpack;
    eng_packed_dot_fn packed_dot;
    eng_gemm_fn gemm;          /* NULL: batches go through vec_dot (the scalar build) */
    /* decode of a row-major matrix: gemm with nt = 1 (one activation row),
     * several weight rows at a time; NULL: vec_dot row by row */
    eng_gemm_fn gemv;
    /* gemm over packed groups: w is the first group, row_bytes the group bytes,
     * nrows a multiple of ENG_PACK_ROWS; NULL: batches go through packed_dot */
    eng_gemm_fn gemm_packed;
} eng_type_ops;

/* One KV cache format: a position's K (or V) is one row of values in it;
 * a head's slice of n values starts on a block boundary. */
typedef struct eng_kv_ops {
    void (*store)(const float *x, void *row, int n);
    float (*dot)(const void *k, const float *q, int n);
    void (*axpy)(float *y, float a, const void *v, int n);
} eng_kv_ops;

typedef struct eng_kernels {
    int isa;
    eng_type_ops type[GGML_TYPE_COUNT];  /* indexed by ggml type id; act == NONE: unsupported */
    /* attention over the f16 KV cache */
    eng_kv_ops kv[ENG_KV_TYPE_COUNT];  /* indexed by enum eng_kv_type */
    eng_attn_fn attn;  /* a block of queries at once; NULL: per query with kv[] */
    void (*quantize_act)(const float *x, eng_q8a *y, int64_t n); /* eng_quantize_act, bit for bit */
} eng_kernels;

/* Every weight type the engine runs: the scalar table (quant.c) and the SIMD
 * sources instantiate their kernels and fill their table rows from these
 * lists, so a type's parameters are stated here and nowhere else. A quantized
 * type is (name, ggml id, block size, SIGNED: its unpacked values are signed
 * bytes, SUB16: its scales change every 16 values, HAS_OFF: it has offsets). */
#define ENG_FLOAT_TYPES(X) X(f32, GGML_TYPE_F32) X(f16, GGML_TYPE_F16) X(bf16, GGML_TYPE_BF16)
#define ENG_QUANT_TYPES(X)                                                                                  \
    X(q4_0, GGML_TYPE_Q4_0, 32, 0, 0, 1) X(q4_1, GGML_TYPE_Q4_1, 32, 0, 0, 1)                               \
    X(q5_0, GGML_TYPE_Q5_0, 32, 0, 0, 1) X(q5_1, GGML_TYPE_Q5_1, 32, 0, 0, 1)                               \
    X(q8_0, GGML_TYPE_Q8_0, 32, 1, 0, 0) X(iq4_nl, GGML_TYPE_IQ4_NL, 32, 1, 0, 0)                           \
    X(q4_K, GGML_TYPE_Q4_K, 256, 0, 0, 1) X(q5_K, GGML_TYPE_Q5_K, 256, 0, 0, 1)                             \
    X(q6_K, GGML_TYPE_Q6_K, 256, 0, 1, 1) X(iq4_xs, GGML_TYPE_IQ4_XS, 256, 1, 0, 0)                         \
    X(mxfp4, GGML_TYPE_MXFP4, 32, 1, 0, 0)

/* The same parameters as constants named after the type (ENG_BLCK_q4_K ...),
 * for the lists below that name a type without restating them. */
#define ENG_DECLARE_PARAMS(T, ID, BLCK, SIGNED, SUB16, HAS_OFF) \
    ENG_BLCK_##T = (BLCK), ENG_SIGNED_##T = (SIGNED), ENG_SUB16_##T = (SUB16),
enum { ENG_QUANT_TYPES(ENG_DECLARE_PARAMS) };

/* The types with a packed layout (pk_* above): their scalar pack/unpack/
 * reference dot (pack.c), overridden by the SIMD builds' packed kernels.
 * (name, ggml id, PK_SCALE: the group-block's integer scales are absent (0),
 * per 32 weights (1) or per 16 (2)). */
#define ENG_PACKED_TYPES(X) \
    X(q4_0, GGML_TYPE_Q4_0, 0) X(q8_0, GGML_TYPE_Q8_0, 0) X(q4_K, GGML_TYPE_Q4_K, 1) X(q6_K, GGML_TYPE_Q6_K, 2)
#define ENG_DECLARE_PACK(T, ID, PK_SCALE)                                                                  \
    void eng_pack_##T(const uint8_t *rows, size_t row_bytes, void *group, int64_t n_blocks);               \
    void eng_unpack_##T(const void *group, int r, uint8_t *row, int64_t n_blocks);                         \
    void eng_packed_dot_##T(int64_t n, const void *group, const void *act, size_t as, int nt, float *out,  \
                            size_t os);
ENG_PACKED_TYPES(ENG_DECLARE_PACK)

/* Bytes of n values of a KV cache type (n a multiple of its block; run_state.c). */
size_t eng_kv_bytes(int type, uint32_t n);
/* Writes n floats (a multiple of 32) as Q8_0 blocks (the scalar and SIMD
 * tables share it: a cache row is written once per token). */
void eng_kv_store_q8_0(const float *x, void *row, int n);

/* Kernels for an instruction set (falls back to the best available row by row). */
const eng_kernels *eng_kernels_get(int isa);
/* Quantizes n floats (a multiple of 32) to n/32 activation blocks. */
void eng_quantize_act(const float *x, eng_q8a *y, int64_t n);
/* Bytes of one activation row of n elements for a weight type. */
size_t eng_act_row_bytes(int act, int64_t n);

/* Filled by each SIMD build (kernels_simd.c compiled once per ISA). */
void eng_kernels_fill_avx2(eng_kernels *k);
void eng_kernels_fill_avx512(eng_kernels *k);
/* Filled by each build of kernels_gemm.c. */
void eng_gemm_fill_avx2(eng_kernels *k);
void eng_gemm_fill_avx512(eng_kernels *k);

/* ---- scalar block description (shared by reference and SIMD kernels) ----- */

/* Fills sc[n/16] and off[n/16] for one block. */
static inline void q4k_scale_min(const uint8_t *s, int j, uint8_t *sc, uint8_t *m) {
    if (j < 4) {
        *sc = s[j] & 63;
        *m = s[j + 4] & 63;
    } else {
        *sc = (uint8_t)((s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4));
        *m = (uint8_t)((s[j + 4] >> 4) | ((s[j] >> 6) << 4));
    }
}

static inline void scales_q4_0(const void *b, float *sc, float *off) {
    float d = eng_half_to_float(((const blk_q4_0 *)b)->d);
    sc[0] = sc[1] = d;
    off[0] = off[1] = -8.0f * d;
}
static inline void scales_q4_1(const void *b, float *sc, float *off) {
    const blk_q4_1 *x = b;
    sc[0] = sc[1] = eng_half_to_float(x->d);
    off[0] = off[1] = eng_half_to_float(x->m);
}
static inline void scales_q5_0(const void *b, float *sc, float *off) {
    float d = eng_half_to_float(((const blk_q5_0 *)b)->d);
    sc[0] = sc[1] = d;
    off[0] = off[1] = -16.0f * d;
}
static inline void scales_q5_1(const void *b, float *sc, float *off) {
    const blk_q5_1 *x = b;
    sc[0] = sc[1] = eng_half_to_float(x->d);
    off[0] = off[1] = eng_half_to_float(x->m);
}
static inline void scales_q8_0(const void *b, float *sc, float *off) {
    sc[0] = sc[1] = eng_half_to_float(((const blk_q8_0 *)b)->d);
    off[0] = off[1] = 0.0f;
}
static inline void scales_iq4_nl(const void *b, float *sc, float *off) {
    sc[0] = sc[1] = eng_half_to_float(((const blk_iq4_nl *)b)->d);
    off[0] = off[1] = 0.0f;
}
static inline void scales_mxfp4(const void *b, float *sc, float *off) {
    sc[0] = sc[1] = eng_e8m0_half(((const blk_mxfp4 *)b)->e);
    off[0] = off[1] = 0.0f;
}
static inline void scales_iq4_xs(const void *b, float *sc, float *off) {
    const blk_iq4_xs *x = b;
    float d = eng_half_to_float(x->d);
    for (int ib = 0; ib < 8; ib++) {
        int ls = ((x->scales_l[ib / 2] >> 4 * (ib % 2)) & 0xF) | (((x->scales_h >> 2 * ib) & 3) << 4);
        sc[2 * ib] = sc[2 * ib + 1] = d * (float)(ls - 32);
        off[2 * ib] = off[2 * ib + 1] = 0.0f;
    }
}
/* Q4_K and Q5_K share the 6-bit scale/min packing; the header layout is the same. */
static inline void scales_q4_K(const void *b, float *sc, float *off) {
    const blk_q4_K *x = b;
    float d = eng_half_to_float(x->d), dmin = eng_half_to_float(x->dmin);
    for (int j = 0; j < 8; j++) {
        uint8_t s, m;
        q4k_scale_min(x->scales, j, &s, &m);
        sc[2 * j] = sc[2 * j + 1] = d * s;
        off[2 * j] = off[2 * j + 1] = -dmin * m;
    }
}
#define scales_q5_K scales_q4_K
static inline void scales_q6_K(const void *b, float *sc, float *off) {
    const blk_q6_K *x = b;
    float d = eng_half_to_float(x->d);
    for (int j = 0; j < 16; j++) {
        sc[j] = d * x->scales[j];
        off[j] = -32.0f * d * x->scales[j];
    }
}

#endif

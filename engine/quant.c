/* The scalar reference kernels and the kernel table.
 *
 * Each quantized type contributes two small functions: its scales/offsets
 * (quant.h, shared with the SIMD kernels) and unpack_*, which writes the
 * block's integers. Dequantization and the dot product are then generic. The
 * SIMD builds override table entries; anything they leave empty keeps the
 * scalar entry, so every type always works. */
#include "engine/quant.h"

#include <math.h>
#include <stdlib.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

const int8_t eng_iq4nl_values[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
const int8_t eng_mxfp4_values[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

/* ---- per type: block -> integers ----------------------------------------- */

static void nibbles(const uint8_t *qs, int8_t *q) {
    for (int j = 0; j < 16; j++) {
        q[j] = (int8_t)(qs[j] & 0xF);
        q[j + 16] = (int8_t)(qs[j] >> 4);
    }
}

static void unpack_q4_0(const void *b, int8_t *q) { nibbles(((const blk_q4_0 *)b)->qs, q); }
static void unpack_q4_1(const void *b, int8_t *q) { nibbles(((const blk_q4_1 *)b)->qs, q); }

/* Q5_0/Q5_1: bit j of qh is the fifth bit of element j. */
static void fifth_bits(const uint8_t *qh4, int8_t *q) {
    uint32_t qh;
    memcpy(&qh, qh4, 4);
    for (int j = 0; j < 32; j++) q[j] = (int8_t)(q[j] | (((qh >> j) & 1) << 4));
}
static void unpack_q5_0(const void *b, int8_t *q) {
    const blk_q5_0 *x = b;
    nibbles(x->qs, q);
    fifth_bits(x->qh, q);
}
static void unpack_q5_1(const void *b, int8_t *q) {
    const blk_q5_1 *x = b;
    nibbles(x->qs, q);
    fifth_bits(x->qh, q);
}
static void unpack_q8_0(const void *b, int8_t *q) { memcpy(q, ((const blk_q8_0 *)b)->qs, 32); }
static void unpack_iq4_nl(const void *b, int8_t *q) {
    const blk_iq4_nl *x = b;
    for (int j = 0; j < 16; j++) {
        q[j] = eng_iq4nl_values[x->qs[j] & 0xF];
        q[j + 16] = eng_iq4nl_values[x->qs[j] >> 4];
    }
}
static void unpack_mxfp4(const void *b, int8_t *q) {
    const blk_mxfp4 *x = b;
    for (int j = 0; j < 16; j++) {
        q[j] = eng_mxfp4_values[x->qs[j] & 0xF];
        q[j + 16] = eng_mxfp4_values[x->qs[j] >> 4];
    }
}
static void unpack_iq4_xs(const void *b, int8_t *q) {
    const blk_iq4_xs *x = b;
    for (int ib = 0; ib < 8; ib++)
        for (int j = 0; j < 16; j++) {
            q[32 * ib + j] = eng_iq4nl_values[x->qs[16 * ib + j] & 0xF];
            q[32 * ib + j + 16] = eng_iq4nl_values[x->qs[16 * ib + j] >> 4];
        }
}
/* Q4_K: per 64 elements, 32 bytes: low nibbles first, then high nibbles. */
static void unpack_q4_K(const void *b, int8_t *q) {
    const blk_q4_K *x = b;
    for (int c = 0; c < 4; c++)
        for (int l = 0; l < 32; l++) {
            q[64 * c + l] = (int8_t)(x->qs[32 * c + l] & 0xF);
            q[64 * c + 32 + l] = (int8_t)(x->qs[32 * c + l] >> 4);
        }
}
/* Q5_K: as Q4_K, the fifth bit of element 32*j + l is bit j of qh[l]. */
static void unpack_q5_K(const void *b, int8_t *q) {
    const blk_q5_K *x = b;
    for (int c = 0; c < 4; c++)
        for (int l = 0; l < 32; l++) {
            q[64 * c + l] = (int8_t)((x->qs[32 * c + l] & 0xF) | (((x->qh[l] >> (2 * c)) & 1) << 4));
            q[64 * c + 32 + l] = (int8_t)((x->qs[32 * c + l] >> 4) | (((x->qh[l] >> (2 * c + 1)) & 1) << 4));
        }
}
/* Q6_K: per 128 elements, 64 low-nibble bytes and 32 bytes of 2-bit highs;
 * group g of 32 takes nibble (g >= 2) of ql[l + 32*(g & 1)] and bits 2g of qh[l]. */
static void unpack_q6_K(const void *b, int8_t *q) {
    const blk_q6_K *x = b;
    for (int c = 0; c < 2; c++)
        for (int g = 0; g < 4; g++)
            for (int l = 0; l < 32; l++) {
                uint8_t lo = x->ql[64 * c + 32 * (g & 1) + l];
                lo = g >= 2 ? lo >> 4 : lo & 0xF;
                q[128 * c + 32 * g + l] = (int8_t)(lo | (((x->qh[32 * c + l] >> (2 * g)) & 3) << 4));
            }
}

/* ---- generic scalar kernels ---------------------------------------------- */

/* One description per quantized type, from the type list (quant.h). */
typedef struct qdesc {
    uint32_t blck;
    void (*unpack)(const void *b, int8_t *q);
    void (*scales)(const void *b, float *sc, float *off);
} qdesc;

static void dequant_generic(const qdesc *qd, uint32_t bytes, const void *w, float *y, int64_t n) {
    int8_t q[QK_K];
    float sc[QK_K / 16], off[QK_K / 16];
    const uint8_t *p = w;
    for (int64_t i = 0; i < n; i += qd->blck, p += bytes) {
        qd->unpack(p, q);
        qd->scales(p, sc, off);
        for (uint32_t e = 0; e < qd->blck; e++) y[i + e] = sc[e / 16] * q[e] + off[e / 16];
    }
}

static void dot_generic(const qdesc *qd, uint32_t bytes, int64_t n, const void *w, const void *act,
                        size_t act_stride, int nr, float *out, size_t out_stride) {
    for (int r = 0; r < nr; r++) {
        const eng_q8a *a = (const eng_q8a *)((const uint8_t *)act + r * act_stride);
        const uint8_t *p = w;
        int8_t q[QK_K];
        float sc[QK_K / 16], off[QK_K / 16];
        float acc = 0.0f;
        for (int64_t i = 0; i < n; i += qd->blck, p += bytes) {
            qd->unpack(p, q);
            qd->scales(p, sc, off);
            for (uint32_t h = 0; h < qd->blck / 16; h++) {
                const eng_q8a *ab = &a[(i + 16 * h) / 32];
                const int8_t *aq = ab->qs + 16 * (h & 1);
                int32_t isum = 0;
                for (int e = 0; e < 16; e++) isum += q[16 * h + e] * aq[e];
                acc += ab->d * sc[h] * isum + off[h] * ab->ds[h & 1];
            }
        }
        out[r * out_stride] = acc;
    }
}

/* One wrapper pair per type so the table holds plain function pointers. */
#define QTYPE_WRAPPERS(T, ID, BLCK, ...)                                                                    \
    static const qdesc qdesc_##T = {(BLCK), unpack_##T, scales_##T};                                       \
    static void to_float_##T(const void *w, float *y, int64_t n) {                                          \
        dequant_generic(&qdesc_##T, sizeof(blk_##T), w, y, n);                                              \
    }                                                                                                       \
    static void vec_dot_##T(int64_t n, const void *w, const void *act, size_t as, int nr, float *out,      \
                            size_t os) {                                                                    \
        dot_generic(&qdesc_##T, sizeof(blk_##T), n, w, act, as, nr, out, os);                              \
    }
ENG_QUANT_TYPES(QTYPE_WRAPPERS)

/* ---- float weight types ---------------------------------------------------- */

static void to_float_f32(const void *w, float *y, int64_t n) { memcpy(y, w, (size_t)n * 4); }
static void to_float_f16(const void *w, float *y, int64_t n) {
    const eng_half *h = w;
    for (int64_t i = 0; i < n; i++) y[i] = eng_half_to_float(h[i]);
}
static void to_float_bf16(const void *w, float *y, int64_t n) {
    const uint16_t *h = w;
    for (int64_t i = 0; i < n; i++) y[i] = eng_bf16_to_float(h[i]);
}

#define FTYPE_DOT(T, LOAD)                                                                                  \
    static void vec_dot_##T(int64_t n, const void *w, const void *act, size_t as, int nr, float *out,      \
                            size_t os) {                                                                    \
        for (int r = 0; r < nr; r++) {                                                                      \
            const float *a = (const float *)((const uint8_t *)act + r * as);                               \
            float acc = 0.0f;                                                                               \
            for (int64_t i = 0; i < n; i++) acc += LOAD(w, i) * a[i];                                       \
            out[r * os] = acc;                                                                              \
        }                                                                                                   \
    }
#define LOAD_F32(w, i) (((const float *)(w))[i])
#define LOAD_F16(w, i) eng_half_to_float(((const eng_half *)(w))[i])
#define LOAD_BF16(w, i) eng_bf16_to_float(((const uint16_t *)(w))[i])
FTYPE_DOT(f32, LOAD_F32)
FTYPE_DOT(f16, LOAD_F16)
FTYPE_DOT(bf16, LOAD_BF16)

/* ---- KV cache formats ---------------------------------------------------------- */

static float kv_dot_f16(const void *k, const float *q, int n) {
    const eng_half *h = k;
    float acc = 0.0f;
    for (int i = 0; i < n; i++) acc += eng_half_to_float(h[i]) * q[i];
    return acc;
}
static void kv_axpy_f16(float *y, float a, const void *v, int n) {
    const eng_half *h = v;
    for (int i = 0; i < n; i++) y[i] += a * eng_half_to_float(h[i]);
}
static void kv_store_f16(const float *x, void *row, int n) {
    eng_half *h = row;
    for (int i = 0; i < n; i++) h[i] = eng_float_to_half(x[i]);
}

/* Q8_0 rows as llama.cpp writes them (quantize_row_q8_0: scale amax / 127,
 * values rounded half away from zero), so a cache means the same bits in both. */
void eng_kv_store_q8_0(const float *x, void *row, int n) {
    blk_q8_0 *b = row;
    for (int ib = 0; ib < n / QK32; ib++, x += QK32) {
        float amax = 0.0f;
        for (int i = 0; i < QK32; i++) amax = fmaxf(amax, fabsf(x[i]));
        float d = amax / 127.0f, id = d > 0.0f ? 1.0f / d : 0.0f;
        b[ib].d = eng_float_to_half(d);
        for (int i = 0; i < QK32; i++) b[ib].qs[i] = (int8_t)roundf(x[i] * id);
    }
}
static float kv_dot_q8_0(const void *k, const float *q, int n) {
    const blk_q8_0 *b = k;
    float acc = 0.0f;
    for (int ib = 0; ib < n / QK32; ib++, q += QK32) {
        float s = 0.0f;
        for (int i = 0; i < QK32; i++) s += b[ib].qs[i] * q[i];
        acc += eng_half_to_float(b[ib].d) * s;
    }
    return acc;
}
static void kv_axpy_q8_0(float *y, float a, const void *v, int n) {
    const blk_q8_0 *b = v;
    for (int ib = 0; ib < n / QK32; ib++, y += QK32) {
        float ad = a * eng_half_to_float(b[ib].d);
        for (int i = 0; i < QK32; i++) y[i] += ad * b[ib].qs[i];
    }
}

/* ---- activation quantization ------------------------------------------------ */

/* nearbyintf rounds half to even, like the SIMD conversions would. */
void eng_quantize_act(const float *x, eng_q8a *y, int64_t n) {
    for (int64_t b = 0; b < n / 32; b++, x += 32) {
        float amax = 0.0f;
        for (int i = 0; i < 32; i++) amax = fmaxf(amax, fabsf(x[i]));
        float d = amax / 127.0f, id = d > 0.0f ? 1.0f / d : 0.0f;
        int sum[2] = {0, 0};
        for (int i = 0; i < 32; i++) {
            int v = (int)nearbyintf(x[i] * id);
            y[b].qs[i] = (int8_t)v;
            sum[i / 16] += v;
        }
        y[b].d = d;
        y[b].ds[0] = d * sum[0];
        y[b].ds[1] = d * sum[1];
        y[b].dsum = d * (sum[0] + sum[1]);
    }
}

size_t eng_act_row_bytes(int act, int64_t n) {
    return act == ENG_ACT_Q8 ? (size_t)(n / 32) * sizeof(eng_q8a) : (size_t)n * sizeof(float);
}

/* ---- the table ------------------------------------------------------------- */

#define SET_FLOAT(T, ID) k->type[ID] = (eng_type_ops){.act = ENG_ACT_F32, .to_float = to_float_##T, .vec_dot = vec_dot_##T};
#define SET_QUANT(T, ID, ...) k->type[ID] = (eng_type_ops){.act = ENG_ACT_Q8, .to_float = to_float_##T, .vec_dot = vec_dot_##T};
#define SET_PACK(T, ID, ...)                                                                                \
    k->type[ID].pack_bytes = sizeof(pk_##T), k->type[ID].pack = eng_pack_##T, k->type[ID].unpack = eng_unpack_##T, \
    k->type[ID].packed_dot = eng_packed_dot_##T;

/* The scalar table: every type of the lists, nothing else. */
static void scalar_fill(eng_kernels *k) {
    memset(k, 0, sizeof *k);
    k->isa = ENG_ISA_SCALAR;
    ENG_FLOAT_TYPES(SET_FLOAT)
    ENG_QUANT_TYPES(SET_QUANT)
    ENG_PACKED_TYPES(SET_PACK)
    k->kv[ENG_KV_F16] = (eng_kv_ops){kv_store_f16, kv_dot_f16, kv_axpy_f16};
    k->kv[ENG_KV_Q8_0] = (eng_kv_ops){eng_kv_store_q8_0, kv_dot_q8_0, kv_axpy_q8_0};
    k->quantize_act = eng_quantize_act;
}

static eng_kernels kernels[ENG_ISA_COUNT];
static int kernels_ready[ENG_ISA_COUNT];

#if defined(__x86_64__)
/* F16C from cpuid: clang (14) rejects "f16c" in __builtin_cpu_supports, and
 * the fuzz build (scripts/fuzz.sh) compiles this file with clang. */
static bool cpu_has_f16c(void) {
    unsigned a, b, c, d;
    return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C);
}
#endif

int eng_isa_best(void) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni"))
        return __builtin_cpu_supports("avx512bf16") ? ENG_ISA_AVX512BF16 : ENG_ISA_AVX512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && cpu_has_f16c())
        return ENG_ISA_AVX2;
#endif
    return ENG_ISA_SCALAR;
}

static const char *const isa_names[ENG_ISA_COUNT] = {"scalar", "avx2", "avx512", "avx512bf16"};

const char *eng_isa_name(int isa) { return isa >= 0 && isa < ENG_ISA_COUNT ? isa_names[isa] : "?"; }

int eng_isa_from_name(const char *name) {
    for (int i = 0; i < ENG_ISA_COUNT; i++)
        if (!strcmp(name, isa_names[i])) return i;
    return -1;
}

int eng_isa_pick(int asked, int *isa, fc_err *err) {
    const char *env = getenv(ENG_ISA_ENV), *from = "--isa";
    if (asked == ENG_ISA_BEST && env && *env) {
        from = ENG_ISA_ENV;
        if ((asked = eng_isa_from_name(env)) < 0)
            return fc_err_set(err, FC_EINPUT, "%s=%s: not an instruction set (scalar, avx2, avx512, avx512bf16)", ENG_ISA_ENV, env);
    }
    if (asked == ENG_ISA_BEST) asked = eng_isa_best();
    if (asked < 0 || asked >= ENG_ISA_COUNT)
        return fc_err_set(err, FC_EINPUT, "instruction set %d unknown (scalar, avx2, avx512, avx512bf16)", asked);
    if (asked > eng_isa_best())
        return fc_err_set(err, FC_EINPUT, "%s %s: this CPU does not support it (best: %s)", from, eng_isa_name(asked),
                          eng_isa_name(eng_isa_best()));
    *isa = asked;
    return FC_OK;
}

const eng_kernels *eng_kernels_get(int isa) {
    int best = eng_isa_best();
    if (isa < 0 || isa > best) isa = best;
    /* Filling is idempotent and writes the same values, so a race between
     * two first callers is harmless; contexts are created on one thread. */
    if (!kernels_ready[ENG_ISA_SCALAR]) {
        scalar_fill(&kernels[ENG_ISA_SCALAR]);
        kernels_ready[ENG_ISA_SCALAR] = 1;
    }
    if (!kernels_ready[isa]) {
        /* a SIMD table starts as the scalar one: every type always works */
        eng_kernels *k = &kernels[isa];
        *k = kernels[ENG_ISA_SCALAR];
        k->isa = isa;
#if defined(__x86_64__)
        if (isa >= ENG_ISA_AVX512) {
            eng_kernels_fill_avx512(k);
            eng_gemm_fill_avx512(k);
        } else {
            eng_kernels_fill_avx2(k);
            eng_gemm_fill_avx2(k);
        }
#endif
        kernels_ready[isa] = 1;
    }
    return &kernels[isa];
}

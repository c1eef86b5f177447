/* Every kernel of every instruction set against the scalar
 * dequantize-then-dot reference, on random blocks of every supported type,
 * with odd row lengths and 1..4 activation rows; the batched GEMM likewise
 * with row and token counts that are not multiples of its tiles and rows
 * longer than one packed chunk; plus the half-precision
 * conversions and hand-computed blocks that pin down the bit layouts. */
#include "engine/quant.h"
#include "tests/check.h"

#include <string.h>

#define MAX_N (256 * 13)
/* Relative tolerance of a dot product, against sum |w*a|: float accumulation
 * in a different order (SIMD lanes, two accumulators) and nothing else. */
#define DOT_RTOL 2e-5

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}
static float rndf(void) { return (float)((rnd() >> 8) / 16777216.0 * 2.0 - 1.0); }

/* Where each type keeps its fp16 scales: random bytes there could be NaN. */
typedef struct type_case {
    uint32_t type;
    int half_off[2]; /* byte offsets of half fields in a block, -1 = none */
} type_case;

static const type_case cases[] = {
    {GGML_TYPE_F32, {-1, -1}},   {GGML_TYPE_F16, {-1, -1}},  {GGML_TYPE_BF16, {-1, -1}},
    {GGML_TYPE_Q4_0, {0, -1}},   {GGML_TYPE_Q4_1, {0, 2}},   {GGML_TYPE_Q5_0, {0, -1}},
    {GGML_TYPE_Q5_1, {0, 2}},    {GGML_TYPE_Q8_0, {0, -1}},  {GGML_TYPE_IQ4_NL, {0, -1}},
    {GGML_TYPE_Q4_K, {0, 2}},    {GGML_TYPE_Q5_K, {0, 2}},   {GGML_TYPE_Q6_K, {208, -1}},
    {GGML_TYPE_IQ4_XS, {0, -1}}, {GGML_TYPE_MXFP4, {-1, -1}},
};

/* MXFP4's scale is an E8M0 exponent in byte 0: 2^-9 .. 2^-2 keeps the sums finite. */
#define MXFP4_E_LO 118
#define MXFP4_E_SPAN 8

static void random_row(uint32_t type, const type_case *tc, uint8_t *buf, int64_t n) {
    const ggml_type_info *ti = ggml_type_get(type);
    size_t bytes = (size_t)(n / ti->blck) * ti->bytes;
    if (type == GGML_TYPE_F32) {
        for (int64_t i = 0; i < n; i++) ((float *)buf)[i] = rndf();
        return;
    }
    if (type == GGML_TYPE_F16 || type == GGML_TYPE_BF16) {
        for (int64_t i = 0; i < n; i++) {
            float f = rndf();
            uint32_t bits;
            memcpy(&bits, &f, 4);
            ((uint16_t *)buf)[i] = type == GGML_TYPE_F16 ? eng_float_to_half(f) : (uint16_t)(bits >> 16);
        }
        return;
    }
    for (size_t i = 0; i < bytes; i++) buf[i] = (uint8_t)rnd();
    if (type == GGML_TYPE_MXFP4)
        for (int64_t b = 0; b < n / ti->blck; b++) buf[b * ti->bytes] = (uint8_t)(MXFP4_E_LO + rnd() % MXFP4_E_SPAN);
    for (int64_t b = 0; b < n / ti->blck; b++)
        for (int h = 0; h < 2; h++)
            if (tc->half_off[h] >= 0) {
                eng_half v = eng_float_to_half(0.01f + 0.02f * (float)(rnd() % 100) / 100.0f);
                memcpy(buf + b * ti->bytes + tc->half_off[h], &v, 2);
            }
}

/* Reference: dequantize both sides and sum in double. */
static double ref_dot(const eng_kernels *ref, uint32_t type, const uint8_t *w, const void *act, int64_t n, double *mag) {
    static float wf[MAX_N], af[MAX_N];
    ref->type[type].to_float(w, wf, n);
    if (ref->type[type].act == ENG_ACT_Q8) {
        const eng_q8a *a = act;
        for (int64_t i = 0; i < n; i++) af[i] = a[i / 32].d * a[i / 32].qs[i % 32];
    } else {
        memcpy(af, act, (size_t)n * sizeof(float));
    }
    double s = 0;
    *mag = 0;
    for (int64_t i = 0; i < n; i++) {
        s += (double)wf[i] * af[i];
        *mag += fabs((double)wf[i] * af[i]);
    }
    return s;
}

static void test_dots(void) {
    static uint8_t w[MAX_N * 4];
    static float x[ENG_NR_MAX][MAX_N];
    static eng_q8a q[ENG_NR_MAX][MAX_N / 32];
    const eng_kernels *ref = eng_kernels_get(ENG_ISA_SCALAR);
    const int64_t mults[] = {1, 3, 7, 13};
    for (int isa = ENG_ISA_SCALAR; isa <= eng_isa_best(); isa++) {
        const eng_kernels *k = eng_kernels_get(isa);
        CHECK(k->isa == isa);
        for (size_t c = 0; c < FC_ARRAY_LEN(cases); c++) {
            uint32_t type = cases[c].type;
            const ggml_type_info *ti = ggml_type_get(type);
            bool q8 = k->type[type].act == ENG_ACT_Q8;
            CHECK_MSG(k->type[type].vec_dot && k->type[type].to_float, "%s has no kernel", ti->name);
            for (size_t mi = 0; mi < FC_ARRAY_LEN(mults); mi++) {
                /* float types get odd lengths (tails); block types odd block counts */
                int64_t n = ti->blck == 1 ? 32 * mults[mi] + (int64_t)mi * 3 + 1 : ti->blck * mults[mi];
                if (q8 && n % 32) continue;
                random_row(type, &cases[c], w, n);
                for (int r = 0; r < ENG_NR_MAX; r++) {
                    for (int64_t i = 0; i < n; i++) x[r][i] = rndf() * (r + 1);
                    if (q8) eng_quantize_act(x[r], q[r], n);
                }
                const void *act = q8 ? (const void *)q : (const void *)x;
                size_t as = q8 ? sizeof q[0] : sizeof x[0];
                for (int nr = 1; nr <= ENG_NR_MAX; nr++) {
                    float out[ENG_NR_MAX * 3];
                    k->type[type].vec_dot(n, w, act, as, nr, out, 3);
                    for (int r = 0; r < nr; r++) {
                        double mag, want = ref_dot(ref, type, w, (const uint8_t *)act + r * as, n, &mag);
                        CHECK_MSG(fabs(out[r * 3] - want) <= DOT_RTOL * mag + 1e-6,
                                  "%s %s n=%lld nr=%d row %d: %g vs %g (sum|wa| %g)", eng_isa_name(isa), ti->name,
                                  (long long)n, nr, r, out[r * 3], want, mag);
                    }
                }
            }
        }
    }
}

/* Rows x tokens that leave partial tiles on both sides, and row lengths
 * (rounded up to whole blocks) from one block to more than one packed chunk. */
#define GEMM_MAX_ROWS 45
#define GEMM_MAX_TOK 13

/* The packed GEMM on the same rows packed into groups: whole groups, so the
 * first multiple of ENG_PACK_ROWS rows (at least one group). Returns the
 * number of wrong outputs. */
static int check_gemm_packed(const eng_kernels *k, const eng_kernels *ref, uint32_t type,
                             uint8_t (*w)[MAX_N * 4], int64_t n, size_t rb, int nrows, const void *act, size_t as,
                             int nt) {
    static uint8_t rows[ENG_PACK_ROWS * MAX_N * 4], groups[GEMM_MAX_ROWS * MAX_N * 4];
    static float out[GEMM_MAX_TOK][GEMM_MAX_ROWS];
    const eng_type_ops *o = &k->type[type];
    int64_t nb = n / ggml_type_get(type)->blck;
    size_t gb = o->pack_bytes * (size_t)nb;
    int ng = nrows < ENG_PACK_ROWS ? 1 : nrows / ENG_PACK_ROWS, bad = 0;
    for (int g = 0; g < ng; g++) {
        for (int r = 0; r < ENG_PACK_ROWS; r++) memcpy(rows + r * rb, w[g * ENG_PACK_ROWS + r], rb);
        o->pack(rows, rb, groups + g * gb, nb);
    }
    o->gemm_packed(n, groups, gb, ng * ENG_PACK_ROWS, act, as, nt, &out[0][0], GEMM_MAX_ROWS);
    for (int t = 0; t < nt; t++)
        for (int r = 0; r < ng * ENG_PACK_ROWS; r++) {
            double mag, want = ref_dot(ref, type, w[r], (const uint8_t *)act + t * as, n, &mag);
            if (!(fabs(out[t][r] - want) <= DOT_RTOL * mag + 1e-6)) {
                if (!bad) fprintf(stderr, "packed row %d token %d: %g vs %g\n", r, t, out[t][r], want);
                bad++;
            }
        }
    return bad;
}

static void test_gemm(void) {
    static uint8_t w[GEMM_MAX_ROWS][MAX_N * 4];
    static float x[GEMM_MAX_TOK][MAX_N];
    static eng_q8a q[GEMM_MAX_TOK][MAX_N / 32];
    static float out[GEMM_MAX_TOK][GEMM_MAX_ROWS + 3];
    const eng_kernels *ref = eng_kernels_get(ENG_ISA_SCALAR);
    const int64_t lens[] = {32, 96, 1300};
    const int rows[] = {1, 9, GEMM_MAX_ROWS}, toks[] = {2, 7, GEMM_MAX_TOK};
    for (int isa = ENG_ISA_AVX2; isa <= eng_isa_best(); isa++) {
        const eng_kernels *k = eng_kernels_get(isa);
        for (size_t c = 0; c < FC_ARRAY_LEN(cases); c++) {
            uint32_t type = cases[c].type;
            const ggml_type_info *ti = ggml_type_get(type);
            bool q8 = k->type[type].act == ENG_ACT_Q8;
            CHECK_MSG(k->type[type].gemm, "%s %s has no GEMM", eng_isa_name(isa), ti->name);
            if (!k->type[type].gemm) continue;
            for (size_t li = 0; li < FC_ARRAY_LEN(lens); li++) {
                int64_t n = ti->blck == 1 ? lens[li] + (int64_t)li * 3 + 1
                                          : (lens[li] + ti->blck - 1) / ti->blck * ti->blck;
                size_t rb = (size_t)(n / ti->blck) * ti->bytes;
                for (int r = 0; r < GEMM_MAX_ROWS; r++) random_row(type, &cases[c], w[r], n);
                for (int t = 0; t < GEMM_MAX_TOK; t++) {
                    for (int64_t i = 0; i < n; i++) x[t][i] = rndf() * (t % 3 + 1);
                    if (q8) eng_quantize_act(x[t], q[t], n);
                }
                const void *act = q8 ? (const void *)q : (const void *)x;
                size_t as = q8 ? sizeof q[0] : sizeof x[0];
                for (size_t ri = 0; ri < FC_ARRAY_LEN(rows); ri++)
                    for (size_t tj = 0; tj < FC_ARRAY_LEN(toks); tj++) {
                        int nrows = rows[ri], nt = toks[tj], bad = 0;
                        /* weight rows rb bytes apart: copy them together */
                        static uint8_t wm[GEMM_MAX_ROWS * MAX_N * 4];
                        for (int r = 0; r < nrows; r++) memcpy(wm + r * rb, w[r], rb);
                        for (int t = 0; t < GEMM_MAX_TOK; t++)
                            for (int r = 0; r < GEMM_MAX_ROWS + 3; r++) out[t][r] = -1e30f;
                        k->type[type].gemm(n, wm, rb, nrows, act, as, nt, &out[0][0], GEMM_MAX_ROWS + 3);
                        for (int t = 0; t < GEMM_MAX_TOK; t++)
                            for (int r = 0; r < GEMM_MAX_ROWS + 3; r++) {
                                if (t >= nt || r >= nrows) {
                                    bad += out[t][r] != -1e30f; /* written outside the product */
                                    continue;
                                }
                                double mag, want = ref_dot(ref, type, w[r], (const uint8_t *)act + t * as, n, &mag);
                                if (!(fabs(out[t][r] - want) <= DOT_RTOL * mag + 1e-6)) {
                                    if (!bad) fprintf(stderr, "row %d token %d: %g vs %g\n", r, t, out[t][r], want);
                                    bad++;
                                }
                            }
                        CHECK_MSG(!bad, "%s %s gemm n=%lld rows=%d nt=%d: %d wrong", eng_isa_name(isa), ti->name,
                                  (long long)n, nrows, nt, bad);
                        if (k->type[type].gemm_packed)
                            bad = check_gemm_packed(k, ref, type, w, n, rb, nrows, act, as, nt);
                        CHECK_MSG(!bad, "%s %s packed gemm n=%lld rows=%d nt=%d: %d wrong", eng_isa_name(isa),
                                  ti->name, (long long)n, nrows, nt, bad);
                    }
            }
        }
    }
}

/* Block attention against softmax(q.K * scale)V in double, over f16 and q8_0
 * cache rows: query blocks at consecutive positions (prefill) and at one
 * position (decoding's query heads of one KV head), starting at 0 and deep
 * into the cache, partial key blocks, a sliding window, both head sizes of
 * the supported range's ends, with and without attention sinks (one per
 * query, some above every score, some below). */
#define ATT_CTX 300
#define ATT_RTOL 1e-4

static void test_attn(void) {
    /* cache rows (bytes, f16 or q8_0) and the values they hold */
    static uint8_t kc[ATT_CTX][ENG_ATTN_DIM_MAX * 2], vc[ATT_CTX][ENG_ATTN_DIM_MAX * 2];
    static float kf[ATT_CTX][ENG_ATTN_DIM_MAX], vf[ATT_CTX][ENG_ATTN_DIM_MAX], x[ENG_ATTN_DIM_MAX];
    static float q[ENG_ATTN_QB][ENG_ATTN_DIM_MAX], out[ENG_ATTN_QB][ENG_ATTN_DIM_MAX + 1];
    const int dims[] = {ENG_ATTN_DIM_ALIGN, ENG_ATTN_DIM_MAX};
    const uint32_t pos0s[] = {0, 5, 130, ATT_CTX - ENG_ATTN_QB}, windows[] = {0, 37};
    const eng_kernels *sk = eng_kernels_get(ENG_ISA_SCALAR);
    for (int type = 0; type < ENG_KV_TYPE_COUNT; type++) {
        for (int j = 0; j < ATT_CTX; j++) {
            for (int d = 0; d < ENG_ATTN_DIM_MAX; d++) x[d] = rndf();
            sk->kv[type].store(x, kc[j], ENG_ATTN_DIM_MAX);
            for (int d = 0; d < ENG_ATTN_DIM_MAX; d++) x[d] = rndf();
            sk->kv[type].store(x, vc[j], ENG_ATTN_DIM_MAX);
            memset(kf[j], 0, sizeof kf[j]);
            memset(vf[j], 0, sizeof vf[j]);
            sk->kv[type].axpy(kf[j], 1.0f, kc[j], ENG_ATTN_DIM_MAX); /* the cached values, exactly */
            sk->kv[type].axpy(vf[j], 1.0f, vc[j], ENG_ATTN_DIM_MAX);
        }
        for (int isa = ENG_ISA_AVX2; isa <= eng_isa_best(); isa++) {
            const eng_kernels *k = eng_kernels_get(isa);
            CHECK_MSG(k->attn, "%s has no prefill attention", eng_isa_name(isa));
            if (!k->attn) continue;
            for (size_t di = 0; di < FC_ARRAY_LEN(dims); di++)
                for (size_t pi = 0; pi < FC_ARRAY_LEN(pos0s); pi++)
                    for (size_t wi = 0; wi < FC_ARRAY_LEN(windows); wi++)
                        for (int nq = 1; nq <= ENG_ATTN_QB; nq += ENG_ATTN_QB - 3)
                        for (uint32_t step = 0; step <= 1; step++)
                        for (int with_sink = 0; with_sink <= 1; with_sink++) {
                            int hd = dims[di];
                            uint32_t pos0 = pos0s[pi], window = windows[wi];
                            float scale = 1.0f / sqrtf((float)hd);
                            float sinks[ENG_ATTN_QB];
                            for (int i = 0; i < nq; i++) {
                                for (int d = 0; d < hd; d++) q[i][d] = rndf() * 4;
                                sinks[i] = rndf() * 8;
                            }
                            k->attn(&q[0][0], ENG_ATTN_DIM_MAX, nq, pos0, step, window, kc[0], sizeof kc[0], type, vc[0],
                                    sizeof vc[0], type, hd, hd, scale, with_sink ? sinks : NULL, 1, &out[0][0],
                                    ENG_ATTN_DIM_MAX + 1);
                            int bad = 0;
                            for (int i = 0; i < nq; i++) {
                                uint32_t pos = pos0 + (uint32_t)i * step;
                                uint32_t first = window && pos + 1 > window ? pos + 1 - window : 0;
                                double sc[ATT_CTX], mx = with_sink ? sinks[i] : -1e300, sum = 0;
                                for (uint32_t j = first; j <= pos; j++) {
                                    sc[j] = 0;
                                    for (int d = 0; d < hd; d++) sc[j] += (double)q[i][d] * kf[j][d];
                                    sc[j] *= scale;
                                    mx = sc[j] > mx ? sc[j] : mx;
                                }
                                if (with_sink) sum = exp(sinks[i] - mx);
                                for (uint32_t j = first; j <= pos; j++) sum += sc[j] = exp(sc[j] - mx);
                                for (int d = 0; d < hd; d++) {
                                    double want = 0, mag = 0;
                                    for (uint32_t j = first; j <= pos; j++) {
                                        want += sc[j] / sum * vf[j][d];
                                        mag += fabs(sc[j] / sum * vf[j][d]);
                                    }
                                    if (!(fabs(out[i][d] - want) <= ATT_RTOL * mag + 1e-6)) {
                                        if (!bad) fprintf(stderr, "query %d dim %d: %g vs %g\n", i, d, out[i][d], want);
                                        bad++;
                                    }
                                }
                            }
                            CHECK_MSG(!bad, "%s attention %s cache hd=%d pos0=%u step=%u window=%u nq=%d sink=%d: %d wrong",
                                      eng_isa_name(isa), eng_kv_type_name(type), hd, pos0, step, window, nq, with_sink, bad);
                        }
        }
    }
}

/* Packed layout: 8 random rows pack and unpack bit for bit, and every ISA's
 * packed dot product over 1..PACK_NT_MAX tokens matches the reference. */
#define PACK_NT_MAX 9
static void test_packed(void) {
    static uint8_t rows[ENG_PACK_ROWS][MAX_N * 2], back[MAX_N * 2], group[ENG_PACK_ROWS * MAX_N * 2];
    static float x[PACK_NT_MAX][MAX_N];
    static eng_q8a q[PACK_NT_MAX][MAX_N / 32];
    const eng_kernels *ref = eng_kernels_get(ENG_ISA_SCALAR);
    int n_packed = 0;
    for (size_t c = 0; c < FC_ARRAY_LEN(cases); c++) {
        uint32_t type = cases[c].type;
        const eng_type_ops *ops = &ref->type[type];
        if (!ops->pack_bytes) continue;
        n_packed++;
        const ggml_type_info *ti = ggml_type_get(type);
        int64_t n = ti->blck * (ti->blck == 32 ? 13 : 3), nb = n / ti->blck;
        size_t rb = (size_t)nb * ti->bytes;
        static uint8_t flat[ENG_PACK_ROWS * MAX_N * 2];
        for (int r = 0; r < ENG_PACK_ROWS; r++) {
            random_row(type, &cases[c], rows[r], n);
            memcpy(flat + r * rb, rows[r], rb);
        }
        ops->pack(flat, rb, group, nb);
        for (int r = 0; r < ENG_PACK_ROWS; r++) {
            ops->unpack(group, r, back, nb);
            CHECK_MSG(!memcmp(back, rows[r], rb), "%s row %d does not survive pack+unpack", ti->name, r);
        }
        for (int t = 0; t < PACK_NT_MAX; t++) {
            for (int64_t i = 0; i < n; i++) x[t][i] = rndf() * (t + 1);
            eng_quantize_act(x[t], q[t], n);
        }
        for (int isa = ENG_ISA_SCALAR; isa <= eng_isa_best(); isa++) {
            const eng_kernels *k = eng_kernels_get(isa);
            for (int nt = 1; nt <= PACK_NT_MAX; nt++) {
                float out[PACK_NT_MAX * ENG_PACK_ROWS];
                k->type[type].packed_dot(n, group, q, sizeof q[0], nt, out, ENG_PACK_ROWS);
                for (int t = 0; t < nt; t++)
                    for (int r = 0; r < ENG_PACK_ROWS; r++) {
                        double mag, want = ref_dot(ref, type, rows[r], q[t], n, &mag);
                        CHECK_MSG(fabs(out[t * ENG_PACK_ROWS + r] - want) <= DOT_RTOL * mag + 1e-6,
                                  "%s packed %s nt=%d token %d row %d: %g vs %g (sum|wa| %g)", eng_isa_name(isa),
                                  ti->name, nt, t, r, out[t * ENG_PACK_ROWS + r], want, mag);
                    }
            }
        }
    }
    CHECK(n_packed == 4);
}

/* Blocks written by hand: the layout facts from ggml-common.h. */
static void test_layouts(void) {
    const eng_kernels *k = eng_kernels_get(ENG_ISA_SCALAR);
    float y[256];
    blk_q4_0 b40 = {eng_float_to_half(0.5f), {0}};
    b40.qs[0] = 0x1F; /* element 0 = 15 -> 3.5; element 16 = 1 -> -3.5 */
    k->type[GGML_TYPE_Q4_0].to_float(&b40, y, 32);
    CHECK_NEAR(y[0], 3.5, 0);
    CHECK_NEAR(y[16], -3.5, 0);
    CHECK_NEAR(y[1], -4.0, 0);
    blk_q5_0 b50 = {eng_float_to_half(1.0f), {0x01, 0, 0x01, 0}, {0}};
    /* element 0: fifth bit set -> 16 - 16 = 0; element 16: bit 16 -> 0; element 1 -> -16 */
    k->type[GGML_TYPE_Q5_0].to_float(&b50, y, 32);
    CHECK_NEAR(y[0], 0, 0);
    CHECK_NEAR(y[16], 0, 0);
    CHECK_NEAR(y[1], -16, 0);
    blk_q6_K b6;
    memset(&b6, 0, sizeof b6);
    b6.d = eng_float_to_half(1.0f);
    for (int i = 0; i < 16; i++) b6.scales[i] = (int8_t)(i + 1);
    b6.ql[0] = 0x21;  /* element 0 low nibble 1, element 64 high nibble 2 */
    b6.qh[0] = 0x0C;  /* element 32: high bits 3 -> 48 */
    k->type[GGML_TYPE_Q6_K].to_float(&b6, y, 256);
    CHECK_NEAR(y[0], 1.0 * (1 - 32), 0);
    CHECK_NEAR(y[64], 5.0 * (2 - 32), 0);
    CHECK_NEAR(y[32], 3.0 * (48 - 32), 0);
    CHECK_NEAR(y[128], 9.0 * -32, 0);
    blk_q4_K b4;
    memset(&b4, 0, sizeof b4);
    b4.d = eng_float_to_half(1.0f);
    b4.dmin = eng_float_to_half(1.0f);
    b4.scales[0] = 2;          /* sub-block 0 scale 2 */
    b4.scales[4] = 3;          /* sub-block 0 min 3 */
    b4.scales[8] = 0x54;       /* sub-block 4: scale 4, min 5 */
    b4.qs[0] = 0x07;           /* element 0 = 7; element 32 = 0 */
    k->type[GGML_TYPE_Q4_K].to_float(&b4, y, 256);
    CHECK_NEAR(y[0], 2 * 7 - 3, 0);
    CHECK_NEAR(y[128], -5, 0);
    /* MXFP4: nibble 7 is E2M1 6.0, nibble 0xD is -3.0 (high nibble: element
     * 16); exponent 128 is the scale 2 (ggml's code book holds 2 E2M1 and its
     * scale is halved: the same products) */
    blk_mxfp4 bm;
    memset(&bm, 0, sizeof bm);
    bm.e = 128;
    bm.qs[0] = 0xD7;
    bm.qs[1] = 0x09; /* element 1: nibble 9 is -0.5 */
    k->type[GGML_TYPE_MXFP4].to_float(&bm, y, 32);
    CHECK_NEAR(y[0], 12.0, 0);
    CHECK_NEAR(y[16], -6.0, 0);
    CHECK_NEAR(y[1], -1.0, 0);
    CHECK_NEAR(y[17], 0.0, 0);
    CHECK_NEAR(eng_e8m0_half(127), 0.5, 0);
    CHECK_NEAR(eng_e8m0_half(1), ldexp(1.0, -127), 0); /* the subnormal ggml special-cases */
    CHECK_NEAR(eng_e8m0_half(0), ldexp(1.0, -128), 0);
}

/* The SIMD activation quantizers give eng_quantize_act's bytes and sums exactly,
 * on values with ties (x.5 after scaling), zeros and an all-zero block. */
static void test_quantize(void) {
    enum { N = 32 * 9 };
    static float x[N];
    static eng_q8a a[N / 32], b[N / 32];
    for (int i = 0; i < N; i++) x[i] = i < 32 ? 0.0f : i % 7 == 0 ? (float)(i % 64) * 0.5f : rndf() * (float)(i % 5);
    eng_quantize_act(x, a, N);
    for (int isa = ENG_ISA_SCALAR; isa <= eng_isa_best(); isa++) {
        memset(b, 0x55, sizeof b);
        eng_kernels_get(isa)->quantize_act(x, b, N);
        CHECK_MSG(memcmp(a, b, sizeof a) == 0, "%s activation quantization differs", eng_isa_name(isa));
    }
}

static void test_halves(void) {
    int bad = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        float f = eng_half_to_float((eng_half)h);
        if (f == f && eng_float_to_half(f) != h) bad++;
    }
    CHECK_MSG(bad == 0, "%d halves do not round-trip", bad);
    CHECK(eng_float_to_half(1.0f + 1.0f / 4096) == 0x3c00); /* tie rounds to even */
    CHECK(eng_float_to_half(65520.0f) == 0x7c00);
    float x[37];
    eng_half a[37], b[37];
    for (int i = 0; i < 37; i++) x[i] = rndf() * (i % 2 ? 1e-5f : 300.0f);
    eng_kernels_get(ENG_ISA_SCALAR)->kv[ENG_KV_F16].store(x, a, 37);
    eng_kernels_get(ENG_ISA_BEST)->kv[ENG_KV_F16].store(x, b, 37);
    CHECK(memcmp(a, b, sizeof a) == 0);
}

/* The KV cache formats: a stored row reads back within the format's
 * rounding (q8_0: half a step of amax/127 per value), and every ISA's dot and
 * axpy over it match the double-precision sum over the stored values. */
static void test_kv(void) {
    enum { N = 128 };
    float x[N], q[N], back[N];
    uint8_t row[N * 2];
    for (int i = 0; i < N; i++) {
        x[i] = rndf() * (i < 32 ? 0.01f : 4.0f);
        q[i] = rndf();
    }
    const ggml_type_info *q8 = ggml_type_get(GGML_TYPE_Q8_0);
    CHECK(eng_kv_bytes(ENG_KV_F16, N) == N * 2 && eng_kv_bytes(ENG_KV_Q8_0, N) == (size_t)(N / 32) * q8->bytes);
    for (int type = 0; type < ENG_KV_TYPE_COUNT; type++) {
        const eng_kernels *ref = eng_kernels_get(ENG_ISA_SCALAR);
        ref->kv[type].store(x, row, N);
        if (type == ENG_KV_F16) {
            for (int i = 0; i < N; i++) back[i] = eng_half_to_float(((const eng_half *)row)[i]);
        } else {
            ref->type[GGML_TYPE_Q8_0].to_float(row, back, N);
        }
        for (int i = 0; i < N; i++) {
            float amax = 0;
            for (int j = i / 32 * 32; j < i / 32 * 32 + 32; j++) amax = fmaxf(amax, fabsf(x[j]));
            /* q8_0: half a step, plus 127 steps times the half-precision scale's error */
            float tol = type == ENG_KV_F16 ? fabsf(x[i]) / 1024 : amax / 127 * (0.5f + 127.0f / 2048);
            CHECK_MSG(fabsf(back[i] - x[i]) <= tol, "kv %s value %d: %g stored as %g", eng_kv_type_name(type), i, x[i],
                      back[i]);
        }
        double want = 0, mag = 0;
        for (int i = 0; i < N; i++) {
            want += (double)back[i] * q[i];
            mag += fabs((double)back[i] * q[i]);
        }
        for (int isa = ENG_ISA_SCALAR; isa <= eng_isa_best(); isa++) {
            const eng_kv_ops *ops = &eng_kernels_get(isa)->kv[type];
            uint8_t row2[N * 2];
            ops->store(x, row2, N);
            CHECK_MSG(!memcmp(row, row2, eng_kv_bytes(type, N)), "%s kv %s: stored bytes differ", eng_isa_name(isa),
                      eng_kv_type_name(type));
            float got = ops->dot(row, q, N);
            CHECK_MSG(fabs(got - want) <= DOT_RTOL * mag + 1e-6, "%s kv %s dot: %g vs %g", eng_isa_name(isa),
                      eng_kv_type_name(type), got, want);
            float y[N];
            for (int i = 0; i < N; i++) y[i] = q[i];
            ops->axpy(y, 0.5f, row, N);
            int bad = 0;
            for (int i = 0; i < N; i++) bad += fabsf(y[i] - (q[i] + 0.5f * back[i])) > 1e-6f * (1 + fabsf(y[i]));
            CHECK_MSG(bad == 0, "%s kv %s axpy: %d values off", eng_isa_name(isa), eng_kv_type_name(type), bad);
        }
    }
}

/* The decode GEMV of the float types (several weight rows at a time) against
 * the reference, with row counts around its 4-row step and odd lengths. The
 * native BF16 path (avx512bf16) rounds the activations to bf16 first, as
 * llama.cpp does: against the reference on the rounded activations, whose
 * bf16 x bf16 products are exact in fp32, only the order of the sums differs. */
static void test_gemv(void) {
    static uint8_t w[GEMM_MAX_ROWS * MAX_N * 4];
    static float x[MAX_N], xr[MAX_N], out[GEMM_MAX_ROWS + 1];
    const eng_kernels *ref = eng_kernels_get(ENG_ISA_SCALAR);
    const int64_t lens[] = {31, 64, 1301};
    const int rows[] = {1, 3, 4, 9, GEMM_MAX_ROWS};
    for (int isa = ENG_ISA_AVX2; isa <= eng_isa_best(); isa++) {
        const eng_kernels *k = eng_kernels_get(isa);
        for (size_t c = 0; c < FC_ARRAY_LEN(cases); c++) {
            uint32_t type = cases[c].type;
            if (k->type[type].act != ENG_ACT_F32) continue;
            CHECK_MSG(k->type[type].gemv, "%s %s has no GEMV", eng_isa_name(isa), ggml_type_get(type)->name);
            if (!k->type[type].gemv) continue;
            for (size_t li = 0; li < FC_ARRAY_LEN(lens); li++) {
                int64_t n = lens[li];
                size_t rb = (size_t)n * ggml_type_get(type)->bytes;
                for (int r = 0; r < GEMM_MAX_ROWS; r++) random_row(type, &cases[c], w + r * rb, n);
                bool rounds = isa >= ENG_ISA_AVX512BF16 && type == GGML_TYPE_BF16;
                for (int64_t i = 0; i < n; i++) {
                    x[i] = rndf();
                    xr[i] = rounds ? eng_bf16_to_float(eng_float_to_bf16(x[i])) : x[i];
                }
                for (size_t ri = 0; ri < FC_ARRAY_LEN(rows); ri++) {
                    int bad = 0;
                    out[rows[ri]] = -1e30f;
                    k->type[type].gemv(n, w, rb, rows[ri], x, sizeof x, 1, out, 1);
                    for (int r = 0; r < rows[ri]; r++) {
                        double mag, want = ref_dot(ref, type, w + r * rb, xr, n, &mag);
                        bad += !(fabs(out[r] - want) <= DOT_RTOL * mag + 1e-6);
                    }
                    bad += out[rows[ri]] != -1e30f; /* written past the rows */
                    CHECK_MSG(!bad, "%s %s gemv n=%lld rows=%d: %d wrong", eng_isa_name(isa),
                              ggml_type_get(type)->name, (long long)n, rows[ri], bad);
                }
            }
        }
    }
}

int main(void) {
    test_layouts();
    test_halves();
    test_quantize();
    test_dots();
    test_packed();
    test_kv();
    test_gemm();
    test_gemv();
    test_attn();
    printf("best ISA here: %s\n", eng_isa_name(eng_isa_best()));
    return check_done("engine_kernels");
}

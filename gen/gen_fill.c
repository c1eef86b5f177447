/* Random but valid tensor data for `fitcheck gen`.
 *
 * Quantized blocks are random bytes (every bit pattern of the quants, grid
 * indices and sub-block scales is valid) with the block's float scale
 * fields overwritten by a finite value sized so that weights come out near
 * N(0, 0.02) in magnitude, as in a trained model, and activations stay
 * bounded. Float tensors get approximately normal values; norm weights are
 * 1, so each layer starts close to the identity. Biases and gpt-oss's
 * attention sinks are random too, larger than the weights, so that a
 * comparison with llama.cpp on the file fails when either is ignored. */
#include "gen/gen_internal.h"

#include <math.h>
#include <string.h>

#define GEN_SIGMA 0.02f
/* Biases: half a typical activation (inputs are RMS-normed to ~1), so that a
 * router bias moves the choice of experts. */
#define GEN_BIAS_SIGMA 0.5f
/* Sinks are logits beside scores of order 1 (gpt-oss-20b's trained ones lie
 * within a few units of 0). */
#define GEN_SINK_SIGMA 1.0f
#define GEN_SINK_SUFFIX "attn_sinks.weight"


/* Where a block keeps its f16 scales and what to put there; offsets past
 * the block's size mark unused slots. Layouts are ggml-common.h's. */
typedef struct fill_rule {
    uint32_t type;
    uint8_t n;            /* f16 fields */
    uint16_t off[2];
    float val[2];         /* d (and dmin or min, negative to centre unsigned quants) */
} fill_rule;

static const fill_rule rules[] = {
    {GGML_TYPE_Q4_0, 1, {0}, {5e-3f}},              {GGML_TYPE_Q4_1, 2, {0, 2}, {3e-3f, -2.2e-2f}},
    {GGML_TYPE_Q5_0, 1, {0}, {2.5e-3f}},            {GGML_TYPE_Q5_1, 2, {0, 2}, {1.3e-3f, -2e-2f}},
    {GGML_TYPE_Q8_0, 1, {0}, {3e-4f}},              {GGML_TYPE_Q2_K, 2, {80, 82}, {2e-3f, 2e-3f}},
    {GGML_TYPE_Q3_K, 1, {108}, {2e-4f}},            {GGML_TYPE_Q4_K, 2, {0, 2}, {1e-4f, 1e-4f}},
    {GGML_TYPE_Q5_K, 2, {0, 2}, {5e-5f, 1e-4f}},    {GGML_TYPE_Q6_K, 1, {208}, {2e-5f}},
    {GGML_TYPE_IQ2_XXS, 1, {0}, {1e-3f}},           {GGML_TYPE_IQ2_XS, 1, {0}, {1e-3f}},
    {GGML_TYPE_IQ2_S, 1, {0}, {1e-3f}},             {GGML_TYPE_IQ3_XXS, 1, {0}, {1e-3f}},
    {GGML_TYPE_IQ3_S, 1, {0}, {1e-3f}},             {GGML_TYPE_IQ1_S, 1, {0}, {2.5e-3f}},
    {GGML_TYPE_IQ4_NL, 1, {0}, {3e-4f}},            {GGML_TYPE_IQ4_XS, 1, {0}, {1e-5f}},
    {GGML_TYPE_TQ1_0, 1, {52}, {2e-2f}},            {GGML_TYPE_TQ2_0, 1, {64}, {2e-2f}},
    /* Scales packed in other ways, fixed up in fix_block below. */
    {GGML_TYPE_IQ1_M, 0, {0}, {2.5e-3f}},           {GGML_TYPE_MXFP4, 0, {0}, {0}},
};

static uint64_t rng_next(gen_rng *r) { /* splitmix64 */
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void rng_bytes(gen_rng *r, uint8_t *p, uint64_t n) {
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x = rng_next(r);
        memcpy(p + i, &x, 8);
    }
    if (i < n) {
        uint64_t x = rng_next(r);
        memcpy(p + i, &x, n - i);
    }
}

/* Irwin-Hall: the sum of four uniforms, centred and scaled, is close enough
 * to a normal for weights nobody trains. */
static float rng_normal(gen_rng *r, float sigma) {
    uint64_t x = rng_next(r);
    float s = 0;
    for (int k = 0; k < 4; k++) s += (float)((x >> (16 * k)) & 0xFFFF) * (1.0f / 65536.0f);
    return (s - 2.0f) * 1.7320508f * sigma; /* variance of the sum is 4/12 */
}

/* float -> IEEE half, round to nearest; finite inputs of modest size only. */
static uint16_t f16_bits(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    float a = fabsf(f);
    if (a < 6.103515625e-05f) return sign | (uint16_t)lrintf(a * 16777216.0f); /* subnormal: units of 2^-24 */
    int e;
    float m = frexpf(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    uint32_t mant = (uint32_t)lrintf((m * 2.0f - 1.0f) * 1024.0f);
    uint32_t exp = (uint32_t)(e - 1 + 15);
    if (mant == 1024) mant = 0, exp++;
    if (exp >= 31) return sign | 0x7BFF; /* clamp to the largest finite half */
    return sign | (uint16_t)(exp << 10 | mant);
}

static const fill_rule *rule_for(uint32_t type) {
    for (size_t i = 0; i < FC_ARRAY_LEN(rules); i++)
        if (rules[i].type == type) return &rules[i];
    return NULL;
}

static void fix_block(const fill_rule *r, uint8_t *b, uint32_t block_bytes) {
    for (uint32_t k = 0; k < r->n; k++) {
        uint16_t h = f16_bits(r->val[k]);
        memcpy(b + r->off[k], &h, 2);
    }
    if (r->type == GGML_TYPE_IQ1_M) {
        /* The block scale is an f16 split into the top nibbles of the four
         * 16-bit sub-block scale words at the block's end. */
        uint16_t h = f16_bits(r->val[0]), sc[4];
        memcpy(sc, b + block_bytes - 8, 8);
        for (int k = 0; k < 4; k++) sc[k] = (uint16_t)((sc[k] & 0x0FFF) | (((h >> (4 * k)) & 0xF) << 12));
        memcpy(b + block_bytes - 8, sc, 8);
    } else if (r->type == GGML_TYPE_MXFP4) {
        b[0] = 127 - 8; /* E8M0 exponent: scale 2^-8 times E2M1 values up to 6 */
    }
}

int gen_fill_tensor(const model_tensor *t, gen_rng *rng, void *buf, uint64_t bytes, fc_err *err) {
    const ggml_type_info *ti = ggml_type_get(t->type);
    if (!ti) return fc_err_set(err, FC_EINPUT, "gen: tensor %s has unknown type %u", t->name, t->type);
    uint64_t n = bytes / ti->bytes * ti->blck; /* elements (or blocks * block size) */
    if (t->type == GGML_TYPE_F32) {
        float *f = buf;
        size_t nl = strlen(t->name), sl = strlen(GEN_SINK_SUFFIX);
        bool sink = nl >= sl && !strcmp(t->name + nl - sl, GEN_SINK_SUFFIX);
        bool ones = !sink && (t->role == ROLE_NORM || t->role == ROLE_OUTPUT_NORM);
        float sigma = sink ? GEN_SINK_SIGMA : t->role == ROLE_ATTN_BIAS ? GEN_BIAS_SIGMA : GEN_SIGMA;
        for (uint64_t i = 0; i < n; i++) f[i] = ones ? 1.0f : rng_normal(rng, sigma);
        return FC_OK;
    }
    if (t->type == GGML_TYPE_F16 || t->type == GGML_TYPE_BF16) {
        uint16_t *h = buf;
        for (uint64_t i = 0; i < n; i++) {
            float v = rng_normal(rng, GEN_SIGMA);
            if (t->type == GGML_TYPE_F16) {
                h[i] = f16_bits(v);
            } else {
                uint32_t x;
                memcpy(&x, &v, 4);
                h[i] = (uint16_t)(x >> 16);
            }
        }
        return FC_OK;
    }
    const fill_rule *r = rule_for(t->type);
    if (!r) return fc_err_set(err, FC_EINPUT, "gen: cannot make random blocks of type %s (tensor %s)", ti->name, t->name);
    rng_bytes(rng, buf, bytes);
    for (uint64_t off = 0; off + ti->bytes <= bytes; off += ti->bytes) fix_block(r, (uint8_t *)buf + off, ti->bytes);
    return FC_OK;
}

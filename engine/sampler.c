/* Next-token sampling: greedy, temperature, top-k, top-p, from a seed.
 *
 * PCG32 (O'Neill, pcg-random.org) is the generator: small, fast, and the
 * same stream on every platform, so `--seed` reproduces a run anywhere. The
 * candidate buffer is allocated once for the vocabulary. */
#include "engine/engine.h"

#include <math.h>
#include <stdlib.h>

/* Candidates sorted first when top-p runs over the whole vocabulary. */
#define SAMPLER_HEAD 256

typedef struct cand {
    float logit;
    int32_t id;
} cand;

struct eng_sampler {
    eng_sampler_params p;
    uint32_t n_vocab;
    uint64_t state, inc; /* PCG32 */
    cand *c;
};

static uint32_t pcg32(eng_sampler *s) {
    uint64_t old = s->state;
    s->state = old * 6364136223846793005ull + s->inc;
    uint32_t xs = (uint32_t)(((old >> 18) ^ old) >> 27), rot = (uint32_t)(old >> 59);
    return (xs >> rot) | (xs << ((-rot) & 31));
}

/* Uniform in [0, 1) with 24 bits, exact in float. */
static float uniform(eng_sampler *s) { return (float)(pcg32(s) >> 8) * (1.0f / 16777216.0f); }

int eng_sampler_new(eng_sampler **out, uint32_t n_vocab, const eng_sampler_params *p, fc_err *err) {
    *out = NULL;
    if (!n_vocab || n_vocab > ENG_VOCAB_MAX) return fc_err_set(err, FC_EINPUT, "sampler: vocabulary of %u tokens", n_vocab);
    if (!isfinite(p->temp) || p->temp < 0 || !(p->top_p > 0 && p->top_p <= 1))
        return fc_err_set(err, FC_EINPUT, "sampler: temperature %g must be >= 0 and top-p %g in (0, 1]", p->temp, p->top_p);
    eng_sampler *s = fc_calloc(1, sizeof *s, err);
    if (!s) return FC_ERUNTIME;
    s->c = fc_malloc(n_vocab * sizeof *s->c, err);
    if (!s->c) {
        free(s);
        return FC_ERUNTIME;
    }
    s->p = *p;
    s->n_vocab = n_vocab;
    /* PCG's seeding procedure: odd increment, advance past the seed. */
    s->inc = (p->seed << 1) | 1;
    pcg32(s);
    s->state += p->seed;
    pcg32(s);
    *out = s;
    return FC_OK;
}

void eng_sampler_free(eng_sampler *s) {
    if (!s) return;
    free(s->c);
    free(s);
}

/* a ranks before b: higher logit, then lower id (a total order, so results
 * never depend on the sort's stability). */
static bool before(const cand *a, const cand *b) { return a->logit > b->logit || (a->logit == b->logit && a->id < b->id); }

static int compare_cand(const void *pa, const void *pb) {
    const cand *a = pa, *b = pb;
    return before(a, b) ? -1 : before(b, a);
}

/* Min-heap on `before` over c[0..k): the root is the weakest kept candidate. */
static void sift_down(cand *c, uint32_t k, uint32_t i) {
    for (;;) {
        uint32_t w = i, l = 2 * i + 1, r = l + 1;
        if (l < k && before(&c[w], &c[l])) w = l;
        if (r < k && before(&c[w], &c[r])) w = r;
        if (w == i) return;
        cand t = c[i];
        c[i] = c[w];
        c[w] = t;
        i = w;
    }
}

/* Moves the k best candidates to c[0..k), best first. */
static void keep_top(cand *c, uint32_t n, uint32_t k) {
    if (k < n) {
        for (uint32_t i = k / 2 + 1; i-- > 0;) sift_down(c, k, i);
        for (uint32_t i = k; i < n; i++)
            if (before(&c[i], &c[0])) {
                c[0] = c[i];
                sift_down(c, k, 0);
            }
    }
    qsort(c, k, sizeof *c, compare_cand);
}

/* Draws from c[0..m) with weights w = c[i].logit (already exponentiated), whose sum is `sum`. */
static int32_t draw(eng_sampler *s, const cand *c, uint32_t m, float sum) {
    float r = uniform(s) * sum;
    for (uint32_t i = 0; i < m; i++) {
        r -= c[i].logit;
        if (r < 0) return c[i].id;
    }
    return c[m - 1].id; /* rounding left r a hair above zero */
}

int32_t eng_sampler_sample(eng_sampler *s, const float *logits) {
    uint32_t n = s->n_vocab;
    cand *c = s->c;
    for (uint32_t i = 0; i < n; i++) c[i] = (cand){isnan(logits[i]) ? -INFINITY : logits[i], (int32_t)i};
    uint32_t best = 0;
    for (uint32_t i = 1; i < n; i++)
        if (c[i].logit > c[best].logit) best = i;
    /* Greedy, or every logit -inf/NaN: the first maximum. */
    if (s->p.temp <= 0 || s->p.top_k == 1 || !isfinite(c[best].logit)) return (int32_t)best;
    float max = c[best].logit, sum = 0;
    uint32_t k = s->p.top_k && s->p.top_k < n ? s->p.top_k : n;
    if (k < n) { /* top-k: renormalise over the k best */
        keep_top(c, n, k);
        for (uint32_t i = 0; i < k; i++) sum += c[i].logit = expf((c[i].logit - max) / s->p.temp);
    } else {
        for (uint32_t i = 0; i < n; i++) sum += c[i].logit = expf((c[i].logit - max) / s->p.temp);
        if (s->p.top_p >= 1) return draw(s, c, n, sum); /* plain temperature: order does not matter */
        /* Nucleus over the whole vocabulary: the top few hundred candidates
         * nearly always hold top_p of the mass, so sort those and fall back
         * to a full sort only when they do not. */
        uint32_t h = n < SAMPLER_HEAD ? n : SAMPLER_HEAD;
        keep_top(c, n, h);
        float head = 0;
        for (uint32_t i = 0; i < h; i++) head += c[i].logit;
        k = head >= s->p.top_p * sum ? h : n;
        if (k == n) keep_top(c, n, n);
    }
    /* Nucleus: the smallest prefix holding top_p of the probability. */
    uint32_t m = k;
    if (s->p.top_p < 1) {
        float acc = 0;
        for (m = 0; m < k;) {
            acc += c[m++].logit;
            if (acc >= s->p.top_p * sum) break;
        }
        sum = acc;
    }
    return draw(s, c, m, sum);
}

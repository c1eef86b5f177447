/* Sampler: greedy is argmax, a seed reproduces a sequence, top-k = 1 is
 * greedy, and the empirical distribution follows softmax / top-k / top-p. */
#include "engine/engine.h"
#include "tests/check.h"

#include <math.h>
#include <string.h>

#define N_VOCAB 1000
#define DRAWS 10000

static eng_sampler *make(float temp, uint32_t top_k, float top_p, uint64_t seed) {
    eng_sampler *s = NULL;
    fc_err err = {0};
    eng_sampler_params p = {temp, top_k, top_p, seed};
    CHECK(eng_sampler_new(&s, N_VOCAB, &p, &err) == FC_OK);
    return s;
}

int main(void) {
    static float logits[N_VOCAB];
    for (int i = 0; i < N_VOCAB; i++) logits[i] = sinf((float)i * 0.37f) * 3.0f; /* many near-ties */
    logits[123] = 4; /* and one clear winner */
    int argmax = 0;
    for (int i = 1; i < N_VOCAB; i++)
        if (logits[i] > logits[argmax]) argmax = i;

    eng_sampler *greedy = make(0, 0, 1, 1), *k1 = make(0.8f, 1, 1, 2);
    CHECK(eng_sampler_sample(greedy, logits) == argmax);
    CHECK(eng_sampler_sample(k1, logits) == argmax);
    logits[5] = NAN; /* a NaN never wins */
    CHECK(eng_sampler_sample(greedy, logits) == argmax);
    logits[5] = 0;

    /* Same seed, same sequence; another seed, another sequence. */
    eng_sampler *a = make(1, 0, 1, 42), *b = make(1, 0, 1, 42), *c = make(1, 0, 1, 43);
    int same = 0, diff = 0;
    for (int i = 0; i < 200; i++) {
        int32_t x = eng_sampler_sample(a, logits), y = eng_sampler_sample(b, logits), z = eng_sampler_sample(c, logits);
        same += x == y;
        diff += x != z;
    }
    CHECK(same == 200 && diff > 50);

    /* Three tokens with logits log 0.5, log 0.3, log 0.2 at temperature 1:
     * frequencies follow the probabilities; top-k 2 renormalises to 5/8, 3/8;
     * top-p 0.6 keeps the two best (0.5 < 0.6 <= 0.8). */
    static float three[N_VOCAB];
    for (int i = 0; i < N_VOCAB; i++) three[i] = -INFINITY;
    three[7] = logf(0.5f), three[3] = logf(0.3f), three[9] = logf(0.2f);
    struct { uint32_t k; float p; double want[3]; } cases[] = {
        {0, 1, {0.5, 0.3, 0.2}}, {2, 1, {0.625, 0.375, 0}}, {0, 0.6f, {0.625, 0.375, 0}}, {0, 0.4f, {1, 0, 0}},
    };
    for (size_t t = 0; t < FC_ARRAY_LEN(cases); t++) {
        eng_sampler *s = make(1, cases[t].k, cases[t].p, 7);
        int count[3] = {0}, other = 0;
        for (int i = 0; i < DRAWS; i++) {
            int32_t id = eng_sampler_sample(s, three);
            if (id == 7) count[0]++;
            else if (id == 3) count[1]++;
            else if (id == 9) count[2]++;
            else other++;
        }
        CHECK(other == 0);
        for (int j = 0; j < 3; j++) CHECK_NEAR((double)count[j] / DRAWS, cases[t].want[j], 0.02);
        eng_sampler_free(s);
    }

    /* Low temperature concentrates on the argmax; high temperature spreads out. */
    eng_sampler *cold = make(0.05f, 0, 1, 3), *hot = make(5, 0, 1, 3);
    int cold_hits = 0, hot_hits = 0;
    for (int i = 0; i < 1000; i++) {
        cold_hits += eng_sampler_sample(cold, logits) == argmax;
        hot_hits += eng_sampler_sample(hot, logits) == argmax;
    }
    CHECK_MSG(cold_hits > 990 && hot_hits < 50, "cold %d hot %d", cold_hits, hot_hits);

    /* Top-p over a flat vocabulary: more than the sorted head is needed, so
     * the full sort runs; ties rank by id, so exactly ids 0..899 are kept. */
    static float flat[N_VOCAB];
    eng_sampler *wide = make(1, 0, 0.9f, 11);
    int seen[N_VOCAB] = {0}, distinct = 0, beyond = 0;
    for (int i = 0; i < 4000; i++) { /* about 889 distinct expected */
        int32_t id = eng_sampler_sample(wide, flat);
        beyond += id >= 900;
        distinct += !seen[id]++;
    }
    CHECK_MSG(beyond == 0 && distinct > 850, "flat top-p: %d beyond the nucleus, %d distinct", beyond, distinct);
    eng_sampler_free(wide);

    fc_err err = {0};
    eng_sampler *bad = NULL;
    eng_sampler_params p = {-1, 0, 1, 0};
    CHECK(eng_sampler_new(&bad, N_VOCAB, &p, &err) == FC_EINPUT && !bad);
    p = (eng_sampler_params){1, 0, 0, 0};
    CHECK(eng_sampler_new(&bad, N_VOCAB, &p, &err) == FC_EINPUT && !bad);

    eng_sampler *all[] = {greedy, k1, a, b, c, cold, hot};
    for (size_t i = 0; i < FC_ARRAY_LEN(all); i++) eng_sampler_free(all[i]);
    return check_done("sampler");
}

/* Measures prefill and decode like llama-bench: a test ppN times one batched
 * N-token prefill, a test tgN times N single-token decodes; each test runs
 * once untimed (warm-up) and then `reps` times from an emptied cache (filled
 * to n_depth first, untimed). Tokens are pseudo-random ids, as in llama-bench. */
#include "engine/internal.h"
#include "planner/planner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_MAX_TOKENS (1u << 20)

static uint32_t lcg(uint64_t *s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

static void fill_tokens(eng_ctx *c, int32_t *buf, uint32_t n, uint64_t *seed) {
    for (uint32_t i = 0; i < n; i++) buf[i] = (int32_t)(lcg(seed) % c->m->hp.n_vocab);
}

/* One repetition: returns seconds spent on the timed part. */
static int bench_once(eng_ctx *c, const eng_bench_test *t, int32_t *toks, double *secs, fc_err *err) {
    uint64_t seed = 42;
    const float *logits;
    int rc;
    eng_ctx_truncate(c, 0);
    if (t->n_depth) {
        fill_tokens(c, toks, t->n_depth, &seed);
        if ((rc = eng_decode(c, toks, t->n_depth, &logits, err))) return rc;
    }
    double t0 = fc_now();
    if (t->n_prompt) {
        fill_tokens(c, toks, t->n_prompt, &seed);
        if ((rc = eng_decode(c, toks, t->n_prompt, &logits, err))) return rc;
    }
    for (uint32_t i = 0; i < t->n_gen; i++) {
        int32_t tok = (int32_t)(lcg(&seed) % c->m->hp.n_vocab);
        if ((rc = eng_decode(c, &tok, 1, &logits, err))) return rc;
    }
    *secs = fc_now() - t0;
    return FC_OK;
}

static void stats(eng_bench_test *t, const double *secs) {
    double n_tok = t->n_prompt + t->n_gen, s_ts = 0, s_ns = 0;
    for (uint32_t r = 0; r < t->reps; r++) {
        t->ts[r] = n_tok / secs[r];
        s_ts += t->ts[r];
        s_ns += secs[r] * 1e9;
    }
    t->avg_ts = s_ts / t->reps;
    t->avg_ns = s_ns / t->reps;
    double v_ts = 0, v_ns = 0;
    for (uint32_t r = 0; r < t->reps; r++) {
        v_ts += (t->ts[r] - t->avg_ts) * (t->ts[r] - t->avg_ts);
        v_ns += (secs[r] * 1e9 - t->avg_ns) * (secs[r] * 1e9 - t->avg_ns);
    }
    t->stddev_ts = t->reps > 1 ? sqrt(v_ts / (t->reps - 1)) : 0.0;
    t->stddev_ns = t->reps > 1 ? sqrt(v_ns / (t->reps - 1)) : 0.0;
}

int eng_bench_run(eng_ctx *c, const eng_bench_opts *o, eng_bench_test *tests, uint32_t *n_tests, fc_err *err) {
    uint32_t n = 0, longest = o->n_depth;
    if (o->reps == 0 || o->reps > FC_ARRAY_LEN(tests[0].ts))
        return fc_err_set(err, FC_EINPUT, "repetitions %u outside 1..%zu", o->reps, FC_ARRAY_LEN(tests[0].ts));
    for (uint32_t i = 0; i < o->n_prompt_count && n < ENG_BENCH_MAX_TESTS; i++)
        if (o->n_prompt[i]) tests[n++] = (eng_bench_test){.n_prompt = o->n_prompt[i], .n_depth = o->n_depth, .reps = o->reps};
    for (uint32_t i = 0; i < o->n_gen_count && n < ENG_BENCH_MAX_TESTS; i++)
        if (o->n_gen[i]) tests[n++] = (eng_bench_test){.n_gen = o->n_gen[i], .n_depth = o->n_depth, .reps = o->reps};
    for (uint32_t i = 0; i < n; i++) {
        uint32_t need = tests[i].n_depth + tests[i].n_prompt + tests[i].n_gen;
        if (need > c->p.n_ctx)
            return fc_err_set(err, FC_EINPUT, "test needs %u positions but the context has %u", need, c->p.n_ctx);
        if (tests[i].n_prompt > longest) longest = tests[i].n_prompt;
    }
    if (longest > BENCH_MAX_TOKENS) return fc_err_set(err, FC_EINPUT, "%u tokens is too many for a benchmark", longest);
    int32_t *toks = fc_malloc((longest + 1) * sizeof *toks, err);
    if (!toks) return FC_ERUNTIME;
    int rc = FC_OK;
    for (uint32_t i = 0; i < n && !rc; i++) {
        double secs[FC_ARRAY_LEN(tests[0].ts)], warm;
        rc = bench_once(c, &tests[i], toks, &warm, err);
        for (uint32_t r = 0; r < tests[i].reps && !rc; r++) rc = bench_once(c, &tests[i], toks, &secs[r], err);
        if (!rc) stats(&tests[i], secs);
    }
    free(toks);
    eng_ctx_truncate(c, 0);
    *n_tests = n;
    return rc;
}

/* One test as a llama-bench record: planner/ predicts it, reports/ writes
 * every format from it. */
static void bench_record(plan_bench_record *r, const eng_model *m, const eng_params *p, const eng_bench_test *t,
                         const char *when) {
    memset(r, 0, sizeof *r);
    snprintf(r->model_filename, sizeof r->model_filename, "%.511s", eng_model_gguf(m)->path);
    snprintf(r->model_type, sizeof r->model_type, "%s", eng_model_type(m));
    r->model_size = eng_model_size(m);
    r->model_n_params = eng_model_n_params(m);
    snprintf(r->backends, sizeof r->backends, "CPU");
    snprintf(r->engine, sizeof r->engine, "fitcheck");
    snprintf(r->isa, sizeof r->isa, "%s", eng_isa_name(p->isa));
    r->n_batch = r->n_ubatch = (int)p->n_ubatch;
    r->flash_attn = PLAN_BENCH_FA_AUTO; /* the engine has one attention kernel, no llama.cpp -fa to record */
    r->n_threads = (int)p->n_threads;
    snprintf(r->type_k, sizeof r->type_k, "%s", eng_kv_type_name(p->type_k));
    snprintf(r->type_v, sizeof r->type_v, "%s", eng_kv_type_name(p->type_v));
    r->test = (plan_bench_test){(int)t->n_prompt, (int)t->n_gen, (int)t->n_depth};
    snprintf(r->test_time, sizeof r->test_time, "%s", when);
    r->avg_ns = t->avg_ns;
    r->stddev_ns = t->stddev_ns;
    r->avg_ts = t->avg_ts;
    r->stddev_ts = t->stddev_ts;
    for (uint32_t k = 0; k < t->reps && k < PLAN_BENCH_MAX_SAMPLES && k < FC_ARRAY_LEN(t->ts); k++) {
        r->samples_ts[k] = t->ts[k];
        r->samples_ns[k] = t->ts[k] > 0 ? (t->n_prompt + t->n_gen) / t->ts[k] * 1e9 : 0;
        r->n_samples = (int)k + 1;
    }
    r->read_gbs_now = t->read_gbs_now;
}

void eng_bench_records(plan_bench_record *recs, const eng_model *m, const eng_params *p, const eng_bench_test *tests,
                       uint32_t n) {
    char when[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    for (uint32_t i = 0; i < n; i++) bench_record(&recs[i], m, p, &tests[i], when);
}

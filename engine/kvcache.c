/* The run state: KV cache and every scratch buffer, sized once from the
 * model and parameters so the forward pass never allocates. */
#include "engine/internal.h"

#include <stdlib.h>

/* Resolves defaults in place. */
static void params_resolve(const eng_model *m, eng_params *p) {
    if (!p->n_ctx) p->n_ctx = m->hp.n_ctx_train && m->hp.n_ctx_train < ENG_DEFAULT_CTX ? m->hp.n_ctx_train : ENG_DEFAULT_CTX;
    if (!p->n_ubatch) p->n_ubatch = ENG_DEFAULT_UBATCH;
    if (!p->n_threads) p->n_threads = (uint32_t)eng_default_threads();
    if (p->isa < 0 || p->isa >= ENG_ISA_COUNT || p->isa > eng_isa_best()) p->isa = eng_isa_best();
}

static uint32_t kv_dim(const eng_model *m) { return m->kv_dim_max; }

uint64_t eng_ctx_kv_bytes(const eng_model *m, const eng_params *pin) {
    eng_params p = *pin;
    params_resolve(m, &p);
    return 2ull * m->hp.n_layer * p.n_ctx * kv_dim(m) * sizeof(eng_half);
}

/* Float elements of every activation buffer for one token, in the order they
 * are carved out of one allocation in eng_ctx_new. */
typedef struct buf_plan {
    size_t x, xb, xb2, q, kk, vv, hb, hb2, tmp, router;
} buf_plan;

static buf_plan plan_bufs(const eng_model *m) {
    const model_hparams *hp = &m->hp;
    size_t wide = m->q_dim > hp->n_embd ? m->q_dim : hp->n_embd;
    if ((size_t)hp->n_head * hp->head_dim_v > wide) wide = (size_t)hp->n_head * hp->head_dim_v;
    return (buf_plan){hp->n_embd, wide, wide, m->q_dim, m->kv_dim_max, m->kv_dim_max,
                      m->ff_max, m->ff_max, hp->n_embd, hp->n_expert};
}

static size_t per_token_floats(const buf_plan *b) {
    return b->x + b->xb + b->xb2 + b->q + b->kk + b->vv + b->hb + b->hb2 + b->tmp + b->router;
}

static size_t actq_bytes(const eng_model *m, uint32_t ub) {
    size_t widest = m->ff_max > m->q_dim ? m->ff_max : m->q_dim;
    if (m->hp.n_embd > widest) widest = m->hp.n_embd;
    return (size_t)ub * (widest / 32 + 1) * sizeof(eng_q8a);
}

uint64_t eng_ctx_buffer_bytes(const eng_model *m, const eng_params *pin) {
    eng_params p = *pin;
    params_resolve(m, &p);
    buf_plan b = plan_bufs(m);
    uint64_t floats = (uint64_t)p.n_ubatch * per_token_floats(&b) + (uint64_t)p.n_threads * p.n_ctx +
                      (uint64_t)p.n_ubatch * 2 * m->hp.n_rot + m->hp.n_vocab;
    return floats * sizeof(float) + actq_bytes(m, p.n_ubatch);
}

int eng_ctx_new(eng_ctx **out, eng_model *m, const eng_params *pin, fc_err *err) {
    eng_params p = pin ? *pin : (eng_params){0};
    params_resolve(m, &p);
    if (p.n_threads > ENG_MAX_THREADS)
        return fc_err_set(err, FC_EINPUT, "%u threads requested, at most %d", p.n_threads, ENG_MAX_THREADS);
    if (p.kv_type != ENG_KV_F16) return fc_err_set(err, FC_EINPUT, "unsupported KV cache type %d", p.kv_type);
    eng_ctx *c = fc_calloc(1, sizeof *c, err);
    if (!c) return FC_ERUNTIME;
    c->m = m;
    c->p = p;
    c->k = eng_kernels_get(p.isa);
    c->kv_dim = kv_dim(m);
    uint64_t kv_elems = (uint64_t)m->hp.n_layer * p.n_ctx * c->kv_dim;
    buf_plan b = plan_bufs(m);
    size_t ub = p.n_ubatch;
    c->k_cache = fc_malloc(kv_elems * sizeof(eng_half), err);
    c->v_cache = c->k_cache ? fc_malloc(kv_elems * sizeof(eng_half), err) : NULL;
    float *all = c->v_cache ? fc_calloc(ub * per_token_floats(&b), sizeof(float), err) : NULL;
    c->actq = all ? fc_malloc(actq_bytes(m, p.n_ubatch), err) : NULL;
    c->att = c->actq ? fc_calloc((size_t)p.n_threads * p.n_ctx, sizeof(float), err) : NULL;
    c->rope_cs = c->att ? fc_calloc(ub * 2 * m->hp.n_rot, sizeof(float), err) : NULL;
    c->logits = c->rope_cs ? fc_calloc(m->hp.n_vocab, sizeof(float), err) : NULL;
    if (!c->logits) {
        free(all);
        eng_ctx_free(c);
        return FC_ERUNTIME;
    }
    float *cur = all;
#define CARVE(f) (c->f = cur, cur += ub * b.f)
    CARVE(x); CARVE(xb); CARVE(xb2); CARVE(q); CARVE(kk); CARVE(vv); CARVE(hb); CARVE(hb2); CARVE(tmp); CARVE(router);
#undef CARVE
    int rc = eng_pool_new(&c->pool, (int)p.n_threads, err);
    if (rc) {
        eng_ctx_free(c);
        return rc;
    }
    *out = c;
    return FC_OK;
}

void eng_ctx_free(eng_ctx *c) {
    if (!c) return;
    if (c->pool) eng_pool_free(c->pool);
    free(c->x); /* start of the carved activation block */
    free(c->k_cache);
    free(c->v_cache);
    free(c->actq);
    free(c->att);
    free(c->rope_cs);
    free(c->logits);
    free(c);
}

const eng_params *eng_ctx_params(const eng_ctx *c) { return &c->p; }
uint32_t eng_ctx_pos(const eng_ctx *c) { return c->pos; }
void eng_ctx_truncate(eng_ctx *c, uint32_t pos) {
    if (pos < c->pos) c->pos = pos;
}

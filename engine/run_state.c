/* The run state (eng_ctx): resolved parameters, the KV cache, every scratch
 * buffer and the thread pool, sized once from the model and parameters so
 * the forward pass never allocates. */
#include "engine/internal.h"

#include <stdlib.h>

/* Resolves defaults in place. */
static void params_resolve(const eng_model *m, eng_params *p) {
    if (!p->n_ctx) p->n_ctx = m->hp.n_ctx_train && m->hp.n_ctx_train < ENG_DEFAULT_CTX ? m->hp.n_ctx_train : ENG_DEFAULT_CTX;
    if (!p->n_ubatch) p->n_ubatch = ENG_DEFAULT_UBATCH;
    if (!p->n_threads) p->n_threads = (uint32_t)eng_default_threads();
}

static uint32_t kv_dim(const eng_model *m) { return m->kv_dim_max; }

static const struct {
    const char *name;
    uint32_t ggml_type;
} kv_types[ENG_KV_TYPE_COUNT] = {
    [ENG_KV_F16] = {"f16", GGML_TYPE_F16},
    [ENG_KV_Q8_0] = {"q8_0", GGML_TYPE_Q8_0},
};

const char *eng_kv_type_name(int type) { return type >= 0 && type < ENG_KV_TYPE_COUNT ? kv_types[type].name : "?"; }

int eng_kv_type_from_name(const char *name) {
    for (int i = 0; i < ENG_KV_TYPE_COUNT; i++)
        if (!strcmp(name, kv_types[i].name)) return i;
    return -1;
}

uint32_t eng_kv_ggml_type(int type) { return kv_types[type].ggml_type; }

/* Bytes of n values of a cache type (n a multiple of its block). */
size_t eng_kv_bytes(int type, uint32_t n) {
    const ggml_type_info *ti = ggml_type_get(kv_types[type].ggml_type);
    return (size_t)(n / ti->blck) * ti->bytes;
}

uint64_t eng_ctx_kv_bytes(const eng_model *m, const eng_params *pin) {
    eng_params p = *pin;
    params_resolve(m, &p);
    if (p.type_k < 0 || p.type_k >= ENG_KV_TYPE_COUNT || p.type_v < 0 || p.type_v >= ENG_KV_TYPE_COUNT) return 0;
    return (uint64_t)m->hp.n_layer * p.n_ctx * (eng_kv_bytes(p.type_k, kv_dim(m)) + eng_kv_bytes(p.type_v, kv_dim(m)));
}

/* Every head's slice of the cache rows must start on a block boundary. */
static int kv_check(int type, uint32_t head_dim, const char *which, fc_err *err) {
    if (type < 0 || type >= ENG_KV_TYPE_COUNT)
        return fc_err_set(err, FC_EINPUT, "unsupported %s cache type %d (supported: f16, q8_0)", which, type);
    uint32_t blck = ggml_type_get(kv_types[type].ggml_type)->blck;
    if (head_dim % blck)
        return fc_err_set(err, FC_EINPUT, "%s cache type %s needs a head size that is a multiple of %u (this model: %u)",
                          which, kv_types[type].name, blck, head_dim);
    return FC_OK;
}

/* Float elements of every activation buffer for one token, in the order they
 * are carved out of one allocation in eng_ctx_new. */
typedef struct buf_plan {
    size_t x, xb, xb2, q, kk, vv, hb, hb2, tmp, router, moe_in, moe_out, moe_w, moe_sel, moe_tok;
} buf_plan;

static buf_plan plan_bufs(const eng_model *m) {
    const model_hparams *hp = &m->hp;
    size_t wide = m->q_dim > hp->n_embd ? m->q_dim : hp->n_embd;
    if ((size_t)hp->n_head * hp->head_dim_v > wide) wide = (size_t)hp->n_head * hp->head_dim_v;
    size_t moe = hp->n_expert ? hp->n_embd : 0, used = hp->n_expert ? hp->n_expert_used : 0;
    return (buf_plan){hp->n_embd, wide, wide, m->q_dim, m->kv_dim_max, m->kv_dim_max,
                      m->ff_max, m->ff_max, hp->n_embd, hp->n_expert, moe, moe, used, used, hp->n_expert ? 1 : 0};
}

static size_t per_token_floats(const buf_plan *b) {
    return b->x + b->xb + b->xb2 + b->q + b->kk + b->vv + b->hb + b->hb2 + b->tmp + b->router + b->moe_in + b->moe_out +
           b->moe_w + b->moe_sel + b->moe_tok;
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
    int rc = eng_isa_pick(p.isa, &p.isa, err);
    if (rc) return rc;
    params_resolve(m, &p);
    if (p.n_threads > ENG_MAX_THREADS)
        return fc_err_set(err, FC_EINPUT, "%u threads requested, at most %d", p.n_threads, ENG_MAX_THREADS);
    rc = kv_check(p.type_k, m->hp.head_dim_k, "K", err);
    if (!rc) rc = kv_check(p.type_v, m->hp.head_dim_v, "V", err);
    if (!rc) rc = eng_model_copy_weights(m, err);
    if (rc) return rc;
    eng_ctx *c = fc_calloc(1, sizeof *c, err);
    if (!c) return FC_ERUNTIME;
    c->m = m;
    c->p = p;
    c->k = eng_kernels_get(p.isa);
    c->kv_dim = kv_dim(m);
    c->k_row = eng_kv_bytes(p.type_k, c->kv_dim);
    c->v_row = eng_kv_bytes(p.type_v, c->kv_dim);
    c->k_head = eng_kv_bytes(p.type_k, m->hp.head_dim_k);
    c->v_head = eng_kv_bytes(p.type_v, m->hp.head_dim_v);
    uint64_t kv_rows = (uint64_t)m->hp.n_layer * p.n_ctx;
    buf_plan b = plan_bufs(m);
    size_t ub = p.n_ubatch;
    c->k_cache = fc_malloc(kv_rows * c->k_row, err);
    c->v_cache = c->k_cache ? fc_malloc(kv_rows * c->v_row, err) : NULL;
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
    CARVE(moe_in); CARVE(moe_out); CARVE(moe_w);
#undef CARVE
    /* 4-byte slots of the same allocation, only ever used as indices */
    c->moe_sel = (uint32_t *)cur;
    c->moe_tok = c->moe_sel + ub * b.moe_sel;
    rc = eng_pool_new(&c->pool, (int)p.n_threads, err);
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

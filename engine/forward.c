/* The forward pass: one linear function per step, as in llama2.c, over a
 * batch of nt tokens at consecutive positions (nt = 1 when decoding).
 *
 *   x = embed(tokens)                                   (* sqrt(n_embd): Gemma)
 *   per layer:
 *     h = RMSNorm(x)·attn_norm;  q,k,v = Wq h (+b), Wk h (+b), Wv h (+b)
 *     q,k = RMSNorm per head (Qwen3, Gemma 3);  q,k = RoPE(q,k) (YaRN: gpt-oss)
 *     cache k,v (f16);  a = softmax(q·K / sqrt(d) + causal/sliding mask [, sink])·V
 *     o = Wo a (+b)  (-> RMSNorm·attn_post_norm: Gemma 3);  x = x + o
 *     h = RMSNorm(x)·ffn_norm;  f = Wdown (act(Wgate h) * Wup h)  or experts
 *     (-> RMSNorm·ffn_post_norm: Gemma 3);  x = x + f
 *   logits = Wout (RMSNorm(x_last)·output_norm)
 *
 * Matrix products, activation quantization, attention and the FFN activation
 * run on the thread pool; the small per-token steps run on the caller. */
#include "engine/internal.h"

#include <math.h>

/* At most this many matrices share one parallel section (Q, K, V). */
#define MM_MAX_JOBS 3

/* ---- small per-token steps --------------------------------------------------- */

/* y = x / sqrt(mean(x^2) + eps) * w, the sum in double like ggml. */
static void rmsnorm(float *y, const float *x, const float *w, int n, float eps) {
    double ss = 0.0;
    for (int i = 0; i < n; i++) ss += (double)x[i] * x[i];
    float scale = 1.0f / sqrtf((float)(ss / n) + eps);
    for (int i = 0; i < n; i++) y[i] = x[i] * scale * w[i];
}

static float silu(float x) { return x / (1.0f + expf(-x)); }

/* gpt-oss's gate (ggml_swiglu_oai, constants from llama.cpp build_moe_ffn):
 * the gate clamped above and the linear half clamped both ways at the limit,
 * x * sigmoid(alpha x) * (y + 1). */
#define OAI_ALPHA 1.702f
#define OAI_LIMIT 7.0f
static float swiglu_oai(float g, float u) {
    float x = fminf(g, OAI_LIMIT), y = fminf(fmaxf(u, -OAI_LIMIT), OAI_LIMIT);
    return x / (1.0f + expf(OAI_ALPHA * (-x))) * (y + 1.0f);
}

/* YaRN's ramp between the correction dimensions (ggml-cpu ops.cpp
 * rope_yarn_ramp, its minimum width 0.001): 1 below lo (extrapolate), 0 above hi. */
#define YARN_RAMP_MIN 0.001f
static float yarn_ramp(const float dims[2], int i) {
    float y = ((float)i - dims[0]) / fmaxf(YARN_RAMP_MIN, dims[1] - dims[0]);
    return 1.0f - fminf(1.0f, fmaxf(0.0f, y));
}

/* GELU, tanh approximation (what Gemma's "gelu_pytorch_tanh" means). */
static float gelu_tanh(float x) {
    const float sqrt_2_over_pi = 0.79788456080286535588f, coef_a = 0.044715f;
    return 0.5f * x * (1.0f + tanhf(sqrt_2_over_pi * x * (1.0f + coef_a * x * x)));
}

/* cos/sin table for each token and both RoPE bases (0 global, 1 local),
 * computed the way ggml does: theta_i = pos * base^(-2i/n_rot) built by
 * repeated multiplication, divided by the optional per-dimension factor;
 * scaled linearly, or with YaRN mixed with the unscaled angle along the ramp
 * and cos, sin multiplied by its attention factor (ggml rope_yarn). */
static void rope_table(eng_ctx *c, uint32_t pos0, int nt) {
    const eng_model *m = c->m;
    const model_hparams *hp = &m->hp;
    int half = (int)hp->n_rot / 2;
    const float bases[2] = {hp->rope_freq_base, hp->rope_freq_base_swa};
    /* Gemma 3 applies linear RoPE scaling to its global layers only. */
    const float scales[2] = {m->rope_freq_scale, m->arch->post_norms ? 1.0f : m->rope_freq_scale};
    for (int t = 0; t < nt; t++)
        for (int b = 0; b < 2; b++) {
            float *cs = c->rope_cs + ((size_t)t * 2 + b) * hp->n_rot;
            float theta_scale = powf(bases[b], -2.0f / (float)hp->n_rot), theta = (float)(pos0 + (uint32_t)t);
            for (int i = 0; i < half; i++) {
                float ex = m->rope_freqs ? theta / m->rope_freqs[i] : theta, th = scales[b] * ex;
                if (m->rope_ext != 0.0f) {
                    float mix = yarn_ramp(m->yarn_dims, i) * m->rope_ext;
                    th = th * (1 - mix) + ex * mix;
                }
                cs[2 * i] = cosf(th) * m->rope_mscale;
                cs[2 * i + 1] = sinf(th) * m->rope_mscale;
                theta *= theta_scale;
            }
        }
}

/* Rotates one head: pairs (2i, 2i+1) in normal mode, (i, i + n_rot/2) in neox mode. */
static void rope_head(float *x, const float *cs, int n_rot, int neox) {
    int half = n_rot / 2;
    for (int i = 0; i < half; i++) {
        int i0 = neox ? i : 2 * i, i1 = neox ? i + half : 2 * i + 1;
        float c = cs[2 * i], s = cs[2 * i + 1], x0 = x[i0], x1 = x[i1];
        x[i0] = x0 * c - x1 * s;
        x[i1] = x0 * s + x1 * c;
    }
}

/* ---- parallel sections ---------------------------------------------------------- */

typedef struct quant_task {
    const eng_kernels *k;
    const float *x;
    eng_q8a *y;
    int nt;
    int64_t n;
} quant_task;

static void quant_worker(void *arg, int ith, int nth) {
    quant_task *t = arg;
    int64_t lo, hi;
    eng_split(t->nt, ith, nth, &lo, &hi);
    for (int64_t i = lo; i < hi; i++) t->k->quantize_act(t->x + i * t->n, t->y + i * (t->n / 32), t->n);
}

/* Quantizes nt rows of n floats into c->actq; every matmul that follows reads
 * its activations from there (quantized types) or from x itself (float types). */
static void act_quantize(eng_ctx *c, const float *x, int nt, int64_t n) {
    quant_task t = {c->k, x, c->actq, nt, n};
    if (nt == 1) quant_worker(&t, 0, 1);
    else eng_pool_run(c->pool, quant_worker, &t);
}

typedef struct mm_job {
    const eng_mat *w;
    int64_t expert;
    float *out; /* [token][w->n_out] */
} mm_job;

typedef struct mm_task {
    const eng_kernels *k;
    mm_job jobs[MM_MAX_JOBS];
    int n_jobs;
    const float *x;
    const eng_q8a *xq;
    int nt;
} mm_task;

static void mm_worker(void *arg, int ith, int nth) {
    mm_task *t = arg;
    for (int j = 0; j < t->n_jobs; j++) {
        const eng_mat *w = t->jobs[j].w;
        const eng_type_ops *ops = &t->k->type[w->type];
        bool q8 = ops->act == ENG_ACT_Q8;
        const uint8_t *act = q8 ? (const uint8_t *)t->xq : (const uint8_t *)t->x;
        size_t as = eng_act_row_bytes(ops->act, w->n_in);
        const uint8_t *base = w->data + (size_t)t->jobs[j].expert * w->n_out * w->row_bytes;
        float *out = t->jobs[j].out;
        int64_t lo, hi;
        if (w->packed) { /* 8 rows per call, all tokens at once */
            int64_t groups = w->n_out / ENG_PACK_ROWS;
            const uint8_t *g0 = w->packed + (size_t)(t->jobs[j].expert * groups) * w->group_bytes;
            if (t->nt > 1 && ops->gemm_packed) {
                /* the GEMM unpacks a panel once for all tokens; whole tiles per thread */
                eng_split_tiles(groups, ENG_GEMM_ROWS / ENG_PACK_ROWS, ith, nth, &lo, &hi);
                if (hi > lo)
                    ops->gemm_packed(w->n_in, g0 + (size_t)lo * w->group_bytes, w->group_bytes,
                                     (hi - lo) * ENG_PACK_ROWS, act, as, t->nt, out + lo * ENG_PACK_ROWS,
                                     (size_t)w->n_out);
                continue;
            }
            eng_split(groups, ith, nth, &lo, &hi);
            for (int64_t g = lo; g < hi; g++)
                ops->packed_dot(w->n_in, g0 + (size_t)g * w->group_bytes, act, as, t->nt, out + g * ENG_PACK_ROWS,
                                (size_t)w->n_out);
            continue;
        }
        if (t->nt > 1 && ops->gemm) {
            /* whole tiles per thread, so no thread runs a partial tile mid-matrix */
            eng_split_tiles(w->n_out, ENG_GEMM_ROWS, ith, nth, &lo, &hi);
            if (hi > lo)
                ops->gemm(w->n_in, base + lo * w->row_bytes, w->row_bytes, hi - lo, act, as, t->nt, out + lo,
                          (size_t)w->n_out);
            continue;
        }
        eng_split(w->n_out, ith, nth, &lo, &hi);
        if (t->nt == 1 && ops->gemv) {
            if (hi > lo) ops->gemv(w->n_in, base + lo * w->row_bytes, w->row_bytes, hi - lo, act, as, 1, out + lo, 1);
            continue;
        }
        for (int64_t r = lo; r < hi; r++)
            for (int t0 = 0; t0 < t->nt; t0 += ENG_NR_MAX) {
                int nr = t->nt - t0 < ENG_NR_MAX ? t->nt - t0 : ENG_NR_MAX;
                ops->vec_dot(w->n_in, base + r * w->row_bytes, act + t0 * as, as, nr, out + (size_t)t0 * w->n_out + r,
                             (size_t)w->n_out);
            }
    }
}

/* out_j = W_j x for up to MM_MAX_JOBS matrices with the same input, in one
 * parallel section. act_quantize(x) must have run. */
static void matmul(eng_ctx *c, const float *x, int nt, const mm_job *jobs, int n_jobs) {
    mm_task t = {.k = c->k, .n_jobs = n_jobs, .x = x, .xq = c->actq, .nt = nt};
    for (int j = 0; j < n_jobs; j++) t.jobs[j] = jobs[j];
    eng_pool_run(c->pool, mm_worker, &t);
}

typedef struct attn_task {
    eng_ctx *c;
    const eng_layer *L;
    uint32_t il, pos0;
    int nt;
} attn_task;

static void attn_worker(void *arg, int ith, int nth) {
    attn_task *t = arg;
    eng_ctx *c = t->c;
    const model_hparams *hp = &c->m->hp;
    uint32_t n_head = hp->n_head, n_kv = hp->n_head_kv[t->il], hd = hp->head_dim_k, hv = hp->head_dim_v;
    uint32_t q_dim = c->m->q_dim, out_dim = n_head * hv, window = hp->sliding_window;
    const uint8_t *kc = c->k_cache + (size_t)t->il * c->p.n_ctx * c->k_row;
    const uint8_t *vc = c->v_cache + (size_t)t->il * c->p.n_ctx * c->v_row;
    const eng_kv_ops *ko = &c->k->kv[c->p.type_k], *vo = &c->k->kv[c->p.type_v];
    /* one KV head's positions, one after another (internal.h) */
    size_t k_head = c->k_head, v_head = c->v_head, k_span = c->p.n_ctx * k_head, v_span = c->p.n_ctx * v_head;
    float *att = c->att + (size_t)ith * c->p.n_ctx;
    const float *sinks = t->L->sinks;
    int64_t lo, hi;
    bool block = c->k->attn && hd % ENG_ATTN_DIM_ALIGN == 0 && hv % ENG_ATTN_DIM_ALIGN == 0 &&
                 hd <= ENG_ATTN_DIM_MAX && hv <= ENG_ATTN_DIM_MAX;
    uint32_t group = n_head / n_kv;
    if (block && t->nt == 1 && group <= ENG_ATTN_QB) {
        /* decoding: the query heads of one KV head are one block of queries at
         * one position, so each key is converted once for all of them */
        eng_split(n_kv, ith, nth, &lo, &hi);
        for (int64_t kvh = lo; kvh < hi; kvh++)
            c->k->attn(c->q + (size_t)kvh * group * hd, hd, (int)group, t->pos0, 0, t->L->swa ? window : 0,
                       kc + kvh * k_span, k_head, c->p.type_k, vc + kvh * v_span, v_head, c->p.type_v, (int)hd,
                       (int)hv, c->m->attn_scale, sinks ? sinks + kvh * group : NULL, 1,
                       c->xb2 + (size_t)kvh * group * hv, hv);
        return;
    }
    if (block && t->nt > 1) {
        /* head-major items: every thread gets all token blocks (short and long
         * key ranges alike) of its share of heads */
        int64_t nb = (t->nt + ENG_ATTN_QB - 1) / ENG_ATTN_QB;
        eng_split(nb * n_head, ith, nth, &lo, &hi);
        for (int64_t item = lo; item < hi; item++) {
            uint32_t h = (uint32_t)(item / nb), kvh = h / (n_head / n_kv), t0 = (uint32_t)(item % nb) * ENG_ATTN_QB;
            int nq = t->nt - (int)t0 < ENG_ATTN_QB ? t->nt - (int)t0 : ENG_ATTN_QB;
            c->k->attn(c->q + (size_t)t0 * q_dim + (size_t)h * hd, q_dim, nq, t->pos0 + t0, 1, t->L->swa ? window : 0,
                       kc + kvh * k_span, k_head, c->p.type_k, vc + kvh * v_span, v_head, c->p.type_v,
                       (int)hd, (int)hv, c->m->attn_scale, sinks ? sinks + h : NULL, 0,
                       c->xb2 + (size_t)t0 * out_dim + (size_t)h * hv, out_dim);
        }
        return;
    }
    eng_split((int64_t)t->nt * n_head, ith, nth, &lo, &hi);
    for (int64_t item = lo; item < hi; item++) {
        uint32_t tok = (uint32_t)(item / n_head), h = (uint32_t)(item % n_head), kvh = h / (n_head / n_kv);
        uint32_t pos = t->pos0 + tok, first = t->L->swa && pos + 1 > window ? pos + 1 - window : 0;
        const float *q = c->q + (size_t)tok * q_dim + (size_t)h * hd;
        /* a sink is one more score in the softmax, with no value row */
        float mx = sinks ? sinks[h] : -INFINITY;
        for (uint32_t s = first; s <= pos; s++) {
            att[s] = ko->dot(kc + kvh * k_span + s * k_head, q, (int)hd) * c->m->attn_scale;
            if (att[s] > mx) mx = att[s];
        }
        float sum = sinks ? expf(sinks[h] - mx) : 0.0f;
        for (uint32_t s = first; s <= pos; s++) sum += att[s] = expf(att[s] - mx);
        float *out = c->xb2 + (size_t)tok * out_dim + (size_t)h * hv;
        memset(out, 0, hv * sizeof(float));
        for (uint32_t s = first; s <= pos; s++)
            vo->axpy(out, att[s] / sum, vc + kvh * v_span + s * v_head, (int)hv);
    }
}

typedef struct glu_task {
    float *g;
    const float *u;
    int64_t n;
    int glu; /* enum eng_glu */
} glu_task;

static void glu_worker(void *arg, int ith, int nth) {
    glu_task *t = arg;
    int64_t lo, hi;
    eng_split(t->n, ith, nth, &lo, &hi);
    for (int64_t i = lo; i < hi; i++)
        t->g[i] = t->glu == ENG_GLU_SWIGLU_OAI ? swiglu_oai(t->g[i], t->u[i])
                  : t->glu == ENG_GLU_GELU     ? gelu_tanh(t->g[i]) * t->u[i]
                                               : silu(t->g[i]) * t->u[i];
}

/* y[t][i] += b[i] for nt rows of n (b NULL: nothing). */
static void add_bias(float *y, const float *b, int nt, int64_t n) {
    for (int t = 0; b && t < nt; t++)
        for (int64_t i = 0; i < n; i++) y[(size_t)t * n + i] += b[i];
}

/* ---- the layer steps ---------------------------------------------------------------- */

static void attention(eng_ctx *c, uint32_t il, uint32_t pos0, int nt) {
    const eng_model *m = c->m;
    const model_hparams *hp = &m->hp;
    const eng_layer *L = &m->layers[il];
    uint32_t n_embd = hp->n_embd, hd = hp->head_dim_k, n_kv = hp->n_head_kv[il];
    uint32_t kd = n_kv * hd, vd = n_kv * hp->head_dim_v, q_dim = m->q_dim;
    float eps = hp->norm_eps;

    for (int t = 0; t < nt; t++) rmsnorm(c->xb + (size_t)t * n_embd, c->x + (size_t)t * n_embd, L->attn_norm, (int)n_embd, eps);
    act_quantize(c, c->xb, nt, n_embd);
    mm_job qkv[3] = {{&L->wq, 0, c->q}, {&L->wk, 0, c->kk}, {&L->wv, 0, c->vv}};
    matmul(c, c->xb, nt, qkv, 3);

    for (int t = 0; t < nt; t++) {
        float *q = c->q + (size_t)t * q_dim, *k = c->kk + (size_t)t * kd, *v = c->vv + (size_t)t * vd;
        const float *cs = c->rope_cs + ((size_t)t * 2 + (L->swa ? 1 : 0)) * hp->n_rot;
        add_bias(q, L->bq, 1, q_dim);
        add_bias(k, L->bk, 1, kd);
        add_bias(v, L->bv, 1, vd);
        for (uint32_t h = 0; h < hp->n_head; h++) {
            if (L->q_norm) rmsnorm(q + h * hd, q + h * hd, L->q_norm, (int)hd, eps);
            rope_head(q + h * hd, cs, (int)hp->n_rot, hp->rope_type == MODEL_ROPE_NEOX);
        }
        for (uint32_t h = 0; h < n_kv; h++) {
            if (L->k_norm) rmsnorm(k + h * hd, k + h * hd, L->k_norm, (int)hd, eps);
            rope_head(k + h * hd, cs, (int)hp->n_rot, hp->rope_type == MODEL_ROPE_NEOX);
        }
        uint8_t *kl = c->k_cache + (size_t)il * c->p.n_ctx * c->k_row, *vl = c->v_cache + (size_t)il * c->p.n_ctx * c->v_row;
        for (uint32_t h = 0; h < n_kv; h++) {
            size_t slot = (size_t)h * c->p.n_ctx + pos0 + (uint32_t)t;
            c->k->kv[c->p.type_k].store(k + h * hd, kl + slot * c->k_head, (int)hd);
            c->k->kv[c->p.type_v].store(v + h * hp->head_dim_v, vl + slot * c->v_head, (int)hp->head_dim_v);
        }
    }

    attn_task at = {c, L, il, pos0, nt};
    eng_pool_run(c->pool, attn_worker, &at);

    uint32_t a_dim = hp->n_head * hp->head_dim_v;
    act_quantize(c, c->xb2, nt, a_dim);
    mm_job o = {&L->wo, 0, c->tmp};
    matmul(c, c->xb2, nt, &o, 1);
    add_bias(c->tmp, L->bo, nt, n_embd);
}

/* Dense gated FFN on c->xb (already normed) into c->tmp. */
static void ffn_dense(eng_ctx *c, const eng_layer *L, int nt) {
    int64_t ff = L->ffn_gate.n_out;
    act_quantize(c, c->xb, nt, c->m->hp.n_embd);
    mm_job gu[2] = {{&L->ffn_gate, 0, c->hb}, {&L->ffn_up, 0, c->hb2}};
    matmul(c, c->xb, nt, gu, 2);
    glu_task g = {c->hb, c->hb2, ff * nt, c->m->arch->glu};
    eng_pool_run(c->pool, glu_worker, &g);
    act_quantize(c, c->hb, nt, ff);
    mm_job d = {&L->ffn_down, 0, c->tmp};
    matmul(c, c->hb, nt, &d, 1);
}

/* Mixture of experts: per token, softmax over the router's logits (+ bias:
 * gpt-oss), the top n_expert_used, their weights renormalised to sum 1 (the
 * same as gpt-oss's softmax over the chosen logits); then expert by expert,
 * the tokens routed to it gathered into one batch, so a prefill multiplies
 * each expert's matrices once for all its tokens (the GEMM) instead of once
 * per token, and a decode step runs only the chosen experts. Each token's
 * output is the weighted sum of its experts' outputs. */
static void ffn_moe(eng_ctx *c, const eng_layer *L, int nt) {
    const model_hparams *hp = &c->m->hp;
    uint32_t n_embd = hp->n_embd, ne = hp->n_expert, k = hp->n_expert_used;
    int64_t ff = L->gate_exps.n_out;
    act_quantize(c, c->xb, nt, n_embd);
    mm_job r = {&L->gate_inp, 0, c->router};
    matmul(c, c->xb, nt, &r, 1);
    add_bias(c->router, L->gate_inp_b, nt, ne);
    for (int t = 0; t < nt; t++) {
        float *p = c->router + (size_t)t * ne, mx = -INFINITY, sum = 0.0f, wsum = 0.0f;
        uint32_t *sel = c->moe_sel + (size_t)t * k;
        float *w = c->moe_w + (size_t)t * k;
        for (uint32_t e = 0; e < ne; e++) mx = fmaxf(mx, p[e]);
        for (uint32_t e = 0; e < ne; e++) sum += p[e] = expf(p[e] - mx);
        for (uint32_t i = 0; i < k; i++) {
            uint32_t best = 0;
            for (uint32_t e = 1; e < ne; e++)
                if (p[e] > p[best]) best = e;
            sel[i] = best;
            wsum += w[i] = p[best] / sum;
            p[best] = -1.0f; /* probabilities are >= 0: never picked again */
        }
        for (uint32_t i = 0; i < k; i++) w[i] /= wsum;
    }
    memset(c->tmp, 0, (size_t)nt * n_embd * sizeof(float));
    for (uint32_t e = 0; e < ne; e++) {
        /* gather the tokens routed to expert e (row j of moe_in is token moe_tok[j]) */
        int m = 0;
        for (int t = 0; t < nt; t++)
            for (uint32_t i = 0; i < k; i++)
                if (c->moe_sel[(size_t)t * k + i] == e) {
                    memcpy(c->moe_in + (size_t)m * n_embd, c->xb + (size_t)t * n_embd, n_embd * sizeof(float));
                    c->moe_tok[m++] = (uint32_t)t;
                    break;
                }
        if (!m) continue;
        act_quantize(c, c->moe_in, m, n_embd);
        mm_job gu[2] = {{&L->gate_exps, e, c->hb}, {&L->up_exps, e, c->hb2}};
        matmul(c, c->moe_in, m, gu, 2);
        add_bias(c->hb, L->gate_exps_b ? L->gate_exps_b + (size_t)e * ff : NULL, m, ff);
        add_bias(c->hb2, L->up_exps_b ? L->up_exps_b + (size_t)e * ff : NULL, m, ff);
        glu_task g = {c->hb, c->hb2, ff * m, c->m->arch->glu};
        if (m == 1) glu_worker(&g, 0, 1);
        else eng_pool_run(c->pool, glu_worker, &g);
        act_quantize(c, c->hb, m, ff);
        mm_job d = {&L->down_exps, e, c->moe_out};
        matmul(c, c->hb, m, &d, 1);
        add_bias(c->moe_out, L->down_exps_b ? L->down_exps_b + (size_t)e * n_embd : NULL, m, n_embd);
        for (int j = 0; j < m; j++) {
            uint32_t t = c->moe_tok[j], i = 0;
            while (c->moe_sel[(size_t)t * k + i] != e) i++;
            float w = c->moe_w[(size_t)t * k + i], *out = c->tmp + (size_t)t * n_embd;
            const float *y = c->moe_out + (size_t)j * n_embd;
            for (uint32_t x = 0; x < n_embd; x++) out[x] += w * y[x];
        }
    }
}

/* x += (optionally normed) c->tmp for every token. */
static void residual(eng_ctx *c, const float *post_norm, int nt) {
    uint32_t n = c->m->hp.n_embd;
    for (int t = 0; t < nt; t++) {
        float *o = c->tmp + (size_t)t * n, *x = c->x + (size_t)t * n;
        if (post_norm) rmsnorm(o, o, post_norm, (int)n, c->m->hp.norm_eps);
        for (uint32_t i = 0; i < n; i++) x[i] += o[i];
    }
}

/* Runs nt <= n_ubatch tokens at positions pos..pos+nt-1; logits of the last. */
static void forward(eng_ctx *c, const int32_t *tokens, int nt) {
    const eng_model *m = c->m;
    const model_hparams *hp = &m->hp;
    uint32_t n_embd = hp->n_embd, pos0 = c->pos;
    const eng_type_ops *embd = &c->k->type[m->tok_embd.type];
    for (int t = 0; t < nt; t++) {
        float *x = c->x + (size_t)t * n_embd;
        embd->to_float(m->tok_embd.data + (size_t)tokens[t] * m->tok_embd.row_bytes, x, n_embd);
        if (m->embd_scale != 1.0f)
            for (uint32_t i = 0; i < n_embd; i++) x[i] *= m->embd_scale;
    }
    rope_table(c, pos0, nt);
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        const eng_layer *L = &m->layers[il];
        attention(c, il, pos0, nt);
        residual(c, L->attn_post_norm, nt);
        for (int t = 0; t < nt; t++)
            rmsnorm(c->xb + (size_t)t * n_embd, c->x + (size_t)t * n_embd, L->ffn_norm, (int)n_embd, hp->norm_eps);
        if (L->moe) ffn_moe(c, L, nt);
        else ffn_dense(c, L, nt);
        residual(c, L->ffn_post_norm, nt);
    }
    rmsnorm(c->xb, c->x + (size_t)(nt - 1) * n_embd, m->output_norm, (int)n_embd, hp->norm_eps);
    act_quantize(c, c->xb, 1, n_embd);
    mm_job out = {&m->output, 0, c->logits};
    matmul(c, c->xb, 1, &out, 1);
    c->pos += (uint32_t)nt;
}

int eng_decode(eng_ctx *c, const int32_t *tokens, uint32_t n, const float **logits, fc_err *err) {
    if (n == 0) return fc_err_set(err, FC_EINPUT, "no tokens to decode");
    if ((uint64_t)c->pos + n > c->p.n_ctx)
        return fc_err_set(err, FC_EINPUT, "context full: %u cached + %u new tokens exceed the context of %u", c->pos, n,
                          c->p.n_ctx);
    for (uint32_t i = 0; i < n; i++)
        if (tokens[i] < 0 || (uint32_t)tokens[i] >= c->m->hp.n_vocab)
            return fc_err_set(err, FC_EINPUT, "token id %d at index %u is outside the vocabulary (0..%u)", tokens[i], i,
                              c->m->hp.n_vocab - 1);
    for (uint32_t i = 0; i < n; i += c->p.n_ubatch) {
        uint32_t nt = n - i < c->p.n_ubatch ? n - i : c->p.n_ubatch;
        forward(c, tokens + i, (int)nt);
        if (fc_interrupted) return fc_err_set(err, FC_ERUNTIME, "interrupted");
    }
    *logits = c->logits;
    return FC_OK;
}

int32_t eng_argmax(const float *logits, uint32_t n) {
    uint32_t best = 0;
    for (uint32_t i = 1; i < n; i++)
        if (logits[i] > logits[best]) best = i;
    return (int32_t)best;
}

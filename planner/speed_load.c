/* From a model's tensor table and a placement to the work each device does
 * per token: bytes and elements of the matrices it multiplies, per type, and
 * the KV cache and attention it reads per cached position. */
#include "planner/planner.h"

#include <string.h>

static bool role_is_expert(int role) {
    return role == ROLE_FFN_GATE_EXPS || role == ROLE_FFN_UP_EXPS || role == ROLE_FFN_DOWN_EXPS;
}

/* A 1-D tensor (norm, bias) costs nothing worth modelling; the embedding
 * table is read one row per token, unless it doubles as the output matrix. */
static bool tensor_is_matmul(const model_tensor *t, bool embd_is_output) {
    if (t->n_dims < 2) return false;
    if (t->role == ROLE_TOKEN_EMBD) return embd_is_output;
    return true;
}

/* The graph nodes a layer's tensor brings to llama.cpp's graph of one token (llama-graph.cpp): a matrix its
 * product (mul_mat, mul_mat_id), a bias its add, a norm's weight its norm, which the backends run fused with
 * the scale (CUDA's rms_norm + mul fusion, Metal's #16220, the CPU's #22423), DeepSeek's routing bias an add;
 * attention sinks are an operand of the attention kernel, no node of their own. */
static double tensor_nodes(const model_tensor *t) {
    if (t->n_dims >= 2 || t->role == ROLE_ATTN_BIAS) return 1;
    return t->role == ROLE_NORM && !strstr(t->name, "attn_sinks") ? 1 : 0;
}
/* A dense Llama layer's tensor nodes, the basis layer_us and ubatch_us are priced on (planner/speed.c): Q, K,
 * V, the output matrix, gate, up and down, and two norms. */
#define LLAMA_LAYER_TENSOR_NODES 9.0

int plan_speed_loads(plan_speed_setup *s, const model_desc *m, const plan_speed_place *pl, fc_err *err) {
    const model_hparams *hp = &m->hp;
    if (s->n_dev <= 0 || s->n_dev > PLAN_SPEED_MAX_DEVS)
        return fc_err_set(err, FC_EINPUT, "speed model: %d devices (1..%d)", s->n_dev, PLAN_SPEED_MAX_DEVS);
    if (hp->n_layer == 0 || hp->n_layer > MODEL_MAX_LAYERS)
        return fc_err_set(err, FC_EINPUT, "speed model: %u layers", hp->n_layer);
    for (uint32_t il = 0; il < hp->n_layer; il++)
        if (pl->layer_dev[il] < 0 || pl->layer_dev[il] >= s->n_dev)
            return fc_err_set(err, FC_EINPUT, "speed model: layer %u on device %d of %d", il, pl->layer_dev[il],
                              s->n_dev);
    if (pl->output_dev < 0 || pl->output_dev >= s->n_dev || pl->exps_dev >= s->n_dev)
        return fc_err_set(err, FC_EINPUT, "speed model: output or expert device out of range");
    const ggml_type_info *kv = ggml_type_get(pl->kv_type);
    if (!kv) return fc_err_set(err, FC_EINPUT, "speed model: KV cache type %u unknown", pl->kv_type);
    double kv_bpe = (double)kv->bytes / kv->blck;

    memset(s->load, 0, sizeof s->load);
    bool has_output = false;
    for (uint32_t i = 0; i < m->n_tensors; i++) has_output |= m->tensors[i].role == ROLE_OUTPUT;
    double frac = hp->n_expert ? (double)hp->n_expert_used / hp->n_expert : 0;

    for (uint32_t i = 0; i < m->n_tensors; i++) {
        const model_tensor *t = &m->tensors[i];
        bool in_layer = t->layer >= 0 && (uint32_t)t->layer < hp->n_layer;
        int dev = in_layer ? pl->layer_dev[t->layer] : pl->output_dev;
        bool exp = role_is_expert(t->role) && frac > 0;
        bool moved = exp && pl->exps_dev >= 0 && in_layer && (uint32_t)t->layer < pl->exps_layers;
        if (moved) dev = pl->exps_dev;
        plan_speed_load *l = &s->load[dev];
        if (in_layer) l->extra_nodes += tensor_nodes(t);
        if (!tensor_is_matmul(t, !has_output) || t->type >= GGML_TYPE_COUNT) continue;
        double elems = (double)t->ne[0] * t->ne[1] * t->ne[2] * t->ne[3];
        if (t->role == ROLE_OUTPUT || t->role == ROLE_TOKEN_EMBD) {
            l->out_bytes += t->bytes;
            l->out_elems += elems;
            l->out_type = t->type;
            continue;
        }
        double share = exp ? frac : 1.0;
        l->bytes[t->type] += t->bytes * share;
        l->elems[t->type] += elems * share;
        if (exp) {
            l->exp_bytes[t->type] += t->bytes;
            l->exp_frac = frac;
        }
    }

    s->n_hops = 0;
    int prev = pl->layer_dev[0];
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        int dev = pl->layer_dev[il];
        plan_speed_load *l = &s->load[dev];
        l->n_layers++;
        l->extra_nodes -= LLAMA_LAYER_TENSOR_NODES;
        double kv_el = (double)(model_hparams_kv_k_elems(hp, il) + model_hparams_kv_v_elems(hp, il)), kv_pos = kv_el * kv_bpe;
        double macs = (double)hp->n_head * (hp->head_dim_k + hp->head_dim_v);
        if (hp->sliding_window && hp->swa_layer[il]) {
            l->kv_bytes_swa += kv_pos;
            l->kv_elems_swa += kv_el;
            l->attn_macs_swa += macs;
            l->heads_swa += hp->n_head;
            l->swa_window = hp->sliding_window;
        } else {
            l->kv_bytes_full += kv_pos;
            l->kv_elems_full += kv_el;
            l->attn_macs_full += macs;
            l->heads_full += hp->n_head;
        }
        bool moe = frac > 0 && il >= hp->n_layer_dense_lead;
        if (moe) {
            l->n_moe_layers++;
            l->n_expert_used = hp->n_expert_used;
        }
        if (dev != prev) s->n_hops++;
        /* Experts elsewhere: the activations go there and back in every MoE layer. */
        if (moe && pl->exps_dev >= 0 && pl->exps_dev != dev && il < pl->exps_layers) s->n_hops += 2;
        prev = dev;
    }
    if (pl->output_dev != prev) s->n_hops++;

    s->pp_dev = -1;
    for (int d = 0; d < s->n_dev; d++) {
        s->load[d].host_resident = s->dev[d].backend == PLAN_CPU;
        if (s->pp_dev < 0 && s->dev[d].backend != PLAN_CPU && s->dev[d].link_gbs > 0) s->pp_dev = d;
    }
    return FC_OK;
}

/* Typical shapes by size, for models known only by their parameter count
 * (llama-bench prints no shapes): layers and width of the Llama/Qwen family. */
static const struct { double max_params; uint32_t n_layer, n_embd; } summary_shapes[] = {
    {0.5e9, 24, 1024}, {2.0e9, 22, 2048}, {5.0e9, 28, 3072}, {10e9, 32, 4096},
    {20e9, 40, 5120}, {40e9, 64, 5120}, {90e9, 80, 8192}, {1e15, 126, 16384},
};
#define SUMMARY_HEAD_DIM 128
#define SUMMARY_GQA 4
#define SUMMARY_VOCAB 32000

int plan_speed_load_summary(plan_speed_setup *s, int dev, const plan_model_summary *ms, fc_err *err) {
    if (dev < 0 || dev >= s->n_dev) return fc_err_set(err, FC_EINPUT, "speed model: device %d of %d", dev, s->n_dev);
    if (!(ms->n_params > 0) || !(ms->size_bytes > 0) || ms->type >= GGML_TYPE_COUNT || !ggml_type_get(ms->type))
        return fc_err_set(err, FC_EINPUT, "model summary: needs parameters, size and a known type");
    uint32_t n_layer = ms->n_layer, n_embd = ms->n_embd;
    for (size_t i = 0; (!n_layer || !n_embd) && i < FC_ARRAY_LEN(summary_shapes); i++)
        if (ms->n_params <= summary_shapes[i].max_params) {
            n_layer = n_layer ? n_layer : summary_shapes[i].n_layer;
            n_embd = n_embd ? n_embd : summary_shapes[i].n_embd;
        }
    uint32_t head_dim = ms->head_dim ? ms->head_dim : SUMMARY_HEAD_DIM;
    uint32_t n_head = ms->n_head ? ms->n_head : n_embd / head_dim;
    uint32_t n_head_kv = ms->n_head_kv ? ms->n_head_kv : (n_head >= SUMMARY_GQA ? n_head / SUMMARY_GQA : 1);
    uint32_t n_vocab = ms->n_vocab ? ms->n_vocab : SUMMARY_VOCAB;
    if (!n_layer || !n_head || n_layer > MODEL_MAX_LAYERS) return fc_err_set(err, FC_EINPUT, "model summary: bad shapes");
    /* Embedding and output are each n_vocab x n_embd; the rest are the layers'
     * matrices. The file's average bits per weight applies to all of them. */
    double embd = (double)n_vocab * n_embd, bpw_bytes = ms->size_bytes / ms->n_params;
    double layers = ms->n_params - 2 * embd;
    if (layers <= 0) layers = ms->n_params * 0.5;
    plan_speed_load *l = &s->load[dev];
    memset(l, 0, sizeof *l);
    l->bytes[ms->type] = layers * bpw_bytes;
    l->elems[ms->type] = layers;
    l->out_bytes = embd * bpw_bytes;
    l->out_elems = embd;
    l->out_type = ms->type;
    l->n_layers = n_layer;
    l->kv_elems_full = 2.0 * n_layer * n_head_kv * head_dim; /* K and V */
    l->kv_bytes_full = l->kv_elems_full * 2;                   /* f16 */
    l->attn_macs_full = 2.0 * n_layer * n_head * head_dim;
    l->heads_full = (double)n_layer * n_head;
    l->host_resident = s->dev[dev].backend == PLAN_CPU;
    s->pp_dev = -1;
    return FC_OK;
}

int plan_predict_bench(const model_desc *m, const probe_profile *p, int n_threads, uint32_t kv_type, int n_prompt,
                       int n_gen, int n_depth, double *pp_tps, double *tg_tps, fc_err *err) {
    plan_efficiency e;
    int rc = plan_efficiency_load(&e, NULL, err);
    if (rc) return rc;
    plan_speed_setup s;
    memset(&s, 0, sizeof s);
    s.n_dev = 1;
    s.engine = PLAN_ENG_FITCHECK;
    s.n_ubatch = PLAN_DEFAULT_UBATCH;
    if (plan_speed_dev_cpu(&s.dev[0], p, n_threads))
        return fc_err_set(err, FC_EINPUT, "machine profile has no memory bandwidth (run 'fitcheck probe')");
    plan_speed_place pl;
    memset(&pl, 0, sizeof pl); /* every layer, the output and the experts on device 0 */
    pl.exps_dev = -1;
    pl.kv_type = kv_type;
    rc = plan_speed_loads(&s, m, &pl, err);
    if (rc) return rc;
    if (pp_tps) *pp_tps = plan_speed_pp_tps(&s, &e, n_prompt, n_depth);
    if (tg_tps) *tg_tps = plan_speed_tg_tps(&s, &e, n_gen, n_depth);
    return FC_OK;
}

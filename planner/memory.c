/* What llama.cpp allocates per device for a model and a placement.
 *
 * Placement follows llama.cpp's llama_model::load_tensors: with -ngl N the
 * last N of the n_layer+1 "layers" (the +1 is the output) go to the GPUs,
 * split across them by cumulative fractions of free memory (or
 * --tensor-split); token_embd always stays on the CPU; each layer's KV cache
 * lives with the layer. Compute buffers are the peak of the graph phases a
 * backend runs (attention, FFN, output), because ggml's allocator reuses
 * memory between them. See docs/planner-memory.md for the derivation and the
 * llama.cpp figures each formula was checked against. */
#include "planner/planner.h"

#include <string.h>

#define PAD_UP(x, n) (((x) + (n) - 1) / (n) * (n))
#define KV_PAD_FA 256      /* llama.cpp pads the KV size to 256 cells with flash attention */
#define KV_PAD_NOFA 32
#define MASK_PAD 64        /* GGML_KQ_MASK_PAD: mask rows padded for the FA kernels */
#define F32_BYTES 4
#define F16_BYTES 2
#define OP_OFFLOAD_MIN_BATCH 32 /* llama.cpp copies CPU weights to the GPU for batches >= 32 */

/* Fixed memory a backend takes before any buffer: driver context, cuBLAS /
 * hipBLAS workspaces, the process itself on the host. CUDA 0.45-0.5 GiB is
 * the measured range (measuring-and-predicting notes, nvidia-smi on an idle
 * llama.cpp); the others are estimates of the same parts. Metal wires
 * nothing extra: its limit is the GPU share of RAM. */
static const uint64_t backend_overhead[PLAN_BACKEND_COUNT] = {
    [PLAN_CPU] = 96ull << 20, [PLAN_CUDA] = 480ull << 20, [PLAN_ROCM] = 512ull << 20,
    [PLAN_METAL] = 0,         [PLAN_VULKAN] = 256ull << 20, [PLAN_SYCL] = 512ull << 20,
};

/* Verdict: "tight" when less than this much would be left (llama.cpp's
 * --fit leaves 1 GiB), or a tenth of the device on small devices. */
#define TIGHT_MARGIN_MAX (1ull << 30)
#define TIGHT_MARGIN_DIV 10

void plan_params_default(plan_params *p) {
    memset(p, 0, sizeof *p);
    p->n_ctx = PLAN_DEFAULT_CTX;
    p->n_ubatch = PLAN_DEFAULT_UBATCH;
    p->n_batch = PLAN_DEFAULT_BATCH;
    p->n_parallel = 1;
    p->type_k = p->type_v = GGML_TYPE_F16;
    /* llama.cpp's -fa auto turns flash attention on for CPU, CUDA and Metal. */
    p->flash_attn = true;
    p->n_gpu_layers = PLAN_NGL_ALL;
    p->n_cpu_moe = 0;
}

static const char *const verdict_names[] = {"fits", "tight", "does not fit"};

const char *plan_verdict_name(int v) { return v >= PLAN_FITS && v <= PLAN_NO_FIT ? verdict_names[v] : "?"; }

uint32_t plan_kv_cells(const model_hparams *hp, const plan_params *p, bool swa) {
    uint64_t pad = p->flash_attn ? KV_PAD_FA : KV_PAD_NOFA;
    uint64_t cells = PAD_UP((uint64_t)p->n_ctx, pad);
    if (swa && hp->sliding_window) {
        uint64_t w = PAD_UP((uint64_t)hp->sliding_window * p->n_parallel + p->n_ubatch, pad);
        if (w < cells) cells = w;
    }
    return cells > UINT32_MAX ? UINT32_MAX : (uint32_t)cells;
}

int plan_kv_layer_bytes(const model_hparams *hp, uint32_t il, uint32_t cells, uint32_t type_k, uint32_t type_v,
                        uint64_t *out, fc_err *err) {
    uint64_t k_elems = model_hparams_kv_k_elems(hp, il);
    /* MLA keeps one latent row per token; V is a view of it. */
    uint64_t v_elems = hp->kv_lora_rank ? 0 : model_hparams_kv_v_elems(hp, il);
    uint64_t k_row = 0, v_row = 0, k, v;
    if (!ggml_row_bytes(type_k, k_elems, &k_row) || !ggml_row_bytes(type_v, v_elems, &v_row)) {
        const ggml_type_info *tk = ggml_type_get(type_k), *tv = ggml_type_get(type_v);
        return fc_err_set(err, FC_EINPUT, "layer %u: KV rows of %llu/%llu elements are not whole blocks of %s/%s", il,
                          (unsigned long long)k_elems, (unsigned long long)v_elems, tk ? tk->name : "?",
                          tv ? tv->name : "?");
    }
    if (!fc_mul_u64(k_row, cells, &k) || !fc_mul_u64(v_row, cells, &v) || !fc_add_u64(k, v, out))
        return fc_err_set(err, FC_EINPUT, "layer %u: KV cache size overflows", il);
    return FC_OK;
}

/* ---- placement ---------------------------------------------------------- */

typedef struct placement {
    int n_gpu;
    uint32_t i_gpu_start, n_act;     /* first offloaded layer, offloaded layer count (+output) */
    float cum[PLAN_MAX_DEVICES];     /* cumulative split fractions */
} placement;

static void placement_init(placement *pl, const model_hparams *hp, const plan_hw *hw, const plan_params *p) {
    memset(pl, 0, sizeof *pl);
    uint32_t all = hp->n_layer + 1;
    uint32_t ngl = p->n_gpu_layers < 0 || (uint32_t)p->n_gpu_layers > all ? all : (uint32_t)p->n_gpu_layers;
    pl->n_gpu = hw->n_gpu;
    if (!hw->n_gpu) ngl = 0;
    pl->i_gpu_start = all - ngl;
    pl->n_act = ngl;
    double w[PLAN_MAX_DEVICES], sum = 0;
    bool given = false;
    for (int g = 0; g < hw->n_gpu; g++) given |= p->tensor_split[g] > 0;
    for (int g = 0; g < hw->n_gpu; g++) sum += w[g] = given ? p->tensor_split[g] : (double)hw->gpu[g].mem_free;
    double acc = 0;
    for (int g = 0; g < hw->n_gpu; g++) {
        acc += sum > 0 ? w[g] / sum : 1.0 / hw->n_gpu;
        pl->cum[g] = (float)acc;
    }
}

/* Device of layer il (il == n_layer: the output); -1 = host. */
static int placement_device(const placement *pl, uint32_t il) {
    if (!pl->n_act || il < pl->i_gpu_start) return -1;
    float f = (float)(il - pl->i_gpu_start) / (float)pl->n_act;
    for (int g = 0; g < pl->n_gpu; g++)
        if (pl->cum[g] > f) return g;
    return pl->n_gpu - 1;
}

static plan_dev_mem *dev_mem(plan_memory *m, int dev) { return dev < 0 ? &m->host : &m->gpu[dev]; }

/* ---- compute buffers -------------------------------------------------------- */

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

typedef struct graph_dims {
    uint64_t ub, e, q, kv, v, heads, ff, vocab;
    uint64_t moe_used, moe_ff, n_expert;
} graph_dims;

static void graph_dims_init(graph_dims *g, const model_hparams *hp, const plan_params *p, uint32_t cells) {
    memset(g, 0, sizeof *g);
    g->ub = p->n_ubatch < cells ? p->n_ubatch : cells;
    g->e = hp->n_embd;
    g->heads = hp->n_head;
    g->q = (uint64_t)hp->n_head * hp->head_dim_k;
    g->kv = model_hparams_kv_k_elems(hp, 0);
    g->v = hp->kv_lora_rank ? 0 : model_hparams_kv_v_elems(hp, 0);
    for (uint32_t il = 0; il < hp->n_layer; il++)
        if (hp->n_ff[il] > g->ff) g->ff = hp->n_ff[il];
    g->vocab = hp->n_vocab;
    g->moe_used = hp->n_expert_used;
    g->moe_ff = hp->n_ff_exp;
    g->n_expert = hp->n_expert;
}

/* Attention over n_kv cells: without flash attention the f32 KQ matrix
 * [n_kv, ubatch, heads] is materialized (softmax runs in place) next to the
 * mask and the activations live around it (residual, normed input, Q/K/V:
 * four n_embd-wide f32 rows per token, or Q+K+V+residual when wider); with
 * flash attention only the f16 mask and the activations remain. Checked
 * against llama.cpp: Llama-2-7B ubatch 512 -> 164 MiB at ctx 2048 and 2144
 * MiB at 32768; Llama-3-8B (GQA) -> 560 MiB at 8192, all without FA. */
#define ATTN_LIVE_ROWS 4
static uint64_t attn_bytes(const graph_dims *g, uint64_t n_kv, bool fa) {
    uint64_t rows = max_u64(ATTN_LIVE_ROWS * g->e, g->e + g->q + g->kv + g->v);
    uint64_t act = g->ub * F32_BYTES * rows;
    if (fa) return act + n_kv * PAD_UP(g->ub, MASK_PAD) * F16_BYTES + g->ub * F32_BYTES * g->q;
    return act + n_kv * g->ub * g->heads * F32_BYTES + n_kv * g->ub * F32_BYTES;
}

/* The FFN: gate and up activations (per routed expert for MoE, plus the
 * router logits and the expert outputs before they are summed). */
static uint64_t ffn_bytes(const graph_dims *g) {
    uint64_t dense = g->ub * F32_BYTES * (g->e + 2 * g->ff);
    uint64_t moe = g->ub * F32_BYTES * (g->n_expert + g->moe_used * (2 * g->moe_ff + g->e) + g->e);
    return dense > moe ? dense : moe;
}

/* Logits for every token of the ubatch (the reserve assumes all output). */
static uint64_t output_bytes(const graph_dims *g) { return g->ub * F32_BYTES * (g->vocab + g->e); }

static bool tensor_is_expert(const model_tensor *t);
static bool expert_on_host(const plan_params *p, uint32_t il) { return p->exps_on_host || il < p->n_cpu_moe; }

static void compute_buffers(plan_memory *m, const model_desc *d, const plan_params *p, const placement *pl) {
    const model_hparams *hp = &d->hp;
    graph_dims g;
    graph_dims_init(&g, hp, p, m->kv_cells);
    uint64_t host_layer_max = 0; /* biggest CPU-resident layer, copied to the GPU for big batches */
    uint64_t layer_bytes[MODEL_MAX_LAYERS] = {0};
    uint64_t host_expert_bytes[MODEL_MAX_LAYERS] = {0}; /* experts of GPU layers kept on the CPU */
    for (uint32_t i = 0; i < d->n_tensors; i++) {
        const model_tensor *t = &d->tensors[i];
        if (t->layer < 0 || (uint32_t)t->layer >= hp->n_layer) continue;
        layer_bytes[t->layer] += t->bytes;
        if (tensor_is_expert(t) && expert_on_host(p, (uint32_t)t->layer)) host_expert_bytes[t->layer] += t->bytes;
    }
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        int dev = placement_device(pl, il);
        plan_dev_mem *dm = dev_mem(m, dev);
        uint32_t cells = hp->swa_layer[il] ? m->kv_cells_swa : m->kv_cells;
        dm->compute = max_u64(dm->compute, max_u64(attn_bytes(&g, cells, p->flash_attn), ffn_bytes(&g)));
        host_layer_max = max_u64(host_layer_max, dev < 0 ? layer_bytes[il] : host_expert_bytes[il]);
    }
    int out_dev = placement_device(pl, hp->n_layer);
    plan_dev_mem *om = dev_mem(m, out_dev);
    om->compute = max_u64(om->compute, output_bytes(&g));
    /* The host always builds the input embeddings and the mask. */
    uint64_t mask = p->flash_attn ? (uint64_t)m->kv_cells * PAD_UP(g.ub, MASK_PAD) * F16_BYTES
                                  : (uint64_t)m->kv_cells * g.ub * F32_BYTES;
    m->host.compute = max_u64(m->host.compute, g.ub * F32_BYTES * g.e + mask);
    if (host_layer_max && pl->n_gpu && pl->n_act && p->n_ubatch >= OP_OFFLOAD_MIN_BATCH)
        for (int gi = 0; gi < pl->n_gpu; gi++)
            if (m->gpu[gi].n_layers || m->gpu[gi].has_output) m->gpu[gi].compute += host_layer_max;
}

/* ---- the whole breakdown ---------------------------------------------------- */

/* Types the CPU backend repacks per instruction set, and the row multiple
 * it needs (ggml_repack_get_optimal_repack_type). */
static const struct { int isa; uint32_t type; int64_t rows; } repack_rules[] = {
    {PLAN_REPACK_X86_AVX2, GGML_TYPE_Q4_0, 8},   {PLAN_REPACK_X86_AVX2, GGML_TYPE_Q4_K, 8},
    {PLAN_REPACK_X86_AVX2, GGML_TYPE_IQ4_NL, 8}, {PLAN_REPACK_X86_AVX2, GGML_TYPE_MXFP4, 8},
    {PLAN_REPACK_X86_AVX512, GGML_TYPE_Q4_0, 8}, {PLAN_REPACK_X86_AVX512, GGML_TYPE_Q4_K, 8},
    {PLAN_REPACK_X86_AVX512, GGML_TYPE_IQ4_NL, 8}, {PLAN_REPACK_X86_AVX512, GGML_TYPE_MXFP4, 8},
    {PLAN_REPACK_X86_AVX512, GGML_TYPE_Q2_K, 8}, {PLAN_REPACK_ARM, GGML_TYPE_Q4_0, 4},
    {PLAN_REPACK_ARM, GGML_TYPE_Q4_K, 8},        {PLAN_REPACK_ARM, GGML_TYPE_Q5_K, 8},
    {PLAN_REPACK_ARM, GGML_TYPE_Q6_K, 8},        {PLAN_REPACK_ARM, GGML_TYPE_IQ4_NL, 4},
    {PLAN_REPACK_ARM, GGML_TYPE_MXFP4, 4},       {PLAN_REPACK_ARM, GGML_TYPE_Q8_0, 4},
};

/* Bytes of t the CPU backend copies into CPU_REPACK: matmul weights only
 * (token_embd is read by row lookups and stays mapped). */
static uint64_t repack_bytes(const model_tensor *t, int isa) {
    if (t->role == ROLE_TOKEN_EMBD || t->n_dims < 2 || t->role == ROLE_FFN_GATE_INP) return 0;
    for (size_t i = 0; i < FC_ARRAY_LEN(repack_rules); i++)
        if (repack_rules[i].isa == isa && repack_rules[i].type == t->type && t->ne[1] % repack_rules[i].rows == 0)
            return t->bytes;
    return 0;
}

/* Routed-expert tensors (weights and gpt-oss's biases): what --cpu-moe keeps on the CPU. */
static bool tensor_is_expert(const model_tensor *t) {
    return t->role == ROLE_FFN_GATE_EXPS || t->role == ROLE_FFN_UP_EXPS || t->role == ROLE_FFN_DOWN_EXPS ||
           strstr(t->name, "_exps.") != NULL;
}

static int weights_and_kv(plan_memory *m, const model_desc *d, const plan_params *p, const placement *pl, int isa,
                          fc_err *err) {
    const model_hparams *hp = &d->hp;
    int out_dev = placement_device(pl, hp->n_layer);
    dev_mem(m, out_dev)->has_output = true;
    m->host.has_embd = true;
    for (uint32_t i = 0; i < d->n_tensors; i++) {
        const model_tensor *t = &d->tensors[i];
        if (t->layer >= 0) {
            int dev = placement_device(pl, (uint32_t)t->layer);
            if (tensor_is_expert(t) && expert_on_host(p, (uint32_t)t->layer)) dev = -1;
            dev_mem(m, dev)->weights += t->bytes;
            if (dev < 0) m->host.repack += repack_bytes(t, isa);
        } else if (t->role == ROLE_TOKEN_EMBD) {
            m->host.weights += t->bytes;
            /* Tied embeddings: the output is a second copy of token_embd on
             * the output's device (the same mmap pages when that is the CPU). */
            if (hp->tied_embeddings && out_dev >= 0) m->gpu[out_dev].weights += t->bytes;
            if (hp->tied_embeddings && out_dev < 0) {
                /* the output's duplicate of it is a matmul weight: repacked like one */
                model_tensor as_output = *t;
                as_output.role = ROLE_OUTPUT;
                m->host.repack += repack_bytes(&as_output, isa);
            }
        } else {
            dev_mem(m, out_dev)->weights += t->bytes;
            if (out_dev < 0) m->host.repack += repack_bytes(t, isa);
        }
    }
    m->host.weights += m->host.repack;
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        plan_dev_mem *dm = dev_mem(m, placement_device(pl, il));
        if (!dm->n_layers) dm->layer_first = il;
        dm->n_layers++;
        uint64_t kv;
        int rc = plan_kv_layer_bytes(hp, il, hp->swa_layer[il] ? m->kv_cells_swa : m->kv_cells, p->type_k, p->type_v,
                                     &kv, err);
        if (rc) return rc;
        dm->kv += kv;
        m->kv_bytes += kv;
    }
    return FC_OK;
}

static void verdict(plan_dev_mem *dm) {
    dm->total = dm->weights + dm->kv + dm->compute + dm->output + dm->overhead;
    dm->margin = (int64_t)dm->capacity - (int64_t)dm->total;
    uint64_t tight = dm->capacity / TIGHT_MARGIN_DIV;
    if (tight > TIGHT_MARGIN_MAX) tight = TIGHT_MARGIN_MAX;
    dm->verdict = dm->margin < 0 ? PLAN_NO_FIT : dm->margin < (int64_t)tight ? PLAN_TIGHT : PLAN_FITS;
}

static int params_check(const plan_params *p, fc_err *err) {
    if (!p->n_ctx) return fc_err_set(err, FC_EINPUT, "context size is 0");
    if (!p->n_ubatch || !p->n_batch) return fc_err_set(err, FC_EINPUT, "batch size is 0");
    if (!p->n_parallel) return fc_err_set(err, FC_EINPUT, "parallel sequences is 0");
    if (!ggml_type_get(p->type_k) || !ggml_type_get(p->type_v)) return fc_err_set(err, FC_EINPUT, "unknown KV cache type");
    if (!p->flash_attn && ggml_type_get(p->type_v)->blck > 1)
        return fc_err_set(err, FC_EINPUT, "a quantized V cache needs flash attention (llama.cpp refuses it without)");
    return FC_OK;
}

int plan_memory_compute(plan_memory *m, const model_desc *d, const plan_hw *hw, const plan_params *p, fc_err *err) {
    memset(m, 0, sizeof *m);
    int rc = params_check(p, err);
    if (rc) return rc;
    if (hw->n_gpu > PLAN_MAX_DEVICES) return fc_err_set(err, FC_EINPUT, "more than %d devices", PLAN_MAX_DEVICES);
    placement pl;
    placement_init(&pl, &d->hp, hw, p);
    m->n_gpu = hw->n_gpu;
    m->kv_cells = plan_kv_cells(&d->hp, p, false);
    m->kv_cells_swa = plan_kv_cells(&d->hp, p, true);
    if ((rc = weights_and_kv(m, d, p, &pl, hw->host.cpu_repack, err))) return rc;
    compute_buffers(m, d, p, &pl);
    uint64_t outbuf;
    if (!fc_mul_u64((uint64_t)d->hp.n_vocab * F32_BYTES, p->n_parallel, &outbuf))
        return fc_err_set(err, FC_EINPUT, "output buffer size overflows");
    m->host.output = outbuf;
    m->host.overhead = backend_overhead[PLAN_CPU];
    m->host.capacity = hw->host.mem_free;
    uint64_t unified_use = 0;
    for (int g = 0; g < hw->n_gpu; g++) {
        plan_dev_mem *dm = &m->gpu[g];
        dm->overhead = (dm->n_layers || dm->has_output) ? backend_overhead[hw->gpu[g].backend] : 0;
        dm->capacity = hw->gpu[g].mem_free;
        verdict(dm);
        if (hw->gpu[g].unified) unified_use += dm->total;
    }
    /* A unified-memory GPU's allocations come out of the same RAM. */
    m->host.capacity = m->host.capacity > unified_use ? m->host.capacity - unified_use : 0;
    verdict(&m->host);
    m->verdict = m->host.verdict;
    for (int g = 0; g < hw->n_gpu; g++)
        if (m->gpu[g].verdict > m->verdict) m->verdict = m->gpu[g].verdict;
    return FC_OK;
}

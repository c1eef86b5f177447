/* What llama.cpp allocates per device for a model and a placement.
 *
 * Placement follows llama.cpp's llama_model::load_tensors: with -ngl N the
 * last N of the n_layer+1 "layers" (the +1 is the output) go to the GPUs,
 * split across them by cumulative fractions of free memory (or
 * --tensor-split); token_embd always stays on the CPU; each layer's KV cache
 * lives with the layer. Compute buffers are the peak of the graph phases a
 * backend runs (attention, FFN, output), because ggml's allocator reuses
 * memory between them. Each device's bytes are split the way the kernel sees
 * them — anonymous, pinned, device memory, or pages of the mapped file it may
 * reclaim — and the verdict uses the right one. See docs/planner-memory.md for
 * the derivation and the llama.cpp figures each formula was checked against.
 * Source references are to llama.cpp as vendored in llama-cpp-python 0.3.36
 * (~/.cache/fitcheck/llama.cpp). */
#include "planner/planner.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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
#define TIGHT_MARGIN_MAX PLAN_TIGHT_MARGIN_MAX
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

uint32_t plan_outputs_reserved(const plan_params *p) {
    if (p->n_outputs_max) return p->n_outputs_max;
    bool draft = p->extras && p->extras->draft;
    uint32_t seqs = p->n_parallel ? p->n_parallel : 1;
    return seqs * (1 + (draft ? PLAN_DRAFT_N_MAX : 0));
}

/* Backends whose device has a host (pinned) buffer type. llama.cpp's list
 * of buffer types for CPU weights is "ACCEL -> GPU host -> CPU extra -> CPU"
 * (make_cpu_buft_list, src/llama-model.cpp): with such a GPU in the process
 * the CPU's weights go to its host buffer, ahead of CPU_REPACK, so nothing is
 * repacked (--no-host would allow it); with mmap the loader then swaps that
 * host buffer for the plain mapped CPU buffer ("avoid using a host buffer
 * when using mmap", src/llama-model-loader.cpp), without mmap they are read
 * into pinned memory. The CPU backend's compute buffer is that host type too
 * (llama-context.cpp). Metal has none (get_host_buffer_type = NULL,
 * ggml-metal.cpp). */
static const bool backend_host_buft[PLAN_BACKEND_COUNT] = {
    [PLAN_CUDA] = true, [PLAN_ROCM] = true, [PLAN_VULKAN] = true, [PLAN_SYCL] = true,
};

/* Backends that map the model file into their own buffer instead of copying
 * weights (caps.buffer_from_host_ptr, used with mmap for the default buffer
 * type: llama_model_base::load_tensors): Metal. The buffer spans the file
 * from the first to the last tensor it holds (get_mapping_range) — with the
 * output layer first in the file, the whole file: gpt-oss-20b on Metal
 * prints 11536 MiB Metal_Mapped next to 587 MiB CPU_Mapped (token_embd),
 * the same pages counted twice. */
static const bool backend_maps_file[PLAN_BACKEND_COUNT] = {[PLAN_METAL] = true};

static const char *const verdict_names[] = {"fits", "tight", "fits, pages from disk", "does not fit"};

const char *plan_verdict_name(int v) { return v >= PLAN_FITS && v <= PLAN_NO_FIT ? verdict_names[v] : "?"; }

static const char *const flag_names[PLAN_FLAG_COUNT] = {"--no-mmap", "--no-repack", "--mlock"};

const char *plan_load_flag_name(int f) { return f >= 0 && f < PLAN_FLAG_COUNT ? flag_names[f] : "?"; }

static uint64_t kv_pad(bool flash_attn) { return flash_attn ? KV_PAD_FA : KV_PAD_NOFA; }

uint64_t plan_kv_swa_cells(uint32_t window, uint32_t n_seq, uint32_t n_ubatch, bool flash_attn) {
    return PAD_UP((uint64_t)window * n_seq + n_ubatch, kv_pad(flash_attn));
}

uint32_t plan_kv_cells(const model_hparams *hp, const plan_params *p, bool swa) {
    uint64_t cells = PAD_UP((uint64_t)p->n_ctx, kv_pad(p->flash_attn));
    if (swa && hp->sliding_window) {
        uint64_t w = plan_kv_swa_cells(hp->sliding_window, p->n_parallel, p->n_ubatch, p->flash_attn);
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

int plan_memory_layer_device(const plan_memory *m, uint32_t il) {
    for (int g = 0; g < m->n_gpu; g++)
        if (m->gpu[g].n_layers && il >= m->gpu[g].layer_first && il < m->gpu[g].layer_first + m->gpu[g].n_layers)
            return g;
    return -1;
}

int plan_memory_output_device(const plan_memory *m) {
    for (int g = 0; g < m->n_gpu; g++)
        if (m->gpu[g].has_output) return g;
    return -1;
}

/* ---- compute buffers -------------------------------------------------------- */

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

typedef struct graph_dims {
    uint64_t ub, e, q, kv, v, heads, ff, vocab;
    uint64_t n_out;    /* logits rows the graph is reserved for */
    uint64_t moe_used, moe_ff, n_expert;
} graph_dims;

static void graph_dims_init(graph_dims *g, const model_hparams *hp, const plan_params *p, uint32_t cells) {
    memset(g, 0, sizeof *g);
    /* llama.cpp clamps the batch to the context (causal models) and the
     * ubatch to the batch (llama_context's constructor), then to the cells */
    uint64_t ub = p->n_ubatch;
    if (p->n_batch < ub) ub = p->n_batch;
    if (p->n_ctx < ub) ub = p->n_ctx;
    g->ub = ub < cells ? ub : cells;
    uint64_t n_out = plan_outputs_reserved(p);
    g->n_out = n_out < g->ub ? n_out : g->ub;
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

/* The KQ mask of one KV size: f16 and padded for the flash-attention
 * kernels, else f32. A graph input, so it lives from the first layer to the
 * last: it sits beside every layer phase, one per KV size (the full cache,
 * and the sliding window's when the model has one). */
static uint64_t mask_bytes(const graph_dims *g, uint64_t n_kv, bool fa) {
    return fa ? n_kv * PAD_UP(g->ub, MASK_PAD) * F16_BYTES : n_kv * g->ub * F32_BYTES;
}

/* Attention over n_kv cells: without flash attention the f32 KQ matrix
 * [n_kv, ubatch, heads] is materialized (softmax runs in place) and the
 * activations live around it (residual, normed input, Q/K/V: four
 * n_embd-wide f32 rows per token, or Q+K+V+residual when wider); with flash
 * attention only the activations and its f32 output remain. Checked against
 * llama.cpp, masks included: Llama-2-7B ubatch 512 -> 164 MiB at ctx 2048 and
 * 2144 MiB at 32768; Llama-3-8B (GQA) -> 560 MiB at 8192, all without FA. */
#define ATTN_LIVE_ROWS 4
static uint64_t attn_bytes(const graph_dims *g, uint64_t n_kv, bool fa) {
    uint64_t rows = max_u64(ATTN_LIVE_ROWS * g->e, g->e + g->q + g->kv + g->v);
    uint64_t act = g->ub * F32_BYTES * rows;
    if (fa) return act + g->ub * F32_BYTES * g->q;
    return act + n_kv * g->ub * g->heads * F32_BYTES;
}

/* The FFN: gate, up and their product (three n_ff rows per token) beside four
 * n_embd rows (residual, normed input, the attention output, the FFN output);
 * for MoE the gate and up activations per routed expert, the router logits
 * and the expert outputs before they are summed. The dense rows are llama.cpp's
 * own: its CPU compute buffers with -fa on at ctx 4096, ubatch 512, one output
 * (llama-cli, build 0c1e570 of llama-cpp-python 0.3.36, 1 Dec 2026) are these
 * rows plus the masks to the MiB: SmolLM2-135M 17.51, Gemma-3-270M 22.77,
 * Qwen3-8B's shapes 108.01, Llama-3.1-8B's 120.01 (fitcheck gen files). */
#define FFN_FF_ROWS 3
#define FFN_EMBD_ROWS 4
static uint64_t ffn_bytes(const graph_dims *g) {
    uint64_t dense = g->ub * F32_BYTES * (FFN_EMBD_ROWS * g->e + FFN_FF_ROWS * g->ff);
    uint64_t moe = g->ub * F32_BYTES * (g->n_expert + g->moe_used * (2 * g->moe_ff + g->e) + g->e);
    return dense > moe ? dense : moe;
}

/* Logits for the rows the graph is reserved for (plan_outputs_reserved: one
 * per sequence and draft token for llama-server, every token for llama-bench). */
static uint64_t output_bytes(const graph_dims *g) { return g->n_out * F32_BYTES * g->vocab + g->ub * F32_BYTES * g->e; }

static bool tensor_is_expert(const model_tensor *t);
static bool expert_on_host(const plan_params *p, uint32_t il) { return p->exps_on_host || il < p->n_cpu_moe; }

/* How llama.cpp will hold the weights, from the flags and the devices. */
typedef struct load_mode {
    bool mmap, mlock;
    bool repack;       /* CPU_REPACK in use: not turned off, and no GPU host buffer type ahead of it */
    int isa;           /* enum plan_repack of the host CPU */
    bool host_buft;    /* a GPU with a host (pinned) buffer type is in the process */
    bool offload;      /* the first GPU runs the big-batch matmuls of weights in host buffers */
} load_mode;

/* The scheduler moves an op whose weight sits in a host buffer of the CPU
 * (the last backend) to the first GPU that wants it: ggml_backend_offload_op
 * is true for batches >= 32 on CUDA/ROCm/Metal (ggml-backend.cpp, pass 1 of
 * the graph split; op_offload is on unless --no-op-offload). Every device of
 * the model gets a backend whatever -ngl is (llama-context.cpp), so this
 * happens with -ngl 0 too. CPU_REPACK buffers are not host buffers: repacked
 * weights stay on the CPU. */
static void load_mode_init(load_mode *lm, const plan_hw *hw, const plan_params *p) {
    memset(lm, 0, sizeof *lm);
    lm->mmap = !p->no_mmap;
    lm->mlock = p->mlock;
    for (int g = 0; g < hw->n_gpu; g++) lm->host_buft |= backend_host_buft[hw->gpu[g].backend];
    lm->repack = !p->no_repack && !lm->host_buft;
    lm->isa = hw->host.cpu_repack;
    /* the RPC backend has no offload_op: nothing is offloaded to another host */
    lm->offload = hw->n_gpu > 0 && !hw->gpu[0].rpc && p->n_ubatch >= OP_OFFLOAD_MIN_BATCH;
}

/* Per-plan scratch: what the compute buffers and the spans need from the weights. */
typedef struct weight_scan {
    uint64_t host_layer[MODEL_MAX_LAYERS]; /* host-buffer weights of each layer: copied to the GPU per batch */
    uint64_t host_out;                     /* the output matrix when it is a host-buffer weight */
    uint64_t shared[PLAN_MAX_DEVICES];     /* host-mapped bytes inside a GPU's mapped span (one set of pages) */
} weight_scan;

static void compute_buffers(plan_memory *m, const model_desc *d, const plan_params *p, const placement *pl,
                            const load_mode *lm, const weight_scan *ws) {
    const model_hparams *hp = &d->hp;
    graph_dims g;
    graph_dims_init(&g, hp, p, m->kv_cells);
    uint64_t host_layer_max = 0; /* biggest set of host weights of one layer, copied to the GPU for big batches */
    uint64_t act_max = 0;        /* the activations of the biggest layer phase */
    bool has_swa = false;
    for (uint32_t il = 0; il < hp->n_layer; il++) has_swa |= hp->swa_layer[il] != 0;
    uint64_t masks = mask_bytes(&g, m->kv_cells, p->flash_attn) +
                     (has_swa ? mask_bytes(&g, m->kv_cells_swa, p->flash_attn) : 0);
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        plan_dev_mem *dm = dev_mem(m, placement_device(pl, il));
        uint32_t cells = hp->swa_layer[il] ? m->kv_cells_swa : m->kv_cells;
        uint64_t act = masks + max_u64(attn_bytes(&g, cells, p->flash_attn), ffn_bytes(&g));
        dm->compute = max_u64(dm->compute, act);
        act_max = max_u64(act_max, act);
        host_layer_max = max_u64(host_layer_max, ws->host_layer[il]);
    }
    int out_dev = placement_device(pl, hp->n_layer);
    plan_dev_mem *om = dev_mem(m, out_dev);
    om->compute = max_u64(om->compute, output_bytes(&g));
    /* The host always builds the input embeddings and the masks. */
    m->host.compute = max_u64(m->host.compute, g.ub * F32_BYTES * g.e + masks);
    if (!lm->offload) return;
    /* The first GPU runs the host layers' phases with a copy of their weights
     * (the copies are freed after use: one layer's worth at a time), and the
     * logits with a copy of a host output matrix. Qwen3-14B Q8_0 at -ngl 0 on
     * ROCm: output.weight 788 MiB + logits 512 x 151936 x 4 + its input =
     * 1095 MiB, the ~1.1 GiB GPU compute buffer llama.cpp's log shows. */
    plan_dev_mem *g0 = &m->gpu[0];
    uint64_t layer_phase = host_layer_max ? max_u64(g0->compute, act_max) + host_layer_max : 0;
    uint64_t out_phase = ws->host_out ? output_bytes(&g) + ws->host_out : 0;
    g0->compute = max_u64(g0->compute, max_u64(layer_phase, out_phase));
}

/* ---- the whole breakdown ---------------------------------------------------- */

/* Types the CPU backend repacks per instruction set, the row multiple it
 * needs (ggml_repack_get_optimal_repack_type), and the share of the fitted
 * (repacked) kernel rate the type's plain kernels run at when its weights stay
 * in plain buffers (an rpc-server's CPU device, -nr), in decode and in prefill.
 *
 * x86 AVX-512, Q4_0 and Q4_K: llama-bench --repack 0 vs 1 (the llama.cpp tree
 * of bench/llamacpp_build.sh: CPU_REPACK q4_0_8x8 / q4_K_8x8, AMX off) on
 * `fitcheck gen --like llama-3.2-1b` Q4_0 and Q4_K_M files, pp512 and tg64 at
 * 1 and 2 threads, 3 interleaved cycles (48 rows) on a 2-core Sapphire Rapids
 * VM, 4 Dec 2026. Whole runs, plain / repacked: Q4_0 pp 0.71 (0.68-0.73 at
 * pp64 and pp128 too), tg 0.53; Q4_K_M pp 1.45 (1.22 at pp64), tg 0.64: its
 * plain Q4_K prefill is the faster, the AVX-512 q4_K_8x8 GEMM paying for its
 * staging (ggml-org/llama.cpp#22525). The shares are the values at which
 * `fitcheck calibrate` on those rows fits both buffer kinds best (each scanned
 * with the others fixed; median 2.9-3.3%): Q4_0 decode 0.50, prefill 0.70;
 * Q4_K decode 0.55, prefill 2.1, above the file's 1.45 because 42% of its
 * weight bytes (the Q6_K tensors) are not repacked: 445 of 763 MiB went to
 * CPU_REPACK. The other x86 types, unmeasured, take Q4_0's: the same 8-row
 * interleave and integer GEMM; AVX2 too (its Q4_K GEMM is not AVX-512's).
 * On AVX2 prefill agrees: an i9-13900K, 16 threads, llama 7B pp128, Q4_0 at
 * 0.74 of Q4_0_8_8 (ggml-org/llama.cpp#9921, Nov 2024); its tg32 at 1.19 is
 * 2024's Q4_0_8_8 GEMV, slower than plain then (why runtime repacking on
 * AVX2 waited for #10446, 7 Dec 2024): today's AVX2 decode share is
 * unmeasured.
 *
 * ARM: whole-run ratios of llama-bench on an M4 Max, 8 threads, from the PRs
 * that added the kernels (a kernel's own share is further from 1, the rest of
 * the run being unchanged): Q4_K (i8mm, #16739, llama 8B) tg 0.91, pp 0.62;
 * Q5_K (#18860, qwen3 8B) tg 0.90, pp 0.48; Q6_K (#19360, dotprod build,
 * qwen3 8B) tg 0.78, pp 0.32. The unmeasured ARM types take Q4_K's. */
#define X86_Q40_DEC 0.50
#define X86_Q40_PP 0.70
#define ARM_Q4K_DEC 0.91
#define ARM_Q4K_PP 0.62
typedef struct repack_rule {
    int isa;
    uint32_t type;
    int64_t rows;
    double plain_dec, plain_pp;
} repack_rule;
static const repack_rule repack_rules[] = {
    {PLAN_REPACK_X86_AVX2, GGML_TYPE_Q4_0, 8, X86_Q40_DEC, X86_Q40_PP},
    {PLAN_REPACK_X86_AVX2, GGML_TYPE_Q4_K, 8, X86_Q40_DEC, X86_Q40_PP},
    {PLAN_REPACK_X86_AVX2, GGML_TYPE_IQ4_NL, 8, X86_Q40_DEC, X86_Q40_PP},
    {PLAN_REPACK_X86_AVX2, GGML_TYPE_MXFP4, 8, X86_Q40_DEC, X86_Q40_PP},
    {PLAN_REPACK_X86_AVX512, GGML_TYPE_Q4_0, 8, X86_Q40_DEC, X86_Q40_PP},
    {PLAN_REPACK_X86_AVX512, GGML_TYPE_Q4_K, 8, 0.55, 2.1},
    {PLAN_REPACK_X86_AVX512, GGML_TYPE_IQ4_NL, 8, X86_Q40_DEC, X86_Q40_PP},
    {PLAN_REPACK_X86_AVX512, GGML_TYPE_MXFP4, 8, X86_Q40_DEC, X86_Q40_PP},
    {PLAN_REPACK_X86_AVX512, GGML_TYPE_Q2_K, 8, X86_Q40_DEC, X86_Q40_PP},
    {PLAN_REPACK_ARM, GGML_TYPE_Q4_0, 4, ARM_Q4K_DEC, ARM_Q4K_PP},
    {PLAN_REPACK_ARM, GGML_TYPE_Q4_K, 8, ARM_Q4K_DEC, ARM_Q4K_PP},
    {PLAN_REPACK_ARM, GGML_TYPE_Q5_K, 8, 0.90, 0.48},
    {PLAN_REPACK_ARM, GGML_TYPE_Q6_K, 8, 0.78, 0.32},
    {PLAN_REPACK_ARM, GGML_TYPE_IQ4_NL, 4, ARM_Q4K_DEC, ARM_Q4K_PP},
    {PLAN_REPACK_ARM, GGML_TYPE_MXFP4, 4, ARM_Q4K_DEC, ARM_Q4K_PP},
    {PLAN_REPACK_ARM, GGML_TYPE_Q8_0, 4, ARM_Q4K_DEC, ARM_Q4K_PP},
};

static const repack_rule *repack_rule_of(int isa, uint32_t type) {
    for (size_t i = 0; i < FC_ARRAY_LEN(repack_rules); i++)
        if (repack_rules[i].isa == isa && repack_rules[i].type == type) return &repack_rules[i];
    return NULL;
}

bool plan_repack_type(int isa, uint32_t type) { return repack_rule_of(isa, type) != NULL; }

double plan_repack_plain_share(int isa, uint32_t type, bool prefill) {
    const repack_rule *r = repack_rule_of(isa, type);
    return !r ? 1.0 : prefill ? r->plain_pp : r->plain_dec;
}

/* Bytes of t the CPU backend copies into CPU_REPACK: matmul weights only
 * (token_embd is read by row lookups and stays mapped). */
static uint64_t repack_bytes(const model_tensor *t, const load_mode *lm) {
    if (!lm->repack || t->role == ROLE_TOKEN_EMBD || t->n_dims < 2 || t->role == ROLE_FFN_GATE_INP) return 0;
    const repack_rule *r = repack_rule_of(lm->isa, t->type);
    return r && t->ne[1] % r->rows == 0 ? t->bytes : 0;
}

/* Routed-expert tensors (weights and gpt-oss's biases): what --cpu-moe keeps on the CPU. */
static bool tensor_is_expert(const model_tensor *t) {
    return t->role == ROLE_FFN_GATE_EXPS || t->role == ROLE_FFN_UP_EXPS || t->role == ROLE_FFN_DOWN_EXPS ||
           strstr(t->name, "_exps.") != NULL;
}

/* The device holding t: a GPU index, or -1 for the host. */
static int tensor_device(const model_tensor *t, const model_hparams *hp, const plan_params *p, const placement *pl) {
    if (t->layer >= 0) {
        if (tensor_is_expert(t) && expert_on_host(p, (uint32_t)t->layer)) return -1;
        return placement_device(pl, (uint32_t)t->layer);
    }
    if (t->role == ROLE_TOKEN_EMBD) return -1; /* always the CPU (llama_model_base::load_tensors) */
    return placement_device(pl, hp->n_layer);
}

/* A host weight's bytes: a CPU_REPACK copy (anonymous; its file pages are
 * read once and then cold, the kernel takes them back for free), used in
 * place in the mapped file (page cache), or read into a buffer with
 * --no-mmap (anonymous; pinned when a GPU's host buffer type holds it).
 * Returns the bytes the GPU may copy for a big batch (host buffers only). */
static uint64_t host_weight(plan_dev_mem *h, const load_mode *lm, const model_tensor *t) {
    uint64_t rp = repack_bytes(t, lm);
    h->weights += t->bytes;
    if (rp) {
        h->repack += rp;
        return 0;
    }
    if (lm->mmap) h->mapped += t->bytes;
    else if (lm->host_buft) h->pinned += t->bytes;
    return t->bytes;
}

/* Tied embeddings: the output is token_embd again (TENSOR_DUPLICATED), in
 * the output's buffer. On a GPU, a copy. On the host: with mmap the same
 * mapped pages, unless the CPU repacks it as a matmul weight; without mmap a
 * second buffer read from the same bytes. */
static uint64_t tied_output_on_host(plan_dev_mem *h, const load_mode *lm, const model_tensor *embd) {
    model_tensor as_output = *embd;
    as_output.role = ROLE_OUTPUT;
    uint64_t rp = repack_bytes(&as_output, lm);
    if (rp) {
        h->weights += rp;
        h->repack += rp;
        return 0;
    }
    if (!lm->mmap) {
        h->weights += embd->bytes;
        if (lm->host_buft) h->pinned += embd->bytes;
    }
    return embd->bytes;
}

/* A file-mapping GPU's buffer spans the file from its first tensor to its
 * last (get_mapping_range): the bytes it counts, and the host-mapped bytes
 * inside (the same pages the host counts). Without offsets (a synthesized
 * table) the order of the published file is unknown: the whole file, as the
 * gpt-oss-20b log shows — the output tensors come first in such files. */
static void mapped_span(plan_memory *m, weight_scan *ws, int gi, const model_desc *d, const plan_params *p,
                        const placement *pl, const load_mode *lm) {
    plan_dev_mem *gm = &m->gpu[gi];
    uint64_t first = UINT64_MAX, last = 0, shared = 0;
    if (!d->has_offsets) {
        first = 0;
        last = d->weight_bytes;
        shared = m->host.mapped;
    } else {
        for (uint32_t i = 0; i < d->n_tensors; i++) {
            const model_tensor *t = &d->tensors[i];
            int dev = tensor_device(t, &d->hp, p, pl);
            bool tied_out = t->role == ROLE_TOKEN_EMBD && d->hp.tied_embeddings && placement_device(pl, d->hp.n_layer) == gi;
            if (dev != gi && !tied_out) continue;
            if (t->offset < first) first = t->offset;
            if (t->offset + t->bytes > last) last = t->offset + t->bytes;
        }
        for (uint32_t i = 0; i < d->n_tensors && first < last; i++) {
            const model_tensor *t = &d->tensors[i];
            if (tensor_device(t, &d->hp, p, pl) < 0 && !repack_bytes(t, lm) && t->offset >= first && t->offset < last)
                shared += t->bytes;
        }
    }
    if (first >= last) return;
    gm->weights = last - first;
    gm->mapped = last - first;
    ws->shared[gi] = shared;
}

static int weights_and_kv(plan_memory *m, weight_scan *ws, const model_desc *d, const plan_hw *hw, const plan_params *p,
                          const placement *pl, const load_mode *lm, fc_err *err) {
    const model_hparams *hp = &d->hp;
    int out_dev = placement_device(pl, hp->n_layer);
    dev_mem(m, out_dev)->has_output = true;
    m->host.has_embd = true;
    for (uint32_t i = 0; i < d->n_tensors; i++) {
        const model_tensor *t = &d->tensors[i];
        int dev = tensor_device(t, hp, p, pl);
        if (dev >= 0) {
            m->gpu[dev].weights += t->bytes;
        } else {
            uint64_t copyable = host_weight(&m->host, lm, t);
            if (t->layer >= 0) ws->host_layer[t->layer] += copyable;
            else if (t->role == ROLE_OUTPUT) ws->host_out = copyable;
        }
        if (t->role == ROLE_TOKEN_EMBD && hp->tied_embeddings) {
            if (out_dev >= 0) m->gpu[out_dev].weights += t->bytes;
            else ws->host_out = tied_output_on_host(&m->host, lm, t);
        }
    }
    if (lm->mmap)
        for (int g = 0; g < pl->n_gpu; g++)
            if (backend_maps_file[hw->gpu[g].backend] && m->gpu[g].weights) mapped_span(m, ws, g, d, p, pl, lm);
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

static uint64_t tight_margin(uint64_t capacity) {
    uint64_t tight = capacity / TIGHT_MARGIN_DIV;
    return tight > TIGHT_MARGIN_MAX ? TIGHT_MARGIN_MAX : tight;
}

/* total = anon + mapped; a GPU's memory takes all of it. */
static void dev_totals(plan_dev_mem *dm) {
    dm->total = dm->weights + dm->kv + dm->compute + dm->output + dm->overhead + dm->mmproj + dm->lora + dm->draft;
    dm->anon = dm->total - dm->mapped;
    dm->margin = (int64_t)dm->capacity - (int64_t)dm->total;
}

static void verdict_gpu(plan_dev_mem *dm) {
    dm->verdict = dm->margin < 0 ? PLAN_NO_FIT : dm->margin < (int64_t)tight_margin(dm->capacity) ? PLAN_TIGHT : PLAN_FITS;
}

/* The host: what the kernel cannot take back must fit (with --mlock the
 * mapped weights too); the mapped weights may not, at the price of reading
 * them from disk again. */
static void verdict_host(plan_dev_mem *dm, bool mlock) {
    uint64_t resident = dm->anon + (mlock ? dm->mapped : 0);
    if (resident > dm->capacity) dm->verdict = PLAN_NO_FIT;
    else if (dm->margin < 0) dm->verdict = PLAN_PAGED;
    else verdict_gpu(dm);
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

static int memory_once(plan_memory *m, const model_desc *d, const plan_hw *hw, const plan_params *p, fc_err *err) {
    memset(m, 0, sizeof *m);
    int rc = params_check(p, err);
    if (rc) return rc;
    if (hw->n_gpu > PLAN_MAX_DEVICES) return fc_err_set(err, FC_EINPUT, "more than %d devices", PLAN_MAX_DEVICES);
    placement pl;
    placement_init(&pl, &d->hp, hw, p);
    load_mode lm;
    load_mode_init(&lm, hw, p);
    weight_scan *ws = fc_calloc(1, sizeof *ws, err);
    if (!ws) return FC_ERUNTIME;
    m->n_gpu = hw->n_gpu;
    m->kv_cells = plan_kv_cells(&d->hp, p, false);
    m->kv_cells_swa = plan_kv_cells(&d->hp, p, true);
    rc = weights_and_kv(m, ws, d, hw, p, &pl, &lm, err);
    if (!rc) compute_buffers(m, d, p, &pl, &lm, ws);
    uint64_t outbuf;
    if (!rc && !fc_mul_u64((uint64_t)d->hp.n_vocab * F32_BYTES, p->n_parallel, &outbuf))
        rc = fc_err_set(err, FC_EINPUT, "output buffer size overflows");
    if (rc) {
        free(ws);
        return rc;
    }
    m->host.output = outbuf;
    m->host.overhead = backend_overhead[PLAN_CPU];
    m->host.capacity = hw->host.mem_free;
    m->mmproj_dev = -1;
    if (p->extras && (rc = plan_extras_memory(m, d, hw, p, err))) {
        free(ws);
        return rc;
    }
    uint64_t unified_use = 0;
    for (int g = 0; g < hw->n_gpu; g++) {
        plan_dev_mem *dm = &m->gpu[g];
        /* Every GPU of the process gets a backend and its context, -ngl 0 or not. */
        dm->overhead = backend_overhead[hw->gpu[g].backend];
        dm->capacity = hw->gpu[g].mem_free;
        dev_totals(dm);
        verdict_gpu(dm);
        /* A unified-memory GPU's allocations come out of the same RAM; pages
         * its mapped span shares with the host's mapped weights count once. */
        if (hw->gpu[g].unified && !hw->gpu[g].rpc) /* an RPC device's RAM is its own host's */
            unified_use += dm->total - ws->shared[g];
    }
    free(ws);
    m->host.capacity = m->host.capacity > unified_use ? m->host.capacity - unified_use : 0;
    dev_totals(&m->host);
    /* The CPU backend's compute buffer lives in the first GPU's host buffer type
     * (llama-context.cpp); --mlock locks host buffers and the mapping. */
    if (lm.host_buft) m->host.pinned += m->host.compute;
    if (lm.mlock) m->host.pinned = m->host.total - m->host.repack;
    verdict_host(&m->host, lm.mlock);
    m->verdict = m->host.verdict;
    for (int g = 0; g < hw->n_gpu; g++)
        if (m->gpu[g].verdict > m->verdict) m->verdict = m->gpu[g].verdict;
    return FC_OK;
}

/* ---- which flag changes the fit ------------------------------------------- */

static void toggle_flag(plan_params *p, int f) {
    if (f == PLAN_FLAG_NO_MMAP) p->no_mmap = !p->no_mmap;
    else if (f == PLAN_FLAG_NO_REPACK) p->no_repack = !p->no_repack;
    else p->mlock = !p->mlock;
}

static bool flag_set(const plan_params *p, int f) {
    return f == PLAN_FLAG_NO_MMAP ? p->no_mmap : f == PLAN_FLAG_NO_REPACK ? p->no_repack : p->mlock;
}

/* What each flag does to the host's memory, in words (llama.cpp
 * common/arg.cpp; newer builds spell the first and last --load-mode none and
 * --load-mode mlock / mmap+mlock). */
static const char *const flag_effect[PLAN_FLAG_COUNT] = {
    [PLAN_FLAG_NO_MMAP] = "reads the weights into anonymous memory instead of using the file's pages in place",
    [PLAN_FLAG_NO_REPACK] = "leaves the CPU_REPACK weights in the mapped file instead of copying them",
    [PLAN_FLAG_MLOCK] = "locks the mapped weights in RAM",
};

static void note_add(plan_memory *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note_add(plan_memory *m, const char *fmt, ...) {
    if (m->n_note >= PLAN_MEM_NOTES) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->note[m->n_note++], PLAN_MEM_NOTE_LEN, fmt, ap);
    va_end(ap);
}

static void memory_note(plan_memory *m, const plan_params *p) {
    char a[24], b[24];
    const plan_dev_mem *h = &m->host;
    if (h->verdict == PLAN_PAGED)
        note_add(m, "RAM: %s must stay resident, but the %s of weights used from the mapped file do not fit beside it: "
                 "their pages are dropped and re-read from disk, so tokens wait on the disk",
                 fc_fmt_bytes(h->anon, a, sizeof a), fc_fmt_bytes(h->mapped, b, sizeof b));
    for (int f = 0; f < PLAN_FLAG_COUNT; f++) {
        int v = m->flag_verdict[f];
        if (v < 0 || v == m->verdict) continue;
        bool set = flag_set(p, f);
        note_add(m, "%s %s (%s %s): %s", set ? "without" : "with", plan_load_flag_name(f), set ? "which" : "it",
                 flag_effect[f], plan_verdict_name(v));
    }
}

int plan_memory_base(plan_memory *m, const model_desc *d, const plan_hw *hw, const plan_params *p, fc_err *err) {
    return memory_once(m, d, hw, p, err);
}

int plan_memory_compute(plan_memory *m, const model_desc *d, const plan_hw *hw, const plan_params *p, fc_err *err) {
    int rc = memory_once(m, d, hw, p, err);
    if (rc) return rc;
    /* The same plan with each loading flag flipped: where the verdict moves,
     * the fit depends on that flag and the note says how. A flag that cannot
     * matter here (no repacking, nothing mapped) is not tried. */
    plan_memory *alt = fc_calloc(1, sizeof *alt, err);
    if (!alt) return FC_ERUNTIME;
    for (int f = 0; f < PLAN_FLAG_COUNT; f++) {
        m->flag_verdict[f] = -1;
        bool relevant = f == PLAN_FLAG_NO_REPACK ? (m->host.repack > 0 || p->no_repack)
                        : f == PLAN_FLAG_MLOCK   ? (m->host.mapped > 0 || p->mlock)
                                                 : true;
        if (!relevant) continue;
        plan_params q = *p;
        toggle_flag(&q, f);
        fc_err ignored = {0};
        if (memory_once(alt, d, hw, &q, &ignored) == FC_OK) m->flag_verdict[f] = alt->verdict;
    }
    free(alt);
    memory_note(m, p);
    return FC_OK;
}

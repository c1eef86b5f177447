/* The speed model's formulas (planner/speed.h states them; the numbers behind
 * the constants are in docs/speed-model.md). Pure functions of explicit inputs:
 * devices, the work placed on them, and the efficiency table. */
#include "planner/planner.h"

#include <math.h>
#include <string.h>

#define US 1e-6
#define GIGA 1e9
/* A GPU's float GEMM runs at most at its FP16 peak F (the int8 path of quantized
 * GEMMs may reach twice that; tests/planner_speed/test_physics.c bounds both). */
#define PP_FLOAT_GPU_MAX 1.0
/* Memory traffic per attention score without flash attention: the F32 KQ
 * written (4 bytes), read and written again by the softmax (8), read by KQV (4). */
#define PLAN_NOFA_SCORE_BYTES 16.0
/* Bytes per weight of the FP16 copy a dequantizing GEMM writes and reads (plan_speed_dev.dequant_gemm). */
#define FP16_BYTES 2.0

/* A CPU's repacked kernels in plain buffers (plan_speed_dev.plain): an
 * rpc-server's CPU device allocates its device's default buffer type
 * (ggml-rpc.cpp), so llama.cpp's CPU_REPACK layouts, which the CPU constants
 * were fitted with, do not apply there; nor with -nr. Their rates per type and
 * phase are plan_repack_plain_share()'s, fitted to llama-bench --repack 0 and
 * 1, never to RPC runs; llama-bench --rpc to an rpc-server on the same
 * machine over loopback ran at 0.96-1.09 of --repack 0: the buffers are the
 * difference, not the protocol (docs/rpc.md). */

static const plan_eff_set *eff_of(const plan_efficiency *e, const plan_speed_setup *s, int d) {
    int eng = s->engine >= 0 && s->engine < PLAN_ENG_COUNT ? s->engine : PLAN_ENG_LLAMACPP;
    return &e->set[plan_eff_set_of(&s->dev[d], eng)][eng];
}

bool plan_speed_load_busy(const plan_speed_load *l) {
    if (l->n_layers || l->out_elems > 0) return true;
    for (uint32_t t = 0; t < GGML_TYPE_COUNT; t++)
        if (l->elems[t] > 0) return true;
    return false;
}

uint32_t plan_speed_load_main_type(const plan_speed_load *l) {
    uint32_t main_t = 0;
    for (uint32_t t = 1; t < GGML_TYPE_COUNT; t++)
        if (l->elems[t] > l->elems[main_t]) main_t = t;
    return main_t;
}

/* The share of its fitted rate a CPU kernel for type t runs at on device d: a quantized type's dot products
 * are int8 ones, as fast per FP32 FLOP as the ISA's int8 instructions are (plan_speed_dev.int8_share; a
 * decode's at most PLAN_INT8_GEMV_MAX's, and so is a prefill's but in the GEMMs of the types llama.cpp
 * repacks on Arm, the kernels that run SMMLA. Per datasheet FLOP, the corpus's AVX2 CPUs prefill and decode
 * slower and its i8mm ones prefill faster than its VNNI ones: held out by source the CPU rows went 28.1%
 * -> 15.2%, docs/speed-model.md); a repackable type in plain buffers, its plain share. */
static double cpu_share(const plan_speed_dev *d, uint32_t t, bool prefill) {
    double isa = d->int8_share > 0 && plan_kernel_family(t) != GGML_TYPE_F16 ? d->int8_share : 1.0;
    if (!prefill || !plan_repack_type(PLAN_REPACK_ARM, t)) isa = fmin(isa, PLAN_INT8_GEMV_MAX / PLAN_INT8_REF);
    return isa * (d->plain ? plan_repack_plain_share(d->cpu_isa, t, prefill) : 1.0);
}

/* A current x86 build of llama.cpp prefills the types its tiled GEMM takes faster than the vec_dot GEMMs
 * the CPU constants were measured and fitted on (planner/tiled.c); decode keeps vec_dot. */
static double tiled_share(const plan_speed_setup *s, const plan_speed_dev *d, uint32_t t) {
    return s->pre_tiled || s->engine != PLAN_ENG_LLAMACPP ? 1.0 : plan_tiled_share(d->cpu_isa, d->int8_share, t);
}

/* A dense Llama layer's graph nodes in llama.cpp (llama-graph.cpp, one token, flash attention), as a
 * current build runs them: the attention norm (fused with its scale: planner/speed_load.c), Q, K and V, two
 * RoPEs, two cache writes, attention, the output matrix, the residual add, the FFN norm, gate, up, the
 * activation (one GLU op), down, the residual add. Another architecture's tensors add theirs
 * (plan_speed_load.extra_nodes). */
#define DENSE_LAYER_NODES 17.0
/* The nodes build_moe_ffn (llama-graph.cpp) adds beyond its tensors' (the router's matrix is one of them,
 * and gate, up and down become mul_mat_id): the gating (softmax), top-k, the chosen weights' rows, their
 * normalization (sum, clamp, divide), the weighting, and n_expert_used - 1 adds of the experts' outputs. */
#define MOE_NODES_UNFUSED(n_expert_used) (6.0 + (n_expert_used) - 1.0)
/* CUDA (ggml-cuda.cu's topk-moe fusion; HIP builds the same sources) and Vulkan (its topk_moe shader)
 * run gating through normalization as one kernel, and add the experts' outputs in one: the fused top-k,
 * the weighting and one add. */
#define MOE_NODES_FUSED 3.0

/* A device's MoE layers' fixed cost beyond their count, in dense layers' worth: each node is a kernel
 * launch and, on a CPU, a barrier of its threads, the costs layer_us and ubatch_us stand for. Without
 * it (833 rows, 5 Dec 2026) held-out MoE decode came out 28% too fast on Metal and the fit raised every
 * model's fixed costs to meet the MoE rows: held out by source, decode 7.5% -> 6.2% (docs/speed-model.md). */
static double moe_layer_extra(const plan_speed_load *l, int backend) {
    bool fused = backend == PLAN_CUDA || backend == PLAN_ROCM || backend == PLAN_VULKAN;
    double nodes = fused ? MOE_NODES_FUSED : MOE_NODES_UNFUSED((double)l->n_expert_used);
    return l->n_moe_layers * nodes / DENSE_LAYER_NODES;
}

/* A device's layers in dense Llama layers' worth of llama.cpp's graph nodes: their count, what their
 * tensors add (biases, Q/K norms, post-norms, a router) and the MoE gating's nodes. fitcheck's engine
 * runs a layer as one forward step whatever its tensors (engine/forward.c). */
static double layers_worth(const plan_speed_load *l, int backend, int engine) {
    double tensors = engine == PLAN_ENG_LLAMACPP ? l->extra_nodes / DENSE_LAYER_NODES : 0;
    return l->n_layers + tensors + moe_layer_extra(l, backend);
}

/* Cached positions a layer kind attends to at a depth: sliding-window layers
 * see at most the window. */
static double attended(double depth, uint32_t window) { return window && depth > window ? window : depth; }

/* Backends whose decode flash-attention kernel skips a block of cells whose mask is all -inf, reading the
 * mask alone there: Metal's and Vulkan's (ggml-metal fa_vec_common.metal, vulkan-shaders flash_attn*.comp),
 * the CPU's per cell (ggml-cpu ops.cpp). CUDA's and HIP's (fattn-vec.cuh, with SYCL's port of it) trim
 * fully masked tiles only at the end of the view and only for batches of 1024 rows or more
 * (flash_attn_mask_to_KV_max), which a token's decode never is. */
static const bool fa_skips_masked[PLAN_BACKEND_COUNT] = {[PLAN_CPU] = true, [PLAN_METAL] = true, [PLAN_VULKAN] = true};

/* Cached cells one token's decode attention reads in a sliding-window layer. llama.cpp's window cache is a
 * ring of window + ubatch cells (plan_kv_swa_cells), and the view its attention takes runs to the last cell
 * used, the positions the window has left behind masked: from the window on, a kernel that does not skip
 * them (fa_skips_masked; without flash attention none does, KQ is a plain product over the view) reads more
 * cells as depth grows, until the ring is full. So a DGX Spark's Gemma-3-4B at -ub 2048 decodes at depth
 * 4096 as if its window held 3072 cells (its tg32 slows 13% from depth 0 to 4096, and 15% from there to
 * 32768, ggml-org/llama.cpp benches/dgx-spark.md). fitcheck's engine reads the window. */
static double swa_decode_cells(const plan_speed_setup *s, const plan_speed_dev *d, const plan_speed_load *l,
                               double depth) {
    bool window_only = s->engine != PLAN_ENG_LLAMACPP || (!s->no_fa && fa_skips_masked[d->backend]);
    if (!l->swa_window || window_only) return attended(depth, l->swa_window);
    return fmin(depth, (double)plan_kv_swa_cells(l->swa_window, 1, s->n_ubatch, !s->no_fa));
}

/* The rate decode's arithmetic runs at (plan_speed_dev.dec_gflops; unknown: the dense rate F). */
static double dec_gflops(const plan_speed_dev *d) {
    return d->dec_gflops > 0 ? d->dec_gflops : d->gflops;
}

/* Matrix-vector time of one device for one token. On a CPU, per tensor type,
 * the memory roofline or the kernel's dequant+dot rate, whichever binds (the
 * rates are measured per type, and every type is compute-bound there). On a
 * GPU, one roofline over all the weights, with one rate per kernel family
 * (plan_kernel_family): a per-type max, or per-type rates, would let a mix with
 * fewer bytes decode slower than a bigger mix of the same family
 * (tests/planner_speed/test_physics.c), which no GPU does. */
static double matvec_s(const plan_speed_load *l, const plan_speed_dev *d, const plan_eff_set *f, bool *kernel_bound) {
    double bw = d->mem_gbs * f->scalar[PLAN_EFF_BW] * GIGA, fl = dec_gflops(d) * GIGA;
    double t = 0, bytes = 0, t_cmp = 0;
    /* A GPU runs a file at the rate of its main type's family: files mix families (an IQ3_M file is part
     * K-quant), and a rate per tensor would let a mix with fewer bytes but more slow-family tensors decode slower. */
    uint32_t main_t = plan_speed_load_main_type(l);
    double gpu_rate = plan_eff_typed_get(f, PLAN_EFF_DEC_RATE, plan_kernel_family(main_t));
#define RATE(ty) \
    (d->backend == PLAN_CPU ? plan_eff_typed_get(f, PLAN_EFF_DEC_RATE, ty) * cpu_share(d, ty, false) : gpu_rate)
    for (uint32_t ty = 0; ty < GGML_TYPE_COUNT; ty++) {
        if (l->elems[ty] <= 0) continue;
        double c = l->elems[ty] / (RATE(ty) * fl);
        t += fmax(l->bytes[ty] / bw, c);
        bytes += l->bytes[ty];
        t_cmp += c;
    }
    if (l->out_elems > 0) {
        double c = l->out_elems / (RATE(l->out_type) * fl);
        t += fmax(l->out_bytes / bw, c);
        bytes += l->out_bytes;
        t_cmp += c;
    }
    /* whether a smaller type would decode faster (only asked for by plan_speed_decode_bound): on a CPU, as its
     * main type goes; on a GPU, its one roofline */
    if (kernel_bound)
        *kernel_bound = d->backend == PLAN_CPU ? l->elems[main_t] / (RATE(main_t) * fl) > l->bytes[main_t] / bw
                                               : t_cmp > bytes / bw;
#undef RATE
    return d->backend == PLAN_CPU ? t : fmax(bytes / bw, t_cmp);
}

/* What bounds a decode (plan_speed_decode_bound): its fixed costs, and whether the arithmetic of the weights of
 * the device whose weights take longest outlasts their read. */
typedef struct decode_parts {
    double fixed_s;
    bool kernel_bound;
} decode_parts;

/* A layer's fixed decode cost on device d. On llama.cpp's CPU backend it is per thread: every graph node ends
 * in ggml_barrier (ggml-cpu.c), where each thread's arrival is a sequentially consistent atomic add on one
 * shared counter, so a barrier costs one cache-line hand-over per thread and one thread has nothing to wait
 * for. Fitted per layer alone, that cost became a constant that explained the EPYC 7702's 64-thread decode
 * (qwen2.5-3b, 36 layers: 25.6 ms per token where its weights read in 11) on every CPU, and the M4 Pro's
 * 1-thread decode, held out, came out 3.5x too slow (docs/speed-model.md). fitcheck's engine keeps its
 * measured cost per layer (data/efficiency.csv). */
static double layer_us(const plan_eff_set *f, const plan_speed_dev *d, int engine) {
    double us = f->scalar[PLAN_EFF_LAYER_US];
    return d->backend == PLAN_CPU && engine == PLAN_ENG_LLAMACPP ? us * (d->threads > 0 ? d->threads : 1) : us;
}

/* One token's decode time; parts, when not NULL, gets what bounds it. */
static double decode_s(const plan_speed_setup *s, const plan_efficiency *e, double depth, decode_parts *parts) {
    double t = 0, token_us = 0, hop_us = 0, fixed_us = 0, longest = -1;
    bool kernel_bound = false;
    for (int d = 0; d < s->n_dev; d++) {
        const plan_speed_load *l = &s->load[d];
        const plan_speed_dev *dv = &s->dev[d];
        const plan_eff_set *f = eff_of(e, s, d);
        if (!plan_speed_load_busy(l)) continue;
        /* Per-token and per-crossing costs are the slowest backend's that takes part
         * (an idle host CPU next to a GPU adds none of its own). */
        token_us = fmax(token_us, f->scalar[PLAN_EFF_TOKEN_US]);
        hop_us = fmax(hop_us, f->scalar[PLAN_EFF_HOP_US]);
        bool kernel = false;
        double t_mat = matvec_s(l, dv, f, parts ? &kernel : NULL);
        if (t_mat > longest) longest = t_mat, kernel_bound = kernel;
        double bw = dv->mem_gbs * f->scalar[PLAN_EFF_BW] * GIGA, fl = dec_gflops(dv) * GIGA;
        double swa = swa_decode_cells(s, dv, l, depth);
        double kv = l->kv_bytes_full * depth + l->kv_bytes_swa * swa;
        double macs = l->attn_macs_full * depth + l->attn_macs_swa * swa;
        double cached = l->kv_elems_full * depth + l->kv_elems_swa * swa;
        t += t_mat + kv / bw;
        fixed_us += layers_worth(l, dv->backend, s->engine) * layer_us(f, dv, s->engine);
        /* Per query MAC or per cached element, whichever the set has (planner.h). A set with both has two
         * kernels: attn_kv is its flash-attention kernel, attn_dec its plain path (KQ and KQV as broadcast
         * matrix-vector products, which read the cache once per query head). A set with one runs it on
         * both paths, the plain one (the scores through memory between three kernels: KQ, softmax, KQV)
         * at the set's nofa_dec of the fused rate, fitted to the corpus's -fa 0 rows (docs/speed-model.md). */
        double per_mac = f->scalar[PLAN_EFF_ATTN_DEC], per_kv = f->scalar[PLAN_EFF_ATTN_KV];
        if (plan_eff_two_attn_paths(f)) {
            t += s->no_fa ? macs / (per_mac * fl) : cached / (per_kv * fl);
        } else {
            double nofa = s->no_fa ? f->scalar[PLAN_EFF_NOFA_DEC] : 1.0;
            if (per_mac > 0) t += macs / (per_mac * nofa * fl);
            if (per_kv > 0) t += cached / (per_kv * nofa * fl);
        }
    }
    fixed_us += token_us + s->n_hops * hop_us;
    /* An older build read the same memory at the same speed; what it paid more for was launching and
     * synchronizing the kernels (before CUDA graphs, before Metal's concurrent encoding): its fixed costs
     * are the current ones over its era's share. Scaling the whole token instead predicted worse held out
     * (812 rows, 5 Dec 2026: decode 8.0% vs 8.5%, prefill 12.9% vs 13.3%; docs/speed-model.md). */
    if (s->old_build && s->n_dev > 0) fixed_us /= eff_of(e, s, s->n_dev - 1)->scalar[PLAN_EFF_ERA_DEC];
    if (parts) *parts = (decode_parts){.fixed_s = fixed_us * US, .kernel_bound = kernel_bound};
    return t + fixed_us * US;
}

double plan_speed_decode_s(const plan_speed_setup *s, const plan_efficiency *e, double depth) {
    return decode_s(s, e, depth, NULL);
}

/* Fixed costs bind where they outlast all the rest; else the weights' kernels where their arithmetic takes
 * longer than reading them on the device whose weights take longest (planner.h). */
int plan_speed_decode_bound(const plan_speed_setup *s, const plan_efficiency *e, double depth) {
    decode_parts p;
    double t = decode_s(s, e, depth, &p);
    if (p.fixed_s > t - p.fixed_s) return PLAN_BOUND_FIXED;
    return p.kernel_bound ? PLAN_BOUND_KERNEL : PLAN_BOUND_MEMORY;
}

const char *plan_bound_name(int bound) {
    static const char *const name[] = {[PLAN_BOUND_MEMORY] = "memory", [PLAN_BOUND_KERNEL] = "kernel",
                                       [PLAN_BOUND_FIXED] = "fixed", [PLAN_BOUND_STORAGE] = "storage"};
    return bound >= 0 && bound < (int)FC_ARRAY_LEN(name) ? name[bound] : "?";
}

double plan_speed_tg_tps(const plan_speed_setup *s, const plan_efficiency *e, int n_gen, int depth) {
    if (n_gen <= 0) return 0;
    /* Decode time is linear in depth, so the mean over depth..depth+n-1 is the
     * time at the mean depth — except across a sliding window's edge, which
     * the sampled sum below handles too. */
    enum { SAMPLES = 16 };
    double sum = 0;
    for (int i = 0; i < SAMPLES; i++)
        sum += plan_speed_decode_s(s, e, depth + (n_gen - 1) * (i + 0.5) / SAMPLES);
    double per = sum / SAMPLES;
    return per > 0 ? 1.0 / per : 0;
}

/* Without flash attention a GPU backend's graph materializes the attention
 * scores (llama-graph.cpp build_attn_mha: ggml_mul_mat(k, q), then
 * ggml_soft_max_ext with the mask, then ggml_mul_mat(v, kq)): KQ over every
 * cell of the KV view, the causal mask applied only after it, so depth + n
 * cells per query (a sliding window's cache holds window + n), and each score
 * goes through memory PLAN_NOFA_SCORE_BYTES' worth: a 512-token ubatch at
 * depth 16k writes 1 GiB of scores per layer of 32 heads. No fitted constant:
 * the bytes over the set's bandwidth. It is what made #17906's DGX Spark -fa 0
 * prefill of gpt-oss-120b fall from 1495 t/s at pp512 to 519 at pp16384
 * while -fa 1 stays near 1700. Not added on a CPU: its constants come from
 * this machine's own runs, and the term was neither measured nor fitted there. */
static double nofa_scores_s(const plan_speed_load *l, double n, double depth, double bw) {
    double cells_full = depth + n, cells_swa = l->swa_window ? fmin(depth + n, (double)l->swa_window + n) : 0;
    return PLAN_NOFA_SCORE_BYTES * n * (l->heads_full * cells_full + l->heads_swa * cells_swa) / bw;
}

/* Prefill time of one ubatch of n tokens that follow `depth` cached ones. */
static double ubatch_s(const plan_speed_setup *s, const plan_efficiency *e, double n, double depth) {
    double t = 0;
    bool upload = s->pp_dev >= 0 && n >= PLAN_UPLOAD_MIN_BATCH;
    for (int d = 0; d < s->n_dev; d++) {
        const plan_speed_load *l = &s->load[d];
        if (!plan_speed_load_busy(l)) continue;
        /* Host-resident layers run on the GPU for big batches: the weights are
         * copied over the bus once per ubatch, then computed at GPU speed. */
        int run = upload && l->host_resident ? s->pp_dev : d;
        const plan_speed_dev *dv = &s->dev[run];
        const plan_eff_set *f = eff_of(e, s, run);
        double bw = dv->mem_gbs * f->scalar[PLAN_EFF_BW] * GIGA, fl = dv->gflops * GIGA;
        /* A GPU in the CPU's package holds less of its datasheet peak in long GEMMs
         * (plan_speed_dev.soc): one soc_pp for every backend (data/efficiency.csv). Its attention
         * keeps the set's rate: scaled too, rows at depth >= 16k held out went 17.8% -> 24.1%. */
        double gemm_fl = fl * (dv->soc ? f->scalar[PLAN_EFF_SOC_PP] : 1.0);
        /* Experts touched by a batch: each token routes to exp_frac of them. */
        double touched = l->exp_frac > 0 ? 1.0 - pow(1.0 - l->exp_frac, n) : 0;
        bool dequant = plan_speed_dequantizes(dv, n);
        double bytes = 0, weights = 0, t_gemm = 0, t_dequant = 0; /* what the GEMMs read; the weights touched */
        for (uint32_t ty = 0; ty < GGML_TYPE_COUNT; ty++) {
            double read = l->bytes[ty] + (touched - l->exp_frac) * l->exp_bytes[ty];
            weights += read;
            uint32_t gemm_t = ty; /* the type the GEMM multiplies */
            /* No int8 tensor cores: each quantized matrix the batch touches is read and written
             * back as FP16, which cuBLAS' FP16 GEMM then reads, at the float rate. */
            if (dequant && plan_kernel_family(ty) != GGML_TYPE_F16 && l->elems[ty] > 0 && l->bytes[ty] > 0) {
                double copy = FP16_BYTES * l->elems[ty] * read / l->bytes[ty];
                t_dequant += (read + copy) / bw;
                read = copy;
                gemm_t = GGML_TYPE_F16;
            }
            bytes += read;
            if (!(l->elems[ty] > 0)) continue;
            bool flt = plan_kernel_family(gemm_t) == GGML_TYPE_F16;
            double rate = (plan_pp_pools_family(dv->backend) ? plan_eff_family_get(f, PLAN_EFF_PP, gemm_t)
                                                             : plan_eff_typed_get(f, PLAN_EFF_PP, gemm_t)) *
                          cpu_share(dv, gemm_t, true) * tiled_share(s, dv, gemm_t);
            /* an older build's quantized GEMMs (MMQ) ran at its era's share; float GEMMs were cuBLAS then too */
            if (s->old_build && !flt) rate *= f->scalar[PLAN_EFF_ERA_PP];
            if (flt && dv->backend != PLAN_CPU) rate = fmin(rate, PP_FLOAT_GPU_MAX);
            t_gemm += 2.0 * l->elems[ty] * n / (rate * gemm_fl);
        }
        /* Causal attention: token i of the batch sees depth + i positions. */
        double swa_pos = l->swa_window ? n * attended(depth + n / 2, l->swa_window) : 0;
        double full_pos = n * (depth + n / 2);
        double attn_flops = 2.0 * (l->attn_macs_full * full_pos + l->attn_macs_swa * swa_pos);
        double nofa = s->no_fa ? f->scalar[PLAN_EFF_NOFA_PP] : 1.0;
        t += t_dequant + fmax(bytes / bw, t_gemm) + attn_flops / (f->scalar[PLAN_EFF_ATTN_PP] * nofa * fl) +
             layers_worth(l, dv->backend, s->engine) * f->scalar[PLAN_EFF_UBATCH_US] * US;
        if (s->no_fa && dv->backend != PLAN_CPU) t += nofa_scores_s(l, n, depth, bw);
        if (run != d) t += weights / (dv->link_gbs * f->scalar[PLAN_EFF_LINK] * GIGA);
    }
    return t;
}

bool plan_speed_dequantizes(const plan_speed_dev *d, double batch) {
    return d->dequant_gemm && batch >= PLAN_DEQUANT_MIN_BATCH;
}

double plan_speed_pp_tps(const plan_speed_setup *s, const plan_efficiency *e, int n_prompt, int depth) {
    if (n_prompt <= 0) return 0;
    uint32_t ub = s->n_ubatch ? s->n_ubatch : PLAN_DEFAULT_UBATCH;
    double t = 0;
    for (int done = 0; done < n_prompt; done += (int)ub) {
        double n = n_prompt - done < (int)ub ? (double)(n_prompt - done) : (double)ub;
        t += ubatch_s(s, e, n, (double)depth + done);
    }
    return t > 0 ? n_prompt / t : 0;
}

/* ---- devices ------------------------------------------------------------- */

/* The all-core read figure scaled by the shape of the probe's thread-scaling
 * curve (one core cannot saturate DRAM). Only the curve's shape is trusted: its
 * points are short runs that a busy machine drags down. */
double plan_probe_read_at(const probe_profile *p, int n_threads) {
    int cores = p->n_cores > 0 ? p->n_cores : 1;
    double at_n = 0, at_all = 0;
    for (int i = 0; i < p->n_scaling; i++) {
        if ((int)p->scaling[i].x == n_threads) at_n = p->scaling[i].gbs;
        if ((int)p->scaling[i].x == cores) at_all = p->scaling[i].gbs;
    }
    return at_n > 0 && at_all > 0 ? p->read_gbs * fmin(1.0, at_n / at_all) : 0;
}

int plan_speed_dev_cpu(plan_speed_dev *d, const probe_profile *p, int n_threads) {
    memset(d, 0, sizeof *d);
    d->backend = PLAN_CPU;
    snprintf(d->name, sizeof d->name, "%.63s", p->cpu_model[0] ? p->cpu_model : "CPU");
    int cores = p->n_cores > 0 ? p->n_cores : 1;
    if (n_threads <= 0 || n_threads > cores) n_threads = cores; /* more threads than cores only contend */
    double at = n_threads < cores ? plan_probe_read_at(p, n_threads) : 0;
    double bw = at > 0 ? at : p->read_gbs;
    /* Several NUMA nodes: the weights sit on the node that loaded them while
     * the threads run on every node, so at most one node's read (planner/numa.c). */
    if (p->n_numa > 1) bw = fmin(bw, plan_numa_node_gbs(p, plan_numa_fastest(p)));
    d->mem_gbs = bw;
    double per_thread = p->sgemm_gflops_1t > 0 ? p->sgemm_gflops_1t
                        : p->sgemm_gflops_all > 0 ? p->sgemm_gflops_all / cores
                                                  : PLAN_DEFAULT_CPU_GFLOPS;
    d->gflops = per_thread * n_threads;
    d->threads = n_threads;
    d->int8_share = plan_int8_share(p->int8_per_fp32);
    d->cpu_isa = plan_repack_of_isa(p->isa);
    return d->mem_gbs > 0 ? FC_OK : FC_EINPUT;
}

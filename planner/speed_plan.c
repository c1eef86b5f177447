/* The speed model for a plan: the devices of plan_hw and the placement the
 * memory half computed (which layers on which GPU, the output, MoE experts
 * kept in host RAM) become a plan_speed_setup. */
#include "planner/planner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A discrete GPU whose link is unknown (catalog entries): PCIe 4.0 x16,
 * 16 lanes x 1.97 GB/s per direction (measuring-and-predicting.md). */
#define PLAN_DEFAULT_LINK_GBS 31.5
/* A CPU without a measured SGEMM (catalog platforms, quick profiles): its
 * cores, or 8 when unknown, at the default per-core rate. */
#define PLAN_DEFAULT_CPU_CORES 8
/* That per-core rate for a CPU known from its datasheet (the catalog's memory
 * platforms give no FP32 figure), on the basis the CPU-datasheet constants are
 * fitted on (data/bench_devices.csv: cores x FP32 FLOP per cycle x clock): a
 * desktop core of 2020-2025, two 256-bit FMA pipes (Zen 3/4, Golden Cove),
 * 32 FLOP per cycle, at 4.0 GHz — the corpus's Ryzen 9 7940HS row. */
#define PLAN_DATASHEET_CORE_GFLOPS (32 * 4.0)

double plan_int8_share(double per_fp32) {
    return per_fp32 >= PROBE_INT8_AVX2 && per_fp32 <= PROBE_INT8_I8MM ? per_fp32 / PLAN_INT8_REF : 0;
}

/* INT32 lanes per FP32 lane of a GPU's SMs, over the 1/2 of the GeForce cards since Ampere that
 * PLAN_INT8_PER_FP32_DP4A's basis was fitted on: the int8 dot products of decode's kernels issue on the
 * INT32 lanes. Ampere's GA10x, Ada's and Hopper's SMs pair 64 FP32-only lanes with 64 FP32-or-INT32 ones;
 * Volta's, Turing's and the A100's pair 64 FP32 lanes with 64 INT32 ones; Blackwell's 128 lanes all do
 * either (NVIDIA's architecture whitepapers). Other vendors' and unknown GPUs (a probed one): 1. */
static double int_lanes_share(const char *id) {
    char fam[32];
    plan_corpus_family(id, fam, sizeof fam);
    bool every_lane = !strcmp(fam, "nvidia-volta") || !strcmp(fam, "nvidia-turing") ||
                      !strcmp(fam, "nvidia-blackwell") || !strncasecmp(id, "a100", 4);
    return every_lane ? 2.0 : 1.0;
}

void plan_speed_dev_from_device(plan_speed_dev *s, const plan_device *d) {
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%.63s", d->id);
    s->backend = d->backend;
    /* A CPU of several NUMA nodes: llama.cpp reads at one node's bandwidth,
     * bound or not, and so does an rpc-server's (planner/numa.c). */
    bool cpu = d->backend == PLAN_CPU;
    double bw = cpu && d->n_numa > 1 && d->numa_gbs > 0 ? d->numa_gbs : d->bandwidth_gbs;
    s->mem_gbs = d->bandwidth_measured ? bw : bw * (cpu ? PLAN_CPU_READ_OF_SPEC : PLAN_GPU_READ_OF_SPEC);
    if (cpu) {
        s->datasheet = !d->bandwidth_measured;
        double per_core = s->datasheet ? PLAN_DATASHEET_CORE_GFLOPS : PLAN_DEFAULT_CPU_GFLOPS;
        /* llama.cpp's default -t, a thread per core; a catalog platform gives its FP32 peak, not its
         * cores: as many as that peak holds at the per-core rate */
        s->threads = d->n_cores > 0         ? d->n_cores
                     : d->fp32_tflops > 0   ? (int)fmax(1, lround(d->fp32_tflops * 1000.0 / per_core))
                                            : PLAN_DEFAULT_CPU_CORES;
        s->gflops = d->fp32_tflops > 0 ? d->fp32_tflops * 1000.0 : per_core * s->threads;
        s->int8_share = plan_int8_share(d->int8_per_fp32);
        s->cpu_isa = d->cpu_repack;
        s->plain = d->rpc; /* an rpc-server's buffers are plain (speed.c) */
    } else {
        /* Vulkan reaches the matrix units only where ggml-vulkan enables cooperative matrices */
        bool vector = d->backend == PLAN_VULKAN && d->vulkan_tflops > 0;
        s->gflops = (vector ? d->vulkan_tflops : d->fp16_tflops > 0 ? d->fp16_tflops : d->fp32_tflops) * 1000.0;
        if (d->backend != PLAN_METAL)
            s->dec_gflops = int_lanes_share(d->id) * PLAN_INT8_PER_FP32_DP4A * d->fp32_tflops * 1000.0;
        /* an RPC device gets no host weights per batch (its backend has no offload_op) */
        s->link_gbs = d->unified || d->rpc ? 0 : d->link_gbs > 0 ? d->link_gbs : PLAN_DEFAULT_LINK_GBS;
        s->soc = d->unified && d->backend != PLAN_METAL;
        s->dequant_gemm = d->backend == PLAN_CUDA && d->int8_tops > 0 && d->int8_tops < d->fp16_tflops;
    }
}

bool plan_prefill_unvalidated(const plan_device *d, double *share) {
    if (d->backend != PLAN_CUDA || !(d->fp16_tflops > 0) || !(d->fp32_tflops > 0)) return false;
    double s = d->fp32_tflops / d->fp16_tflops;
    if (share) *share = s;
    return s < PLAN_CUDA_CORE_SHARE_FITTED / 3;
}

/* Several NUMA nodes (planner/numa.c): bound to one node, its cores' compute
 * only (a bound node's cores are known and within the host's, hw_machine.c). */
static void cpu_numa(plan_speed_setup *s, int i, const plan_device *d, const plan_dev_mem *need) {
    s->numa[i] = plan_numa_place(d, need);
    if (s->numa[i] == PLAN_NUMA_PIN) {
        s->dev[i].gflops *= (double)d->numa_cores / d->n_cores;
        s->dev[i].threads = d->numa_cores; /* the command's -t */
    }
}

int plan_speed_from_plan(plan_speed_setup *s, const model_desc *m, const plan_hw *hw, const plan_memory *mem,
                         const plan_params *p, fc_err *err) {
    memset(s, 0, sizeof *s);
    if (hw->n_gpu + 1 > PLAN_SPEED_MAX_DEVS) return fc_err_set(err, FC_EINPUT, "too many devices for the speed model");
    s->n_dev = hw->n_gpu + 1;
    s->engine = PLAN_ENG_LLAMACPP;
    s->n_ubatch = p->n_ubatch;
    s->no_fa = !p->flash_attn;
    s->old_build = plan_build_old(p->llama_build);
    s->pre_tiled = !plan_build_tiled(p->llama_build);
    plan_speed_dev_from_device(&s->dev[0], &hw->host);
    s->dev[0].plain = p->no_repack;
    cpu_numa(s, 0, &hw->host, &mem->host);
    for (int g = 0; g < hw->n_gpu; g++) {
        plan_speed_dev_from_device(&s->dev[1 + g], &hw->gpu[g]);
        if (!(s->dev[1 + g].mem_gbs > 0) || !(s->dev[1 + g].gflops > 0))
            return fc_err_set(err, FC_EINPUT, "GPU %s has no bandwidth or compute figure", hw->gpu[g].id);
        if (hw->gpu[g].backend == PLAN_CPU) cpu_numa(s, 1 + g, &hw->gpu[g], &mem->gpu[g]); /* an rpc-server's CPU */
    }
    plan_speed_place pl;
    memset(&pl, 0, sizeof pl); /* layers, output and experts default to the host */
    pl.exps_dev = p->exps_on_host || p->n_cpu_moe ? 0 : -1;
    pl.exps_layers = p->exps_on_host ? m->hp.n_layer : p->n_cpu_moe;
    pl.kv_type = p->type_k;
    for (int g = 0; g < hw->n_gpu; g++) {
        const plan_dev_mem *dm = &mem->gpu[g];
        for (uint32_t il = dm->layer_first; il < dm->layer_first + dm->n_layers && il < m->hp.n_layer; il++)
            pl.layer_dev[il] = 1 + g;
        if (dm->has_output) pl.output_dev = 1 + g;
    }
    int rc = plan_speed_loads(s, m, &pl, err);
    if (rc) return rc;
    /* The host's bandwidth matters only when it computes something. */
    if (plan_speed_load_busy(&s->load[0]) && !(s->dev[0].mem_gbs > 0))
        return fc_err_set(err, FC_EINPUT, "no memory bandwidth for %s (run 'fitcheck probe')", hw->host.name);
    return FC_OK;
}

/* A paged host (PLAN_PAGED): RAM holds what must stay resident and part of
 * the mapped weights; the rest, -margin bytes, is dropped and read from
 * storage again when a token needs it. Decode touches the share of the host's
 * weights it multiplies (all of a dense model's, the routed share of MoE
 * experts), so it reads that share of the missing bytes per token: a cache
 * of C bytes over a cyclic scan of M misses at least M - C per pass, whatever
 * it evicts. A prompt ubatch touches nearly every weight: all missing bytes. */
static double paged_missing(const plan_memory *mem) {
    const plan_dev_mem *h = &mem->host;
    if (h->verdict != PLAN_PAGED || h->margin >= 0 || !h->weights) return 0;
    double missing = (double)-h->margin;
    return missing < (double)h->mapped ? missing : (double)h->mapped;
}

void plan_speed_paged_read(const plan_speed_setup *s, const plan_hw *hw, const plan_memory *mem, plan_speed_result *r) {
    /* every field set here whatever the verdict: callers reuse results */
    r->paged_bytes = r->storage_gbs = 0;
    r->storage_assumed = false;
    double missing = paged_missing(mem);
    if (!(missing > 0)) return;
    const plan_speed_load *l = &s->load[0];
    double touched = l->out_bytes;
    for (int t = 0; t < GGML_TYPE_COUNT; t++) touched += l->bytes[t];
    double share = touched / (double)mem->host.weights;
    r->paged_bytes = missing * (share < 1 ? share : 1);
    r->storage_assumed = !(hw->host.storage_gbs > 0);
    r->storage_gbs = r->storage_assumed ? PLAN_DEFAULT_STORAGE_GBS : hw->host.storage_gbs;
}

/* Time on the disk adds to time on the memory (a page fault blocks the
 * thread that takes it), so the result is never faster than either. */
double plan_speed_paged_tps(const plan_speed_result *r, const plan_memory *mem, uint32_t n_ubatch, int n_prompt,
                            int n_gen, double tps) {
    if (!(r->paged_bytes > 0) || !(tps > 0) || n_prompt + n_gen <= 0) return tps;
    double n_batches = n_prompt > 0 ? ceil((double)n_prompt / (double)(n_ubatch ? n_ubatch : (uint32_t)n_prompt)) : 0;
    double disk_s = (n_batches * paged_missing(mem) + n_gen * r->paged_bytes) / (r->storage_gbs * 1e9);
    double tokens = n_prompt + n_gen;
    return tokens / (tokens / tps + disk_s);
}

/* The host's decode at each thread count below its own: its compute a thread's share each, its read what that
 * many threads read where the probe measured one thread's (at most t of it), else unchanged and bounded by the
 * per-thread decode rate. The fastest, when it beats the default by PLAN_DEC_THREADS_GAIN. */
static void dec_threads(plan_speed_setup *s, const plan_device *host, const plan_efficiency *e, plan_speed_result *r) {
    plan_speed_dev all = s->dev[0];
    r->dec_threads = 0;
    r->threads = all.threads;
    r->tg128_dec_threads = 0;
    if (all.backend != PLAN_CPU || s->engine != PLAN_ENG_LLAMACPP || all.threads < 2 ||
        !plan_speed_load_busy(&s->load[0]))
        return;
    double best = r->tg128 * (1 + PLAN_DEC_THREADS_GAIN);
    for (int t = 1; t < all.threads; t++) {
        s->dev[0].threads = t;
        s->dev[0].gflops = all.gflops * t / all.threads;
        if (host->read_1t_gbs > 0) s->dev[0].mem_gbs = fmin(all.mem_gbs, t * host->read_1t_gbs);
        double tg = plan_speed_tg_tps(s, e, PLAN_TEST_TG, 0);
        if (tg > best) best = tg, r->dec_threads = t, r->tg128_dec_threads = tg;
    }
    s->dev[0] = all;
}

int plan_speed_predict(const model_desc *m, const plan_hw *hw, const plan_memory *mem, const plan_params *p,
                       const plan_efficiency *e, uint32_t depth, plan_speed_result *r, fc_err *err) {
    plan_speed_setup *s = calloc(1, sizeof *s);
    if (!s) return fc_err_set(err, FC_ERUNTIME, "out of memory");
    int rc = plan_speed_from_plan(s, m, hw, mem, p, err);
    if (!rc) {
        r->pp512 = plan_speed_pp_tps(s, e, PLAN_TEST_PP, 0);
        r->tg128 = plan_speed_tg_tps(s, e, PLAN_TEST_TG, 0);
        r->depth = depth;
        r->numa = s->numa[0];
        r->pp_depth = plan_speed_pp_tps(s, e, PLAN_TEST_PP, (int)depth);
        r->tg_depth = plan_speed_tg_tps(s, e, PLAN_TEST_TG, (int)depth);
        plan_speed_paged_read(s, hw, mem, r);
        double tg_in_ram = r->tg128;
        r->tg128 = plan_speed_paged_tps(r, mem, p->n_ubatch, 0, PLAN_TEST_TG, r->tg128);
        /* storage when its reads take longer than the rest of a token; else at tg128's mean depth */
        bool paged = r->tg128 > 0 && 1.0 / r->tg128 - 1.0 / tg_in_ram > 1.0 / tg_in_ram;
        r->tg_bound = paged ? PLAN_BOUND_STORAGE : plan_speed_decode_bound(s, e, (PLAN_TEST_TG - 1) / 2.0);
        dec_threads(s, &hw->host, e, r);
        if (paged) r->dec_threads = 0; /* storage, not threads, holds it back */
        r->tg_depth = plan_speed_paged_tps(r, mem, p->n_ubatch, 0, PLAN_TEST_TG, r->tg_depth);
        r->pp512 = plan_speed_paged_tps(r, mem, p->n_ubatch, PLAN_TEST_PP, 0, r->pp512);
        r->pp_depth = plan_speed_paged_tps(r, mem, p->n_ubatch, PLAN_TEST_PP, 0, r->pp_depth);
    }
    free(s);
    return rc;
}

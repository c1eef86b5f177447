/* The machine a plan is made for when it is a real one: this machine (its
 * probe profile and its free RAM now) or another machine's saved profile. */
#include "planner/planner.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define HW_MEMINFO "/proc/meminfo"
#define HW_MEMINFO_MAX (64u << 10)

/* Each backend's name, and how llama-bench's "backends" names it: the
 * registries of its build other than the CPU's, joined by commas
 * (tools/llama-bench test::get_backend). Metal registers as "MTL" and a Mac
 * build has Accelerate's BLAS beside it (GGML_BLAS defaults on there), so
 * llama-bench says "MTL,BLAS" (benches/mac-m2-ultra); a HIP build's CUDA
 * registry is named "ROCm" (ggml-cuda/common.cuh). Older builds said
 * "Metal", which the importers read too. */
static const struct {
    const char *name, *bench;
} backend_names[PLAN_BACKEND_COUNT] = {
    [PLAN_CPU] = {"CPU", "CPU"},          [PLAN_CUDA] = {"CUDA", "CUDA"},     [PLAN_ROCM] = {"ROCm", "ROCm"},
    [PLAN_METAL] = {"Metal", "MTL,BLAS"}, [PLAN_VULKAN] = {"Vulkan", "Vulkan"}, [PLAN_SYCL] = {"SYCL", "SYCL"},
};

const char *plan_backend_name(int b) { return b >= 0 && b < PLAN_BACKEND_COUNT ? backend_names[b].name : "?"; }
const char *plan_backend_bench_name(int b) { return b >= 0 && b < PLAN_BACKEND_COUNT ? backend_names[b].bench : "?"; }

#define BE(b) (1u << (b))
/* From llama.cpp's build docs: CUDA is NVIDIA's, HIP (ROCm) AMD's, Metal
 * Apple's; Vulkan runs on every vendor's GPU (on a Mac through MoltenVK,
 * docs/build.md); SYCL is "designed to support Intel GPU firstly" and runs
 * NVIDIA and AMD GPUs through oneAPI's plugins (docs/backend/SYCL.md). The
 * CPU backend runs anywhere, so it is every mask's. */
unsigned plan_backends_of_vendor(const char *vendor, bool apple) {
    unsigned any = BE(PLAN_VULKAN) | BE(PLAN_CPU);
    if (apple) return any | BE(PLAN_METAL);
    if (strcasestr(vendor, "nvidia")) return any | BE(PLAN_CUDA) | BE(PLAN_SYCL);
    if (strcasestr(vendor, "amd") || strcasestr(vendor, "advanced micro")) return any | BE(PLAN_ROCM) | BE(PLAN_SYCL);
    if (strcasestr(vendor, "intel")) return any | BE(PLAN_SYCL);
    return 0;
}
#undef BE

/* Free RAM now — a profile's figure is as old as the profile — through the
 * probe's one reader, which also caps it by a container's memory.max less
 * what the container already uses. */
static int hw_host_ram_now(plan_device *host, fc_err *err) {
    probe_ram r;
    int rc = probe_ram_now(&r, err);
    if (rc) return rc;
    host->mem_total = r.total;
    host->mem_free = r.available;
    char a[24];
    if (r.cgroup_max && r.cgroup_max < r.total)
        snprintf(host->source, sizeof host->source, "MemAvailable, read now, within the container's limit of %s",
                 fc_fmt_bytes(r.cgroup_max, a, sizeof a));
    else
        snprintf(host->source, sizeof host->source, "MemAvailable in /proc/meminfo, read now");
    return FC_OK;
}

/* llama.cpp backends by probe API and vendor. OpenCL devices that share host
 * memory (PoCL's CPU device, integrated GPUs) are not separate memory and
 * are left out. */
static int hw_gpu_backend(const probe_gpu *g) {
    if (!strcasecmp(g->api, "cuda")) return PLAN_CUDA;
    if (strcasestr(g->vendor, "amd") || strcasestr(g->vendor, "advanced micro")) return PLAN_ROCM;
    if (strcasestr(g->vendor, "intel")) return PLAN_SYCL;
    return PLAN_VULKAN;
}

/* Volta's and Turing's SMs (compute capability 7.x) pair 64 FP32 lanes with 8
 * tensor cores of 64 FP16 FMA per clock each (NVIDIA's Volta and Turing
 * whitepapers): 8x the FP32 rate, the catalog's figure for a V100, T4 or RTX
 * 2080 Ti. The probe times tensor cores with sm_80's mma.sync shape only
 * (docs/gpu.md), so it reports no FP16 rate there. */
#define TENSOR_PER_FP32_SM7 8.0
/* Turing's tensor cores run int8 at twice their FP16 rate; before them
 * (llama.cpp: below compute capability 7.5) int8 is DP4A on Volta's INT32
 * lanes, one per FP32 lane (PLAN_INT8_PER_FP32_DP4A x its FP32 rate), and
 * llama.cpp dequantizes for cuBLAS (plan_speed_dev.dequant_gemm). */
#define INT8_PER_FP16_TURING 2.0

/* Measured when present (the probe's read, the pinned host-to-device copy),
 * else the figures the driver gives: the speed model puts both on the
 * measured basis (plan_speed_dev_from_device). */
void plan_device_from_gpu(plan_device *d, const probe_gpu *g) {
    memset(d, 0, sizeof *d);
    snprintf(d->id, sizeof d->id, "gpu");
    snprintf(d->name, sizeof d->name, "%s", g->name);
    d->backend = hw_gpu_backend(g);
    d->backends = plan_backends_of_vendor(g->vendor, strcasestr(g->vendor, "apple") != NULL);
    d->unified = g->unified_memory;
    d->mem_total = g->vram_total;
    d->mem_free = g->vram_free ? g->vram_free : g->vram_total;
    d->bandwidth_measured = g->read_gbs > 0;
    d->bandwidth_gbs = g->read_gbs > 0 ? g->read_gbs : g->theoretical_gbs;
    d->fp16_tflops = g->fp16_tflops;
    d->fp32_tflops = g->fp32_tflops;
    d->link_gbs = g->h2d_pinned_gbs ? g->h2d_pinned_gbs : g->link.theoretical_gbs;
    snprintf(d->source, sizeof d->source, "probe profile (%s)", g->api);
    /* a 7.x card's tensor rate from its measured FP32 one; GeForce GTX 16 Turing chips have no tensor cores */
    bool sm7_tensor = d->backend == PLAN_CUDA && g->cc_major == 7 && !strstr(g->name, "GTX");
    if (sm7_tensor && !(g->fp16_tflops > 0) && g->fp32_tflops > 0) {
        d->fp16_tflops = TENSOR_PER_FP32_SM7 * g->fp32_tflops;
        d->int8_tops = g->cc_minor >= 5 ? INT8_PER_FP16_TURING * d->fp16_tflops
                                        : PLAN_INT8_PER_FP32_DP4A * g->fp32_tflops;
        snprintf(d->source, sizeof d->source, "probe profile (%s; FP16 tensor rate 8x the measured FP32: sm_%d%d)", g->api,
                 g->cc_major, g->cc_minor);
    }
}

/* A host of several NUMA nodes (planner/numa.c): the node a plan binds
 * llama.cpp to is the first GPU's (its host buffers and copies stay local)
 * when it has cores, else the node with cores that reads fastest. */
static void hw_numa(plan_device *h, const probe_profile *p) {
    if (p->n_numa < 2 || p->n_numa > PROBE_MAX_NUMA || p->n_cores < 1) return;
    int node = -1;
    for (int i = 0; i < p->n_gpus && i < PROBE_MAX_GPUS && node < 0; i++) {
        const probe_gpu *g = &p->gpus[i];
        if (!g->unified_memory && g->vram_total && g->numa_node >= 0) node = plan_numa_of_os(p, g->numa_node);
    }
    /* a node of memory only has no cores to bind threads to */
    if (node < 0 || plan_numa_node_cores(p, node) < 1) node = plan_numa_fastest(p);
    h->n_numa = p->n_numa;
    h->numa_node = plan_numa_os(p, node);
    h->numa_cores = plan_numa_node_cores(p, node);
    h->numa_gbs = plan_numa_node_gbs(p, node);
    /* the node's share of the RAM the profile kept: hwloc's per-node sizes
     * can disagree with /proc/meminfo (a VM's do), their proportions less so */
    double sum = 0;
    for (int k = 0; k < p->n_numa; k++) sum += (double)p->numa_mem[k];
    h->numa_mem = (uint64_t)(sum > 0 ? (double)p->ram_total * (double)p->numa_mem[node] / sum
                                     : (double)p->ram_total / p->n_numa);
}

int plan_hw_from_profile(plan_hw *hw, const probe_profile *p, fc_err *err) {
    memset(hw, 0, sizeof *hw);
    plan_device *h = &hw->host;
    snprintf(h->id, sizeof h->id, "cpu");
    snprintf(h->name, sizeof h->name, "%s", p->cpu_model[0] ? p->cpu_model : "CPU");
    h->backend = PLAN_CPU;
    h->mem_total = p->ram_total;
    h->mem_free = p->ram_available ? p->ram_available : p->ram_total;
    if (p->cgroup_mem_max && p->cgroup_mem_max < h->mem_free) h->mem_free = p->cgroup_mem_max;
    h->bandwidth_gbs = p->read_gbs;
    h->bandwidth_measured = p->read_gbs > 0;
    h->cpu_repack = plan_repack_of_isa(p->isa);
    /* the speed model's CPU throughput: one core's measured SGEMM times the
     * cores, as plan_speed_dev_cpu counts it (the all-core run suffers most
     * from a busy machine) */
    h->fp32_tflops = (p->sgemm_gflops_1t > 0 ? p->sgemm_gflops_1t * p->n_cores : p->sgemm_gflops_all) / 1000.0;
    h->n_cores = p->n_cores;
    h->int8_per_fp32 = p->int8_per_fp32;
    h->read_1t_gbs = plan_probe_read_at(p, 1);
    h->storage_gbs = p->storage_read_gbs;
    hw_numa(h, p);
    snprintf(h->source, sizeof h->source, "probe profile of %s (%s)", p->hostname, p->created);
    if (!h->mem_total) return fc_err_set(err, FC_EINPUT, "machine profile has no RAM size");
    for (int i = 0; i < p->n_gpus && i < PROBE_MAX_GPUS; i++) {
        const probe_gpu *g = &p->gpus[i];
        if (g->unified_memory || !g->vram_total) continue;
        if (hw->n_gpu >= PLAN_MAX_DEVICES) break;
        plan_device *d = &hw->gpu[hw->n_gpu++];
        plan_device_from_gpu(d, g);
        snprintf(d->id, sizeof d->id, "gpu%d", hw->n_gpu - 1);
    }
    snprintf(hw->label, sizeof hw->label, "%s, %d GPU%s (probe profile %s%s)", p->hostname[0] ? p->hostname : "machine",
             hw->n_gpu, hw->n_gpu == 1 ? "" : "s", p->created,
             p->busy[0] ? ", MEASURED WHILE BUSY: speeds understated; run 'fitcheck probe' when idle" : "");
    return FC_OK;
}

int plan_repack_of_isa(const char *isa) {
    static const struct { const char *isa; int repack; } isas[] = {
        {"avx512", PLAN_REPACK_X86_AVX512}, {"avx2", PLAN_REPACK_X86_AVX2}, {"neon", PLAN_REPACK_ARM},
    };
    for (size_t i = 0; i < FC_ARRAY_LEN(isas); i++)
        if (!strncmp(isa, isas[i].isa, strlen(isas[i].isa))) return isas[i].repack;
    return PLAN_REPACK_NONE;
}

int plan_hw_this_machine(plan_hw *hw, bool probe_if_missing, fc_err *err) {
    probe_profile *p = calloc(1, sizeof *p);
    if (!p) return fc_err_set(err, FC_ERUNTIME, "out of memory");
    fc_err perr = {0};
    bool have = probe_profile_get(p, probe_if_missing, &perr) == FC_OK && plan_hw_from_profile(hw, p, &perr) == FC_OK;
    /* No profile means "RAM only"; a profile that is there but unreadable
     * (truncated, newer schema, hand-edited) is an error naming the file and
     * the fix — never silently "no profile". */
    char path[4096];
    struct stat st;
    fc_err ignored = {0};
    if (!have && probe_default_path(path, sizeof path, &ignored) == FC_OK && stat(path, &st) == 0) {
        free(p);
        if (err) *err = perr;
        return perr.status ? perr.status : FC_EINPUT;
    }
    free(p);
    if (!have) {
        memset(hw, 0, sizeof *hw);
        snprintf(hw->host.id, sizeof hw->host.id, "cpu");
        snprintf(hw->host.name, sizeof hw->host.name, "this machine's CPU and RAM");
        snprintf(hw->label, sizeof hw->label, "this machine, RAM only (no probe profile: run 'fitcheck probe')");
#if defined(__x86_64__)
        hw->host.cpu_repack = __builtin_cpu_supports("avx512f") ? PLAN_REPACK_X86_AVX512
                              : __builtin_cpu_supports("avx2")  ? PLAN_REPACK_X86_AVX2 : PLAN_REPACK_NONE;
#elif defined(__aarch64__)
        hw->host.cpu_repack = PLAN_REPACK_ARM;
#endif
    }
    int rc = hw_host_ram_now(&hw->host, err);
    if (rc) return rc;
    if (have) {
        size_t n = strlen(hw->label);
        snprintf(hw->label + n, sizeof hw->label - n, "; free RAM read now");
    }
    return FC_OK;
}

int plan_hw_from_spec(plan_hw *hw, const char *spec, fc_err *err) {
    struct stat st;
    size_t n = strlen(spec);
    bool is_file = !stat(spec, &st) && S_ISREG(st.st_mode);
    if (!is_file && !(n > 5 && !strcmp(spec + n - 5, ".json"))) return plan_hw_from_catalog(hw, spec, err);
    probe_profile *p = calloc(1, sizeof *p);
    if (!p) return fc_err_set(err, FC_ERUNTIME, "out of memory");
    int rc = probe_profile_load(p, spec, err);
    if (!rc) rc = plan_hw_from_profile(hw, p, err);
    free(p);
    if (!rc) {
        char label[sizeof hw->label];
        snprintf(label, sizeof label, "%s", hw->label);
        snprintf(hw->label, sizeof hw->label, "%.60s: %.180s", spec, label);
    }
    return rc;
}

int plan_hw_resolve(plan_hw *hw, const char *spec, fc_err *err) {
    return spec ? plan_hw_from_spec(hw, spec, err) : plan_hw_this_machine(hw, false, err);
}

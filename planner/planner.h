/* planner/: will a model fit, how fast will it run, what to pick.
 *
 * - hardware (hwcatalog.c): the devices a plan is made for — this machine,
 *   a profile from another machine, or entries of the built-in hardware
 *   catalog (data/hardware.json, each number with its source);
 * - memory (memory.c): what llama.cpp allocates per device for a model and a
 *   placement — weights, KV cache, compute buffers, output buffer and fixed
 *   runtime overhead — with a verdict per device (docs/planner-memory.md).
 *
 * Units: bytes are bytes; bandwidth GB/s (1e9); memory capacities from the
 * catalog are GiB, as vendors' "24 GB" VRAM really is. */
#ifndef FC_PLANNER_H
#define FC_PLANNER_H

#include "common/fc.h"
#include "model/model.h"
#include "probe/probe.h"

#define PLAN_MAX_DEVICES 16
#define PLAN_MAX_MEM_OPTIONS 8

/* ---- hardware ------------------------------------------------------------ */

enum plan_backend { PLAN_CPU = 0, PLAN_CUDA, PLAN_ROCM, PLAN_METAL, PLAN_VULKAN, PLAN_SYCL, PLAN_BACKEND_COUNT };
const char *plan_backend_name(int backend);

typedef struct plan_device {
    char id[64];               /* catalog id, or "cpu" / "gpu0" for this machine */
    char name[128];
    int backend;               /* enum plan_backend */
    bool unified;              /* shares host RAM (Apple, DGX Spark, Strix Halo) */
    uint64_t mem_total;        /* bytes the backend may allocate (Apple: the GPU's share of RAM) */
    uint64_t mem_free;         /* what a plan may use */
    double bandwidth_gbs;      /* memory bandwidth, vendor or measured */
    double fp16_tflops, fp32_tflops;
    double link_gbs;           /* host link per direction, 0 = unknown */
    char source[160];          /* where mem_free / bandwidth came from */
} plan_device;

typedef struct plan_hw {
    plan_device host;          /* CPU and system RAM */
    plan_device gpu[PLAN_MAX_DEVICES];
    int n_gpu;
    char label[256];           /* what the plan was made for, in words */
} plan_hw;

/* One row of the hardware catalog. */
typedef struct plan_hw_entry {
    char id[64], vendor[32], name[96], category[32], memory_type[64], host_interface[96];
    double memory_gb[PLAN_MAX_MEM_OPTIONS];   /* capacity options, GiB */
    int n_memory;
    double gpu_share[PLAN_MAX_MEM_OPTIONS];   /* unified memory: share a GPU may use, per option; 0 = n/a */
    double bandwidth_gbs, fp16_tflops, bf16_tflops, fp32_tflops, int8_tops;
    char source[640], confidence[32], unverified[160];
} plan_hw_entry;

size_t plan_hwcat_count(void);
int plan_hwcat_get(size_t i, plan_hw_entry *e, fc_err *err);
/* By id, case-insensitive; FC_EINPUT if unknown. */
int plan_hwcat_find(const char *id, plan_hw_entry *e, fc_err *err);

/* "rtx-4090,rtx-4090" (two cards), "apple-m4-max-40c:128" (a capacity
 * option, GiB), "cpu-ddr5-6400-2ch:64". GPUs not accompanied by a CPU
 * platform get this machine's RAM as their host. */
int plan_hw_from_catalog(plan_hw *hw, const char *list, fc_err *err);
/* This machine: GPUs from its probe profile (a quick probe is run and saved
 * first when there is none and probe_if_missing), free RAM read now from
 * /proc/meminfo. Without a profile: RAM only, and the label says so. */
int plan_hw_this_machine(plan_hw *hw, bool probe_if_missing, fc_err *err);
/* A machine profile (this one's or another machine's, probe_profile_save). */
int plan_hw_from_profile(plan_hw *hw, const probe_profile *p, fc_err *err);
/* --hw SPEC: a profile path (FILE.json) or a catalog list. */
int plan_hw_from_spec(plan_hw *hw, const char *spec, fc_err *err);

/* ---- memory --------------------------------------------------------------- */

#define PLAN_DEFAULT_CTX 4096      /* what users run, not the training context */
#define PLAN_DEFAULT_UBATCH 512    /* llama.cpp's -ub default */
#define PLAN_DEFAULT_BATCH 2048    /* llama.cpp's -b default */
#define PLAN_NGL_ALL (-1)          /* every layer and the output on the GPUs (-ngl 999) */

typedef struct plan_params {
    uint32_t n_ctx;            /* total KV cells requested (shared by the parallel sequences) */
    uint32_t n_ubatch, n_batch;
    uint32_t n_parallel;       /* sequences decoded together (-np) */
    uint32_t type_k, type_v;   /* ggml types of the KV cache: f16, q8_0, q4_0 */
    bool flash_attn;
    int32_t n_gpu_layers;      /* PLAN_NGL_ALL or 0..n_layer+1 as llama.cpp counts (+1 = output) */
    float tensor_split[PLAN_MAX_DEVICES]; /* all 0 = proportional to free memory, as llama.cpp */
} plan_params;

void plan_params_default(plan_params *p);

enum plan_verdict { PLAN_FITS = 0, PLAN_TIGHT, PLAN_NO_FIT };
const char *plan_verdict_name(int v);

typedef struct plan_dev_mem {
    uint32_t layer_first, n_layers;   /* repeating layers placed here */
    bool has_output, has_embd;
    uint64_t weights, kv, compute, output, overhead, total;
    uint64_t capacity;                /* free memory the plan may use */
    int64_t margin;                   /* capacity - total */
    int verdict;
} plan_dev_mem;

typedef struct plan_memory {
    plan_dev_mem host;
    plan_dev_mem gpu[PLAN_MAX_DEVICES];
    int n_gpu;
    uint32_t kv_cells, kv_cells_swa;  /* cells per full-attention / sliding-window layer */
    uint64_t kv_bytes;                /* all layers, all devices */
    int verdict;                      /* the worst device */
} plan_memory;

/* KV cells llama.cpp allocates: n_ctx padded to 256 with flash attention
 * (32 without); a sliding-window layer holds at most window x sequences +
 * ubatch cells. */
uint32_t plan_kv_cells(const model_hparams *hp, const plan_params *p, bool swa);
/* Bytes of K and V for layer il with `cells` cells (quantized types with
 * their true block size; MLA caches only the latent). FC_EINPUT if a row is
 * not a whole number of blocks of the type. */
int plan_kv_layer_bytes(const model_hparams *hp, uint32_t il, uint32_t cells, uint32_t type_k, uint32_t type_v,
                        uint64_t *out, fc_err *err);
/* The whole breakdown for model d on hw with p. */
int plan_memory_compute(plan_memory *m, const model_desc *d, const plan_hw *hw, const plan_params *p, fc_err *err);

#endif

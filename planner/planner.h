/* planner/: will a model fit, how fast will it run, what to pick.
 *
 * - hardware (hwcatalog.c): the devices a plan is made for — this machine,
 *   a profile from another machine, or entries of the built-in hardware
 *   catalog (data/hardware.json, each number with its source);
 * - memory (memory.c): what llama.cpp allocates per device for a model and a
 *   placement — weights, KV cache, compute buffers, output buffer and fixed
 *   runtime overhead — with a verdict per device (docs/planner-memory.md);
 * - speed (speed*.c, efficiency.c, calibrate*.c): predicted prefill and decode
 *   tokens/s per placement, its efficiency constants and their calibration
 *   from measurements (docs/speed-model.md);
 * - the choice (choose.c): quantization, context and split to recommend.
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
/* The backend as llama-bench's "backends" field and table name it ("MTL,BLAS"). */
const char *plan_backend_bench_name(int backend);
/* The llama.cpp backends a GPU of this vendor can run (bits 1u << enum
 * plan_backend; `apple`: Apple silicon), 0 for a vendor it does not know. */
unsigned plan_backends_of_vendor(const char *vendor, bool apple);

typedef struct plan_device {
    char id[64];               /* catalog id, or "cpu" / "gpu0" for this machine */
    char name[128];
    int backend;               /* enum plan_backend */
    unsigned backends;         /* a GPU: bit 1u << b for each enum plan_backend its llama.cpp can run
                                * (plan_backends_of_vendor); 0 = not known, no check */
    bool unified;              /* shares host RAM (Apple, DGX Spark, Strix Halo) */
    uint64_t mem_total;        /* bytes the backend may allocate (Apple: the GPU's share of RAM) */
    uint64_t mem_free;         /* what a plan may use */
    double bandwidth_gbs;      /* memory bandwidth, vendor or measured */
    double fp16_tflops, fp32_tflops;
    double int8_tops;          /* a GPU's int8 rate; below fp16_tflops: no int8 tensor cores (plan_speed_dev.dequant_gemm) */
    double vulkan_tflops;      /* the FP16 rate llama.cpp's Vulkan kernels get where they cannot use the matrix units; 0 = fp16_tflops */
    double link_gbs;           /* host link per direction, 0 = unknown */
    bool bandwidth_measured;   /* bandwidth_gbs is the probe's read, not the datasheet's */
    int n_cores;               /* CPU: cores llama.cpp's threads use; 0 = unknown */
    double read_1t_gbs;        /* CPU: one thread's read on bandwidth_gbs's basis (the probe's curve); 0 = unknown */
    double int8_per_fp32;      /* CPU: int8 multiply-adds per FP32 one of its vector ISA (probe.h PROBE_INT8_*); 0 = unknown */
    int cpu_repack;            /* CPU: enum plan_repack, which weight layouts llama.cpp repacks */
    bool rpc;                  /* reached over llama.cpp's RPC backend (another host's rpc-server) */
    double storage_gbs;        /* host: sequential read of the models' disk (probe), 0 = unknown */
    /* A host of several NUMA nodes (planner/numa.c): the node a plan binds
     * llama.cpp to (its operating-system number, numactl's), that node's read
     * on bandwidth_gbs's basis (a probe's measured, its cores on its own
     * memory; a catalog socket's datasheet), its cores (0 = not known: a
     * catalog's) and its memory. n_numa < 2: one node, the fields unused. */
    int n_numa, numa_node, numa_cores;
    double numa_gbs;
    uint64_t numa_mem;
    char source[160];          /* where mem_free / bandwidth came from */
} plan_device;

/* llama.cpp's CPU backend copies some quantized matmul weights into an
 * interleaved layout (the CPU_REPACK buffer) next to the mapped file; which
 * ones depends on the instruction set (ggml-cpu/repack.cpp). */
enum plan_repack { PLAN_REPACK_NONE = 0, PLAN_REPACK_X86_AVX2, PLAN_REPACK_X86_AVX512, PLAN_REPACK_ARM };
/* Whether llama.cpp's CPU backend repacks matmul weights of this tensor type
 * for this enum plan_repack (the rule planner/memory.c counts bytes with). */
bool plan_repack_type(int isa, uint32_t type);
/* The share of its fitted (repacked) kernel rate a type runs at in plain
 * buffers on this enum plan_repack, in decode or prefill; 1 for a type that is
 * never repacked there (planner/memory.c's table says where each comes from). */
double plan_repack_plain_share(int isa, uint32_t type, bool prefill);
/* The prefill rate of llama.cpp's x86 tiled GEMM for a type over its vec_dot
 * GEMM's, on a CPU of this enum plan_repack and int8 share
 * (plan_speed_dev.int8_share); 1 where the tiled GEMM does not run it (Arm, a
 * type it lacks or one repacked there). planner/tiled.c says where each comes from. */
double plan_tiled_share(int isa, double int8_share, uint32_t type);

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
    double vulkan_tflops;                     /* plan_device's; 0 = fp16_tflops */
    char source[640], confidence[32], unverified[160];
    double price_usd;                         /* launch list price, US dollars; 0 = none published */
    char price_source[160];
    char llama_backend[16];                   /* the backend llama.cpp users run here, when not the vendor's */
} plan_hw_entry;

size_t plan_hwcat_count(void);
int plan_hwcat_get(size_t i, plan_hw_entry *e, fc_err *err);
/* The whole catalog in its order (*out malloc'd, n entries). */
int plan_hwcat_list(plan_hw_entry **out, size_t *n, fc_err *err);
/* By id, case-insensitive; FC_EINPUT if unknown. */
int plan_hwcat_find(const char *id, plan_hw_entry *e, fc_err *err);
/* Whether the entry's GPU shares one package and its memory with the CPU (Apple silicon, Strix Halo, DGX Spark). */
bool plan_hwcat_unified(const plan_hw_entry *e);
/* The backend llama.cpp runs on the entry by default, and the ones it can
 * run there (bits 1u << enum plan_backend; 0 = not known). */
int plan_hw_entry_backend(const plan_hw_entry *e);
unsigned plan_hw_entry_backends(const plan_hw_entry *e);

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
/* enum plan_repack for a probe profile's ISA ("avx512", "avx2", "neon"). */
int plan_repack_of_isa(const char *isa);
/* --hw SPEC: a profile path (FILE.json) or a catalog list. */
int plan_hw_from_spec(plan_hw *hw, const char *spec, fc_err *err);
/* The hardware of a plan, resolved once: spec as --hw takes it, NULL = this
 * machine (its profile; free RAM read now through probe_available_ram, the
 * one reader that honours a container's memory.max). */
int plan_hw_resolve(plan_hw *hw, const char *spec, fc_err *err);

/* ---- memory --------------------------------------------------------------- */

#define PLAN_DEFAULT_CTX 4096      /* what users run, not the training context */
#define PLAN_DEFAULT_UBATCH 512    /* llama.cpp's -ub default */
#define PLAN_DEFAULT_BATCH 2048    /* llama.cpp's -b default */
#define PLAN_NGL_ALL (-1)          /* every layer and the output on the GPUs (-ngl 999) */
#define PLAN_NGL_ALL_FLAG 999      /* how llama.cpp users write "all" for -ngl */
/* Logits rows the graph is reserved for. Since llama.cpp PR #23861 and #23988
 * (June 2026) llama-server and llama-cli reserve one row per sequence and per
 * draft token (common_speculative_get_output_limits: n_parallel x (1 + n_max));
 * llama-bench leaves n_outputs_max 0, which llama_context reads as the batch. */
#define PLAN_OUTPUTS_ALL UINT32_MAX
#define PLAN_DRAFT_N_MAX 3         /* common_params_speculative_draft.n_max: llama-server's draft tokens per step */

typedef struct plan_params {
    uint32_t n_ctx;            /* total KV cells requested (shared by the parallel sequences) */
    uint32_t n_ubatch, n_batch;
    uint32_t n_parallel;       /* sequences decoded together (-np) */
    uint32_t type_k, type_v;   /* ggml types of the KV cache: f16, q8_0, q4_0 */
    bool flash_attn;
    int32_t n_gpu_layers;      /* PLAN_NGL_ALL or 0..n_layer+1 as llama.cpp counts (+1 = output) */
    bool exps_on_host;         /* MoE expert tensors stay in host RAM (llama.cpp -ot exps=CPU, --cpu-moe) */
    float tensor_split[PLAN_MAX_DEVICES]; /* all 0 = proportional to free memory, as llama.cpp */
    uint32_t n_tensor_split;   /* values the user gave (-ts): more than the GPUs is an error */
    uint32_t n_cpu_moe;        /* expert tensors of layers 0..n-1 stay in host RAM (--n-cpu-moe) */
    /* How llama.cpp loads the weights (docs/planner-memory.md, "Memory as the
     * operating system sees it"): */
    bool no_mmap;              /* --no-mmap (--load-mode none): weights read into anonymous buffers */
    bool mlock;                /* --mlock: the mapped weights locked in RAM */
    bool no_repack;            /* -nr / --no-repack: no CPU_REPACK copies, those weights stay mapped */
    const struct plan_extras *extras; /* what loads next to the model; NULL = nothing (borrowed) */
    uint32_t n_outputs_max;    /* logits rows per ubatch the graph is reserved for: 0 = as llama-server and
                                * llama-cli reserve them (plan_outputs_reserved), PLAN_OUTPUTS_ALL = every
                                * token of the ubatch (llama-bench, and every tool before llama.cpp PR #23861) */
    uint32_t llama_build;      /* the llama.cpp build planned for (plan --llama-build; its speed era, its -fa
                                * syntax and default: plan_build_old, plan_build_fa_auto); 0 = a current one */
} plan_params;

/* What llama-server loads next to the model (planner/extras.c,
 * docs/planner-memory.md "Next to the model"): a vision projector (--mmproj),
 * LoRA adapters (--lora), a draft model for speculative decoding (-md). */
#define PLAN_MAX_LORA 8
typedef struct plan_extras {
    const model_mmproj *mmproj;   /* NULL: none */
    bool mmproj_on_cpu;           /* --no-mmproj-offload */
    const model_lora *lora[PLAN_MAX_LORA];
    int n_lora;
    const model_desc *draft;      /* NULL: none */
    const char *draft_file;       /* as given, for the command */
    int32_t draft_ngl;            /* -ngld: PLAN_NGL_ALL (llama.cpp's auto, all when they fit) or a count */
} plan_extras;

void plan_params_default(plan_params *p);
/* Logits rows per ubatch that llama.cpp reserves for these parameters
 * (n_outputs_max resolved: 0 -> as llama-server, draft included). */
uint32_t plan_outputs_reserved(const plan_params *p);
/* -ngl as a number: PLAN_NGL_ALL is every layer and the output, n_layer + 1.
 * Every output (text, JSON, tables) shows this one number. */
int32_t plan_ngl_count(const plan_params *p, const model_hparams *hp);

/* PLAN_PAGED: what must stay resident fits, but not with the weights read
 * through the file mapping: the kernel drops those clean pages and reads them
 * from disk again as tokens need them — it runs, at disk speed. */
enum plan_verdict { PLAN_FITS = 0, PLAN_TIGHT, PLAN_PAGED, PLAN_NO_FIT };
const char *plan_verdict_name(int v);

/* Memory as the operating system sees it. Per device, total = anon + mapped:
 * - anon: what llama.cpp allocates and the kernel cannot take back — KV
 *   cache, compute and output buffers, CPU_REPACK copies, weights read with
 *   --no-mmap; on a GPU, device memory;
 * - mapped: weights used in place in the mapped file (host), clean page cache
 *   the kernel reclaims and re-reads from disk; on a unified-memory GPU with
 *   mmap (Metal) the span of the file its buffer maps, which counts against
 *   the GPU's working-set limit like any allocation;
 * - pinned: the part of anon that is page-locked (CUDA_Host-style buffers;
 *   with --mlock the mapped weights too).
 * Host verdict: anon (+ mapped with --mlock) > free -> does not fit;
 * anon + mapped > free -> PLAN_PAGED; else fits / tight by the margin.
 * A GPU's verdict compares its total with its memory. */
typedef struct plan_dev_mem {
    uint32_t layer_first, n_layers;   /* repeating layers placed here */
    bool has_output, has_embd;
    uint64_t weights, kv, compute, output, overhead, total;
    uint64_t repack;                  /* part of weights: CPU_REPACK copies (host only) */
    uint64_t anon, mapped, pinned;    /* see above */
    uint64_t mmproj, lora, draft;     /* part of total: projector weights + one image's compute; adapters;
                                         the draft's weights, KV, compute and output */
    uint64_t capacity;                /* free memory the plan may use */
    int64_t margin;                   /* capacity - total */
    int verdict;
} plan_dev_mem;

/* The loading flags whose effect on the fit the plan reports. */
enum plan_load_flag { PLAN_FLAG_NO_MMAP = 0, PLAN_FLAG_NO_REPACK, PLAN_FLAG_MLOCK, PLAN_FLAG_COUNT };
const char *plan_load_flag_name(int f);   /* "--no-mmap", "--no-repack", "--mlock" */
#define PLAN_MEM_NOTES (PLAN_FLAG_COUNT + 1)
#define PLAN_MEM_NOTE_LEN 256

typedef struct plan_memory {
    plan_dev_mem host;
    plan_dev_mem gpu[PLAN_MAX_DEVICES];
    int n_gpu;
    uint32_t kv_cells, kv_cells_swa;  /* cells per full-attention / sliding-window layer */
    uint64_t kv_bytes;                /* all layers, all devices */
    int verdict;                      /* the worst device */
    /* The verdict with each loading flag toggled from what was asked (-1:
     * not tried, it cannot matter here), and one line per thing to say: the
     * pages read from disk, each flag that changes the fit and how. */
    int flag_verdict[PLAN_FLAG_COUNT];
    char note[PLAN_MEM_NOTES][PLAN_MEM_NOTE_LEN];
    int n_note;
    int mmproj_dev;                   /* device of the projector: a GPU index, -1 the host */
    uint64_t mmproj_compute;          /* its part of that device's mmproj: encoding one image */
    uint32_t mmproj_positions;        /* ViT positions of one image: patches (+ class token) */
} plan_memory;

/* How a plan runs llama.cpp's CPU part on a host of several NUMA nodes
 * (planner/numa.c, docs/speed-model.md "Several NUMA nodes"). */
enum plan_numa {
    PLAN_NUMA_ONE = 0,  /* one node: nothing to place */
    PLAN_NUMA_PIN,      /* the host's part fits one node: numactl binds the threads and memory to it */
    PLAN_NUMA_SPREAD,   /* it does not: --numa distribute over every node, at one node's bandwidth */
};
const char *plan_numa_name(int numa);   /* "one", "pin", "spread" */
/* A probe profile's nodes (node < n_numa): the one that reads fastest; a
 * node's cores (an even share when the profile did not count them) and its
 * read (the probe's per-node figure, else the all-core read's share of its
 * cores: a --quick profile). */
int plan_numa_fastest(const probe_profile *p);
int plan_numa_node_cores(const probe_profile *p, int node);
double plan_numa_node_gbs(const probe_profile *p, int node);
/* A node's operating-system number (numactl's), and the node of one (-1: none). */
int plan_numa_os(const probe_profile *p, int node);
int plan_numa_of_os(const probe_profile *p, int os);
/* Which of them a placement whose host part needs `need` gets on host. */
int plan_numa_place(const plan_device *host, const plan_dev_mem *need);
/* The host part's share of the pinned node's memory free now: the node's
 * memory times the host's free fraction. */
uint64_t plan_numa_free(const plan_device *host);
/* The command prefix that binds a server to host's node (PLAN_NUMA_PIN):
 * "numactl --cpunodebind=N --membind=N "; the bytes written. The server
 * then takes the node's cores as its threads (-t numa_cores). */
size_t plan_numa_bind(const plan_device *host, char *buf, size_t cap);
/* One line for the plan's notes on what `numa` does there ("" for PLAN_NUMA_ONE). */
void plan_numa_note(const plan_device *host, const plan_dev_mem *need, int numa, char *buf, size_t cap);

/* KV cells llama.cpp allocates: n_ctx padded to 256 with flash attention
 * (32 without); a sliding-window layer holds at most window x sequences +
 * ubatch cells. */
uint32_t plan_kv_cells(const model_hparams *hp, const plan_params *p, bool swa);
/* The cells of a sliding-window layer's cache (llama-kv-cache-iswa.cpp, since ggml-org/llama.cpp#13833):
 * window x sequences + ubatch, padded as plan_kv_cells pads. */
uint64_t plan_kv_swa_cells(uint32_t window, uint32_t n_seq, uint32_t n_ubatch, bool flash_attn);
/* Bytes of K and V for layer il with `cells` cells (quantized types with
 * their true block size; MLA caches only the latent). FC_EINPUT if a row is
 * not a whole number of blocks of the type. */
int plan_kv_layer_bytes(const model_hparams *hp, uint32_t il, uint32_t cells, uint32_t type_k, uint32_t type_v,
                        uint64_t *out, fc_err *err);
/* The whole breakdown for model d on hw with p. */
int plan_memory_compute(plan_memory *m, const model_desc *d, const plan_hw *hw, const plan_params *p, fc_err *err);
/* The breakdown alone, without trying the loading flags (no notes). */
int plan_memory_base(plan_memory *m, const model_desc *d, const plan_hw *hw, const plan_params *p, fc_err *err);
/* Where a computed plan put repeating layer il, and the output layer: a GPU
 * index, or -1 for the host. */
int plan_memory_layer_device(const plan_memory *m, uint32_t il);
int plan_memory_output_device(const plan_memory *m);
/* Adds p->extras to m, whose placement (layers per device) is done. */
int plan_extras_memory(plan_memory *m, const model_desc *d, const plan_hw *hw, const plan_params *p, fc_err *err);
/* The draft's own parameters: the target's context, ubatch and sequences
 * (common_base_params_to_speculative), its -ngld, an f16 KV cache (-ctkd/-ctvd),
 * logits for one token per sequence (n_outputs_max = n_parallel there). */
void plan_draft_params(const plan_params *p, plan_params *dp);
/* A ViT's compute buffer for one image of its image_size (clip.cpp's
 * reserve_compute_meta); *positions: patches + class token. */
uint64_t plan_mmproj_compute(const model_mmproj *mm, bool flash_attn, uint32_t *positions);

/* ---- speed: predicted prefill and decode tokens/s ---------------------------
 *
 * The model (docs/speed-model.md has the derivation and the numbers):
 *
 *   decode, per token, per device d holding some layers:
 *     t_d = sum over tensor types T of max(bytes_T / (bw_d * bw_eff),      memory
 *                                          elems_T / (dec_rate_T * V_d))   dequant + dot
 *         + kv_bytes(depth) / (bw_d * bw_eff)                              KV cache read
 *         + attn_macs(depth) / (attn_dec * V_d)                            attention, per query
 *         + kv_elems(depth) / (attn_kv * V_d)                              or per cached element
 *         + (n_layers_d + moe_extra_d) * layer_us + token_us                launches, barriers
 *     t = sum over devices + hop_us per device boundary crossed
 *   (llama.cpp runs the devices of a split one after another, so times add.)
 *   moe_extra_d: the graph nodes the device's MoE layers add to a dense layer's,
 *   in dense layers' worth (planner/speed.c moe_layer_extra: router, top-k,
 *   expert weights and adds; fused into a few kernels on CUDA, HIP and Vulkan).
 *   Decode attention costs what its kernel repeats: a kernel that reads the keys
 *   once per query head costs per MAC (attn_dec: llama.cpp's CPU kernels, and
 *   every backend's plain -fa 0 path); one that converts each key and value
 *   once for all the query heads that share it costs per cached element
 *   (attn_kv: the GPUs' flash-attention kernels, fitcheck's engine, docs/engine.md).
 *   A set has one or both; with both, -fa 0 pays attn_dec and -fa 1 attn_kv,
 *   with one, -fa 0 pays it at nofa_dec of its rate.
 *
 *   prefill, per ubatch of n tokens at depth D, per device:
 *     t_d = max(bytes / (bw_d * bw_eff), sum_T 2 * elems_T * n / (pp_eff_T * F_d))
 *         + attention FLOPs (4 * n_head * d_head per position pair) / (attn_pp * F_d)
 *         + (n_layers_d + moe_extra_d) * ubatch_us
 *   A CUDA card without int8 tensor cores (plan_speed_dev.dequant_gemm) runs a
 *   batch of PLAN_DEQUANT_MIN_BATCH or more through FP16 copies of its quantized
 *   weights: + (bytes_T + 2 B * elems_T) / (bw_d * bw_eff) per quantized type,
 *   whose GEMM then reads 2 B * elems_T at pp_eff of F16.
 *   Layers whose weights stay in host memory while a GPU is present run on the
 *   GPU for batches >= PLAN_UPLOAD_MIN_BATCH: their weights cross the bus once
 *   per ubatch (bytes / (link_gbs * link_eff)) — prefill becomes bus-bound.
 *
 * F_d is the device's dense throughput: for a CPU the measured single-thread
 * SGEMM GFLOP/s times the threads used; for a GPU its FP16 tensor TFLOPS. V_d,
 * what decode's kernels compute at (plan_speed_dev.dec_gflops): F_d on a CPU
 * and on Apple's GPUs, on any other GPU its vector units' int8 dot rate. The
 * efficiency constants (bw_eff, dec_rate_T, pp_eff_T, attn_*, *_us) are data,
 * per backend, engine and tensor type (data/efficiency.csv, with sources), and
 * `fitcheck calibrate` refits them from measurements. */

#define PLAN_SPEED_MAX_DEVS (PROBE_MAX_GPUS + 1) /* the GPUs and the CPU */
#define PLAN_UPLOAD_MIN_BATCH 32        /* llama.cpp offloads host-weight matmuls from this batch size */
#define PLAN_DEFAULT_CPU_GFLOPS 50.0    /* per thread, when nothing was measured */

/* Which kernels run the model: llama.cpp's, or fitcheck's own engine. */
enum plan_engine { PLAN_ENG_LLAMACPP = 0, PLAN_ENG_FITCHECK, PLAN_ENG_COUNT };

int plan_backend_from_name(const char *name);     /* case-insensitive; -1 if unknown */
const char *plan_engine_name(int eng);
int plan_engine_from_name(const char *name);      /* -1 if unknown */

/* ---- efficiency constants ----------------------------------------------- */

/* Scalar parameters per (backend, engine). */
enum plan_eff_scalar {
    PLAN_EFF_BW = 0,      /* achieved / nominal memory bandwidth */
    PLAN_EFF_ATTN_DEC,    /* decode attention multiply-adds per second per device FLOP/s (0: no such term) */
    PLAN_EFF_ATTN_KV,     /* decode attention K/V cache elements per second per device FLOP/s (0: no such term) */
    PLAN_EFF_ATTN_PP,     /* prefill attention achieved FLOP/s / device FLOP/s */
    PLAN_EFF_LAYER_US,    /* fixed decode cost per layer per token, microseconds (llama.cpp's CPU: per thread) */
    PLAN_EFF_TOKEN_US,    /* fixed decode cost per token (sampling, graph setup) */
    PLAN_EFF_UBATCH_US,   /* fixed prefill cost per layer per ubatch */
    PLAN_EFF_HOP_US,      /* cost of crossing a device boundary, per token */
    PLAN_EFF_LINK,        /* achieved / nominal host-link bandwidth for weight uploads */
    PLAN_EFF_ERA_DEC,     /* the current build's fixed decode costs (per layer, token, hop) / those of a build
                           * before PLAN_CURRENT_ERA (1 = same) */
    PLAN_EFF_ERA_PP,      /* that build's quantized prefill GEMM rate / the current one's (float GEMMs: cuBLAS, unchanged) */
    PLAN_EFF_NOFA_DEC,    /* decode attention rate with flash attention off / with it on (1 = same) */
    PLAN_EFF_NOFA_PP,     /* prefill attention compute with flash attention off / with it on; its scores' memory traffic apart */
    PLAN_EFF_SOC_PP,      /* prefill GEMM rate of a GPU in an SoC (plan_speed_dev.soc) / a discrete card's on the backend (<= 1) */
    PLAN_EFF_SCALAR_COUNT
};
/* Per tensor type parameters per (backend, engine). */
enum plan_eff_typed {
    PLAN_EFF_DEC_RATE = 0, /* decode weight elements per second per device FLOP/s */
    PLAN_EFF_PP,           /* prefill GEMM achieved FLOP/s / device FLOP/s */
    PLAN_EFF_TYPED_COUNT
};
/* A set whose decode rate is this is bandwidth-bound: a dot product costs 2
 * FLOPs per weight element, so no kernel decodes 1 element per FLOP, and at
 * that rate the compute term of any file is a few % of its bytes' time. The
 * fit leaves such a set's rates alone (planner/calibrate.c: Metal's). */
#define PLAN_DEC_RATE_UNBOUND 1.0

typedef struct plan_eff_set {
    double scalar[PLAN_EFF_SCALAR_COUNT];
    double typed[PLAN_EFF_TYPED_COUNT][GGML_TYPE_COUNT]; /* 0 = no row: use the default */
    double typed_default[PLAN_EFF_TYPED_COUNT];
} plan_eff_set;

/* The sets: one per backend, and a CPU described by its datasheet (a catalog
 * platform, a corpus row) apart from a CPU the probe measured: llama.cpp's CPU
 * rates per datasheet FLOP are not its rates per SGEMM FLOP the probe
 * measures, and decode and prefill differ in that (docs/speed-model.md), so
 * no one conversion factor serves. Only llama.cpp's kernels have such a set:
 * fitcheck's engine runs on a probed machine. */
#define PLAN_EFF_SET_CPU_DATASHEET PLAN_BACKEND_COUNT
#define PLAN_EFF_SETS (PLAN_BACKEND_COUNT + 1)
typedef struct plan_efficiency {
    plan_eff_set set[PLAN_EFF_SETS][PLAN_ENG_COUNT];
} plan_efficiency;
/* "CUDA", ..., "CPU-datasheet" (the backend column of data/efficiency.csv). */
const char *plan_eff_set_name(int set);
/* Whether a set exists for an engine (the datasheet CPU's only for llama.cpp's). */
bool plan_eff_set_used(int set, int engine);

/* CSV without quoting, as the data tables are written: the next line of the
 * text at *cursor into line (1; 0 at the end; -1 if longer than cap), and a
 * line split at commas into at most max fields (the last keeps the rest). */
int plan_csv_line(const char **cursor, char *line, size_t cap);
int plan_csv_fields(char *line, char **f, int max);
/* The next data line of a built-in table: comments, blank and overlong lines
 * and the header (the first other line; *header tracks it, start false)
 * skipped. 1 with the line, 0 at the end. */
int plan_csv_data_line(const char **cursor, char *line, size_t cap, bool *header);
/* A data file of data/ built into the binary ("efficiency.csv", "quality.csv", ...), NUL-terminated; NULL if absent. */
const char *plan_data_file(const char *name);
const char *plan_eff_scalar_name(int p);
const char *plan_eff_typed_name(int p);
/* The built-in constants (data/efficiency.csv compiled in). */
int plan_efficiency_builtin(plan_efficiency *e, fc_err *err);
/* Parses efficiency rows "backend,engine,param,type,value,source" (CSV text). */
int plan_efficiency_parse_csv(plan_efficiency *e, const char *text, const char *name, fc_err *err);
/* Built-in constants overlaid with a calibration file, when one exists at path
 * (NULL: the default location). A missing file is not an error. */
int plan_efficiency_load(plan_efficiency *e, const char *path, fc_err *err);
/* The constants a request uses: given when it has them, else the ones in
 * use (plan_efficiency_load(NULL)) in *own, which the caller frees. */
int plan_efficiency_resolve(const plan_efficiency *given, plan_efficiency **own, const plan_efficiency **e,
                            fc_err *err);
int plan_efficiency_save(const plan_efficiency *e, const char *path, fc_err *err);
/* The constants a fit to published results starts from, having seen none of
 * them: the built-in table with llama.cpp's GPU sets replaced by
 * data/efficiency_prior.csv (one set of assumptions for every GPU backend).
 * Cross-validation starts here, so a held-out group informs nothing. */
int plan_efficiency_prior(plan_efficiency *e, fc_err *err);
/* Every constant of one set and engine as data/efficiency.csv rows. */
void plan_efficiency_write_csv(const plan_efficiency *e, int set, int eng, const char *source, FILE *out);
/* $XDG_CACHE_HOME/fitcheck/calibration.json */
int plan_calibration_default_path(char *buf, size_t cap, fc_err *err);
double plan_eff_typed_get(const plan_eff_set *s, int param, uint32_t type);
/* Whether a set has both decode attention terms: then each is one path's kernel, attn_kv with flash attention
 * and attn_dec without it, and nofa_dec applies to neither (planner/speed.c). */
bool plan_eff_two_attn_paths(const plan_eff_set *s);
/* The tensor type that stands for type's GPU kernel family (one dequantize+dot
 * design each: floats F16, legacy quants Q4_0, K-quants Q4_K, IQ-quants IQ4_XS,
 * MXFP4): a GPU's decode rate is one per family, so that within a family a file
 * with fewer bytes never decodes slower (tests/planner_speed/test_physics.c). */
uint32_t plan_kernel_family(uint32_t type);
/* type's own constant, else the geometric mean of its kernel family's own ones, else the set's default. */
double plan_eff_family_get(const plan_eff_set *s, int param, uint32_t type);
/* Whether a GPU type without a prefill rate of its own takes its kernel family's (plan_eff_family_get) rather
 * than the set's default: where one GEMM design serves a family's types (CUDA's int8 tensor-core MMQ since
 * Turing, Metal's and Vulkan's mul_mm, SYCL's dequantize + oneDNN). Not a CPU (its per-type constants are this
 * machine's, each measured), not ROCm: its build picks MMQ or dequantize + hipBLAS per type, architecture and
 * batch (ggml_cuda_should_use_mmq in ggml-cuda/mmq.cu: on RDNA3 Q2_K, Q6_K, IQ2_XS and IQ2_S above 128 tokens, on
 * CDNA1/2 all but the legacy quants above 128-256), so a type's rate there says nothing of its family's. */
bool plan_pp_pools_family(int backend);

/* ---- devices and the work placed on them -------------------------------- */

typedef struct plan_speed_dev {
    char name[64];
    int backend;           /* enum plan_backend */
    double mem_gbs;        /* memory read bandwidth, GB/s (1e9) */
    double gflops;         /* dense throughput F (see above), GFLOP/s */
    /* What decode's arithmetic runs at, GFLOP/s; 0 = gflops. A GPU's matrix-vector kernels (MMVQ: int8 dot
     * products of the weights' blocks against the quantized activation) and its flash-attention decode kernel
     * run on the vector units, not the matrix units gflops counts: PLAN_INT8_PER_FP32_DP4A x its FP32 rate x
     * the share of INT32 lanes its SMs have (planner/speed_plan.c int_lanes_share). Apple's gflops is its FP32
     * ALU rate already. */
    double dec_gflops;
    double link_gbs;       /* host link per direction, GB/s; 0 = none (CPU, unified memory) */
    /* A CPU whose weights stay in plain buffers though llama.cpp would repack
     * them for its ISA (cpu_isa; an rpc-server's CPU device, -nr): the
     * repackable types' kernels run at plan_repack_plain_share() of the fitted
     * rates. false: as fitted. */
    bool plain;
    bool datasheet;        /* a CPU whose figures are its datasheet's, not the probe's (PLAN_EFF_SET_CPU_DATASHEET) */
    /* A GPU in one package with the CPU, on unified memory (Strix Halo, DGX
     * Spark, Radeon 780M, Arc 140V), on a backend that also runs discrete
     * cards: it shares the package's power budget with the CPU, so in a
     * compute-bound prefill it does not hold the boost clock its datasheet
     * peak counts (PLAN_EFF_SOC_PP). Not on Metal, whose set is fitted to
     * Apple's SoCs alone. */
    bool soc;
    /* A CUDA card with FP16 tensor cores but none for int8 (Volta: the catalog's
     * int8_tops below its fp16_tflops). llama.cpp's quantized GEMM kernels (MMQ)
     * need int8 tensor cores; without them ggml_cuda_should_use_mmq (ggml-cuda/
     * mmq.cu) keeps MMQ for batches below MMQ_DP4A_MAX_BATCH_SIZE (64) only, and
     * a bigger batch dequantizes the weights to FP16 for cuBLAS' FP16 GEMM
     * (planner/speed.c). */
    bool dequant_gemm;
    /* A CPU's threads (llama.cpp's -t): what its per-layer decode cost scales
     * with (PLAN_EFF_LAYER_US, planner/speed.c). 0 for a GPU. */
    int threads;
    /* A CPU's quantized kernels' rate against the one its set was fitted at:
     * its ISA's int8 multiply-adds per FP32 one over PLAN_INT8_REF (planner/speed.c
     * cpu_share). 0: as fitted (a GPU; a CPU whose ISA is not known). */
    double int8_share;
    /* A CPU's enum plan_repack: whether llama.cpp runs its x86 kernels (AVX2 or
     * AVX-512) or its Arm ones there; PLAN_REPACK_NONE: not known (a corpus CPU,
     * a GPU). What plan_tiled_share keys on. */
    int cpu_isa;
} plan_speed_dev;
/* The int8 multiply-adds per FP32 one (probe.h PROBE_INT8_*) of the ISA both CPU
 * sets were measured or fitted at: this machine's CPU set on an AVX-512 VNNI
 * core, the datasheet set from it (data/efficiency.csv). */
#define PLAN_INT8_REF PROBE_INT8_DOT
/* A decode multiplies one activation row, and SMMLA (i8mm) takes two: llama.cpp's
 * GEMV runs SDOT there (ggml-cpu arch/arm/repack.cpp ggml_gemv_*; quants.c's
 * vec_dot takes its SMMLA path only for two rows, nrc == 2), so a CPU's decode
 * does at most this many int8 multiply-adds per FP32 one. */
#define PLAN_INT8_GEMV_MAX PROBE_INT8_DOT
/* plan_speed_dev.int8_share of a CPU whose ISA does per_fp32 int8 multiply-adds per FP32 one; 0 (as fitted)
 * for one not known or outside PROBE_INT8_AVX2..PROBE_INT8_I8MM (a hand-edited profile). */
double plan_int8_share(double per_fp32);
/* The batch from which a dequant_gemm card dequantizes instead of running MMQ. */
#define PLAN_DEQUANT_MIN_BATCH 64
/* Whether a batch of that many tokens multiplies FP16 copies of the quantized weights on d. */
bool plan_speed_dequantizes(const plan_speed_dev *d, double batch);
/* The set of constants a device's kernels use (plan_efficiency.set[..][engine]). */
int plan_eff_set_of(const plan_speed_dev *d, int engine);

/* What one device computes per token. Bytes and elements are of the weight
 * matrices it multiplies (MoE experts already scaled to the routed share). */
typedef struct plan_speed_load {
    double bytes[GGML_TYPE_COUNT];
    double elems[GGML_TYPE_COUNT];
    double exp_bytes[GGML_TYPE_COUNT];  /* MoE expert weights, full size (prefill touches most) */
    double exp_frac;                    /* n_expert_used / n_expert, 0 when dense */
    uint32_t n_layers;
    uint32_t n_moe_layers, n_expert_used;  /* of them MoE layers, and the experts a token runs in each */
    /* graph nodes of its layers' tensors beyond a dense Llama layer's, summed over the layers (biases,
     * Q/K norms, Gemma's post-norms, a MoE router; planner/speed_load.c); < 0 where a layer has fewer */
    double extra_nodes;
    /* per cached position, summed over this device's layers */
    double kv_bytes_full, attn_macs_full, kv_elems_full;  /* full-attention layers */
    double kv_bytes_swa, attn_macs_swa, kv_elems_swa;     /* sliding-window layers */
    uint32_t swa_window;
    double heads_full, heads_swa;  /* query heads, summed over the layers: the scores attention without flash attention writes */
    /* the output matrix: every decoded token multiplies it, a prompt only once */
    double out_bytes, out_elems;
    uint32_t out_type;
    bool host_resident;  /* weights in host RAM (a CPU device) */
} plan_speed_load;

typedef struct plan_speed_setup {
    int n_dev;
    plan_speed_dev dev[PLAN_SPEED_MAX_DEVS];
    plan_speed_load load[PLAN_SPEED_MAX_DEVS];
    int n_hops;          /* device boundaries crossed per token */
    int engine;          /* enum plan_engine */
    int pp_dev;          /* GPU that runs host-resident layers for big batches, -1 = none */
    bool old_build;      /* a llama.cpp build before PLAN_CURRENT_ERA: the PLAN_EFF_ERA_* factors apply */
    bool pre_tiled;      /* a llama.cpp build before PLAN_TILED_ERA: no x86 tiled GEMM (plan_tiled_share) */
    bool no_fa;          /* flash attention off (-fa 0): PLAN_EFF_NOFA_DEC applies */
    uint32_t n_ubatch;
    int numa[PLAN_SPEED_MAX_DEVS]; /* enum plan_numa per device: how the host's CPU, and an rpc-server's,
                                    * runs (plan_speed_from_plan); PLAN_NUMA_ONE for a GPU */
} plan_speed_setup;

/* Where each layer lives: layer_dev[il] indexes setup->dev; output_dev takes
 * output.weight; exps_dev >= 0 moves the MoE expert tensors of the first
 * exps_layers layers there (--n-cpu-moe N; all layers: -ot exps=CPU). */
typedef struct plan_speed_place {
    int layer_dev[MODEL_MAX_LAYERS];
    int output_dev;
    int exps_dev;
    uint32_t exps_layers;
    uint32_t kv_type;    /* ggml type of the KV cache (F16, Q8_0, Q4_0) */
} plan_speed_place;

/* Whether a device has anything to compute. */
bool plan_speed_load_busy(const plan_speed_load *l);
/* The tensor type with the most weight elements on a device (0, F32, when it has none). */
uint32_t plan_speed_load_main_type(const plan_speed_load *l);
/* Fills setup->load[] from a model's tensor table and a placement. */
int plan_speed_loads(plan_speed_setup *s, const model_desc *m, const plan_speed_place *pl, fc_err *err);

/* A model known only by its totals (a llama-bench line, a published result):
 * parameters, file size and dominant type; shapes of 0 are estimated from
 * the parameter count. Every layer goes to device `dev`. */
typedef struct plan_model_summary {
    double n_params, size_bytes;
    uint32_t type;
    uint32_t n_layer, n_embd, n_vocab, n_head, n_head_kv, head_dim;
} plan_model_summary;
int plan_speed_load_summary(plan_speed_setup *s, int dev, const plan_model_summary *ms, fc_err *err);

/* Devices from a machine profile: the CPU (n_threads of it) and its GPUs. */
int plan_speed_dev_cpu(plan_speed_dev *d, const probe_profile *p, int n_threads);
/* A profile's read on n_threads, on its all-core read's basis (its thread-scaling curve's shape); 0 where the
 * curve lacks the point or the all-core one. */
double plan_probe_read_at(const probe_profile *p, int n_threads);
/* The one conversion from a device to what the speed model computes with. A
 * GPU's bandwidth is on one basis, what fitcheck's read kernel measures: the
 * probe's read when there is one, else the datasheet's times
 * PLAN_GPU_READ_OF_SPEC; the GPU constants (bw_eff) are fitted on that basis. */
#define PLAN_GPU_READ_OF_SPEC 0.90 /* docs/gpu.md: published coalesced read on a GH200, 3614.6 of 4000 GB/s */
/* A CPU platform's datasheet bandwidth (channels x 8 B x MT/s) to what all its
 * cores read, the basis of the CPU constants (the probe's read): STREAM-like
 * all-core reads sustain 70-90% of it (data/hardware.json cpu_platform notes). */
#define PLAN_CPU_READ_OF_SPEC 0.80
/* A 4-way int8 dot product per lane and clock (NVIDIA's dp4a since sm_61, AMD's v_dot4 since gfx906,
 * Intel's DP4A): the multiply-adds decode's quantized kernels do per FP32 one, on a GeForce since Ampere
 * (half its lanes do INT32) the card's FP16 tensor figure (4 x FP32), the basis its constants had before. */
#define PLAN_INT8_PER_FP32_DP4A 4.0
void plan_speed_dev_from_device(plan_speed_dev *s, const plan_device *d);
/* The CUDA constants were fitted on GeForce cards, whose CUDA cores (FP32/INT32) give a quarter of their FP16
 * tensor rate since Ampere; llama.cpp's quantized GEMMs unpack their tiles on those cores. The corpus has no card
 * with far fewer, and the two published results of such cards (ggml-org/llama.cpp#15013: an A100, 19.5 of 312
 * TFLOPS, and an H100, 51-67 of 756-989) prefilled at ~0.4x of the prediction (docs/speed-model.md). Two rows of
 * unstated variant fit no rate, so plans say so rather than correct it, for a card below a third of the fitted
 * share (A100, H100, H200, B200: 1/28 to 1/15); Turing's 1/8 (T4, RTX 2080 Ti) is not said: no result shows how
 * it fares. true for such a device; *share (may be NULL): its CUDA-core share. */
#define PLAN_CUDA_CORE_SHARE_FITTED 0.25
bool plan_prefill_unvalidated(const plan_device *d, double *share);
/* A probed GPU as a plan device (measured bandwidth and link when present). */
void plan_device_from_gpu(plan_device *d, const probe_gpu *g);

/* Seconds per token for decode at a KV depth (the token sees depth cached positions). */
double plan_speed_decode_s(const plan_speed_setup *s, const plan_efficiency *e, double depth);
/* What bounds decode: whether fewer bytes per weight would decode faster (memory: yes; kernel: not in the
 * same kernel family, whose integer work per weight a smaller type does not cut: on the device whose weights
 * take longest their arithmetic outlasts their read, a GPU's one roofline or a CPU's main type; fixed: hardly,
 * launches, barriers and the per-token costs outlast the rest; storage: a paged host's reads,
 * plan_speed_result). */
enum plan_bound { PLAN_BOUND_MEMORY = 0, PLAN_BOUND_KERNEL, PLAN_BOUND_FIXED, PLAN_BOUND_STORAGE };
int plan_speed_decode_bound(const plan_speed_setup *s, const plan_efficiency *e, double depth);
const char *plan_bound_name(int bound);
/* Tokens/s of llama-bench's tests: tgN at depth d averages depths d..d+N-1;
 * ppN at depth d processes N tokens in ubatches after d cached ones. */
double plan_speed_tg_tps(const plan_speed_setup *s, const plan_efficiency *e, int n_gen, int depth);
double plan_speed_pp_tps(const plan_speed_setup *s, const plan_efficiency *e, int n_prompt, int depth);

/* For the engine's bench: this machine, CPU placement, fitcheck's kernels,
 * a KV cache of ggml type kv_type (F16, Q8_0). */
int plan_predict_bench(const model_desc *m, const probe_profile *p, int n_threads, uint32_t kv_type, int n_prompt,
                       int n_gen, int n_depth, double *pp_tps, double *tg_tps, fc_err *err);

/* ---- measurements and calibration ---------------------------------------- */

#define PLAN_MEAS_MAX 4096      /* measurements in one calibration */
#define PLAN_MEAS_FILE_MAX (64u << 20)

/* One llama-bench-shaped result, with what the model needs to predict it. */
typedef struct plan_meas {
    char label[96];          /* "llama 7B Q4_0 pp512 on RTX 4090" */
    char device[32];         /* catalog / corpus device id; "" for this machine */
    char source[96];         /* where the number was published ("" for own runs) */
    /* The publication it came from, a hash of its URL (else of its source): what leave-one-source-out
     * holds out whole, so that one thread's tables of several machines, or two columns of one table,
     * are one source and the name's length decides nothing. 0 for own runs. */
    uint64_t origin;
    int backend, engine;
    int n_threads, n_prompt, n_gen, n_depth;
    double tps;              /* measured mean t/s */
    plan_speed_setup setup;
} plan_meas;

typedef struct plan_meas_set {
    plan_meas *m;
    int n, cap;
} plan_meas_set;

void plan_meas_set_free(plan_meas_set *s);
/* Appends a zeroed measurement (FC_EINPUT past PLAN_MEAS_MAX). */
int plan_meas_push(plan_meas_set *s, plan_meas **out, fc_err *err);
/* Reads llama-bench output (every shape plan_bench_parse reads) or
 * fitcheck's own saved bench results (same fields), the published-results
 * table or the corpus. The machine the runs came from is p (this machine's
 * profile unless --hw says otherwise). text[len] must be '\0'
 * (fc_read_file's buffers are): the tables are scanned as C strings. */
int plan_meas_import(plan_meas_set *s, const char *text, size_t len, const char *name, const probe_profile *p,
                     fc_err *err);
/* Predicted t/s of a measurement's test; a -pg test (n_prompt and n_gen both
 * set, llama-bench's "pp4096+tg128") is all its tokens over both phases' time. */
double plan_meas_predict(const plan_meas *m, const plan_efficiency *e);

/* ---- llama-bench tests (bench_spec.c) -------------------------------------- */

#define PLAN_BENCH_MAX 32              /* tests in one --bench list */
#define PLAN_BENCH_MAX_TOKENS 1000000  /* prompt, generation or depth: beyond any real run */
#define PLAN_BENCH_NAME_MAX 64

/* -p N = {N,0,0}; -n N = {0,N,0}; -pg P,N = {P,N,0}; -d D sets n_depth. */
typedef struct plan_bench_test {
    int n_prompt, n_gen, n_depth;
} plan_bench_test;
/* "pp512", "tg128", "pp4096+tg128", "pp512@d4096" (or llama-bench's "pp512 @ d4096"). */
int plan_bench_test_parse(const char *s, plan_bench_test *t);
/* "pp512,tg128,pp2048@d32768": at most max tests; FC_EINPUT naming the bad one. */
int plan_bench_list_parse(const char *spec, plan_bench_test *out, int max, int *n, fc_err *err);
/* A test's t/s from its phases' rates (tg after the prompt, at n_depth + n_prompt): a -pg test divides all
 * its tokens by both phases' time, as llama-bench does; 0 where a phase it runs has no rate. */
double plan_bench_combine(const plan_bench_test *t, double pp, double tg);
/* Predicted t/s of one test as llama-bench reports it. */
double plan_bench_predict(const plan_speed_setup *s, const plan_efficiency *e, const plan_bench_test *t);
/* The test as llama-bench names it: "pp512", "tg128", "pp4096+tg128", "pp512 @ d4096". */
const char *plan_bench_test_name(const plan_bench_test *t, char *buf, size_t cap);

/* ---- llama-bench records (bench_record.c) ---------------------------------
 * One result as llama-bench writes it (its field names; tools/llama-bench/
 * llama-bench.cpp, test::get_fields), plus fitcheck's additions. The one
 * reader of llama-bench output: `run --bench` writes these, `report --runs`
 * and `calibrate` read them back, together with llama-bench's own files. */

#define PLAN_BENCH_MAX_SAMPLES 64         /* repetitions kept per record (llama-bench -r; 5 by default) */
#define PLAN_BENCH_MAX_RECORDS PLAN_MEAS_MAX
#define PLAN_BENCH_FILE_MAX PLAN_MEAS_FILE_MAX
#define PLAN_BENCH_MAX_THREADS 4096
#define PLAN_BENCH_MAX_TPS 1e7            /* t/s beyond any real test */
#define PLAN_BENCH_MAX_PARAMS 1e13        /* 10 T parameters */
#define PLAN_BENCH_MAX_BYTES 1e14         /* 100 TB of weights */
/* llama-bench's -fa default since it took auto (LLAMA_FLASH_ATTN_TYPE_AUTO):
 * on wherever the backend has the kernel. */
#define PLAN_BENCH_FA_AUTO (-1)
/* -ts as llama-bench writes it (test::get_values): each device's share "%.2f",
 * joined by '/', up to the last nonzero one ("0.00" when none is). */
void plan_bench_tensor_split(const float *split, int n, char *buf, size_t cap);
/* build_commit of the records `plan --bench` writes: avg_ts is a prediction. */
#define PLAN_BENCH_PREDICTED "fitcheck-prediction"

typedef struct plan_bench_record {
    char build_commit[48];
    int build_number;       /* llama.cpp's (plan_build_old); 0 = not given */
    char cpu_info[128];
    char gpu_info[128];
    char backends[32];
    char engine[16];        /* "llama.cpp" (llama-bench's files) or "fitcheck" (run --bench) */
    char isa[16];           /* SIMD kernels used by fitcheck's engine; empty for llama.cpp */
    char model_filename[512];
    char model_type[128];   /* "llama 8B Q4_K - Medium": architecture, llama.cpp's type, file type (model/bench_desc.c) */
    uint64_t model_size;    /* bytes */
    uint64_t model_n_params;
    int n_batch, n_ubatch, n_threads;
    int n_gpu_layers;       /* -1 or >= the layer count: all */
    char type_k[16], type_v[16];
    int flash_attn;         /* PLAN_BENCH_FA_AUTO, 0 off, 1 on (older llama-bench: false/true) */
    char tensor_split[128]; /* -ts as llama-bench writes it: "41.00/39.00"; "0.00" or "" = its default */
    int repack;             /* --repack: 1 CPU_REPACK layouts (the default, and when not given), 0 plain buffers */
    plan_bench_test test;   /* n_prompt, n_gen, n_depth: -p, -n, -pg, -d */
    char test_time[32];     /* ISO 8601 UTC */
    double avg_ns, stddev_ns, avg_ts, stddev_ts;
    double samples_ns[PLAN_BENCH_MAX_SAMPLES];
    double samples_ts[PLAN_BENCH_MAX_SAMPLES];
    int n_samples;
    double predicted_ts;    /* fitcheck's prediction for this test; 0 = none */
    double read_gbs_now;    /* DRAM read GB/s measured beside the test (run --bench); 0 = none */
    double predicted_now_ts; /* the prediction at read_gbs_now: same-minute; 0 = none */
} plan_bench_record;

/* Reads llama-bench -o json (an array), -o jsonl (an object per line) or
 * -o csv, or fitcheck's own output of any of them. *recs is malloc'd.
 * Unknown fields are ignored; a wrong type or range is FC_EINPUT naming the
 * file, the record and the field. name is used in messages. */
int plan_bench_parse(const char *text, size_t len, const char *name, plan_bench_record **recs, int *n, fc_err *err);
int plan_bench_load(const char *path, plan_bench_record **recs, int *n, fc_err *err);
/* Whether two records are the same test of the same model: the model (its
 * parameter count and size, else its model_type), the test (-p, -n, -d) and
 * the KV cache types. A prediction pairs with a measurement this way, in
 * whatever order the files hold them. */
bool plan_bench_same_test(const plan_bench_record *a, const plan_bench_record *b);
/* A record as a measurement the speed model can predict: the machine is p,
 * its GPU when the record offloaded layers to one. where names the record in
 * messages ("runs.json: record 3"). */
int plan_meas_from_record(plan_meas *m, const plan_bench_record *r, const probe_profile *p, const char *where,
                          fc_err *err);
/* Reads several files into one list (at most PLAN_BENCH_MAX_RECORDS); the
 * first bad file stops it. */
int plan_bench_load_files(const char *const *paths, int n_paths, plan_bench_record **recs, int *n, fc_err *err);
/* Predictions for records that carry none: from a record of `plan --bench`
 * (PLAN_BENCH_PREDICTED) of the same test, else the speed model (constants
 * e, NULL: those in use) on the machine p (NULL: no model). Prediction
 * records that found their measurement are removed from recs. Records the
 * model cannot predict keep their measurement; note (appended to) says how
 * many and why (the first reason). */
void plan_bench_predict_records(plan_bench_record *recs, int *n, const probe_profile *p, const plan_efficiency *e,
                                char *note, size_t note_cap);
/* `run --bench`: predictions for fitcheck's own runs of model m on this
 * machine's profile p: predicted_ts, and predicted_now_ts with p's bandwidth
 * replaced by the one measured beside the test (read_gbs_now). note says what
 * the prediction assumes that the user should know ("" when nothing). */
int plan_bench_predict_own(plan_bench_record *recs, int n, const model_desc *m, const probe_profile *p, char *note,
                           size_t note_cap, fc_err *err);

/* ---- the public benchmark corpus (data/bench_corpus.csv) ------------------ */

#define PLAN_CORPUS_HEADER "device,backend,model,quant,test"
/* Rows dated before this month are old builds: int8 tensor-core MMQ (PRs
 * #7676, #7860, June 2024), its rewrite (#8416, #8495, July 2024) and what
 * followed changed prefill speed a lot. A row whose source says which kernels
 * its build ran (the corpus's era column: the PR columns of #7676 and #7860,
 * June 2024, beside #7716's dp4a MMQ of the same month) is of that era. */
#define PLAN_CURRENT_ERA "2024-07"
/* From this month llama-bench's -fa defaults to auto (on wherever the backend
 * has the kernel; LocalAI's PR #6168 of 2025-08-31 follows the change): a row
 * that does not give -fa and is dated earlier ran without flash attention. */
#define PLAN_FA_AUTO_ERA "2025-09"
/* Whether a result dated `date` ("2024-05", "2023-11..2025": its start; an
 * ISO 8601 test_time) predates `month` (PLAN_CURRENT_ERA, PLAN_FA_AUTO_ERA);
 * false for no date. */
bool plan_dated_before(const char *date, const char *month);
/* The same two boundaries as llama.cpp build numbers (`llama-cli --version`
 * prints "version: N (commit)", llama-bench "build: commit (N)" and its
 * build_number field), for a build the user names and a record that carries
 * its number, whatever day it ran. llama.cpp numbers each master commit in
 * turn; dated anchors (docs/speed-model.md, "Build era"): */
/* b3200 ran on 2024-06-21 (ggml-org/ci, llama.cpp/73/d5f903eb...: "main: build =
 * 3200", "date: Fri Jun 21 ... 2024") and b3441 was master on 2024-07-23
 * (ikawrakow's ik_llama.cpp wiki, "July 2024: Prompt processing performance
 * comparison"): 7.5 builds a day between, so July 2024 began near b3275 (b3091
 * on 2024-06-09, msys2/MINGW-packages#21118, gives 9 a day before). */
#define PLAN_CURRENT_ERA_BUILD 3275
/* -fa on|off|auto, auto by default (PR #15434, merge e81b8e4b, 2025-08-30):
 * b6327 of that day has it (mybigday/llama.node#102, "sync llama.cpp to b6327":
 * "introduce flash_attn_type (auto|on|off)"); b6322, the same day, is the last
 * build a release lists before it, so b6323..b6326 are not known either way. */
#define PLAN_FA_AUTO_BUILD 6327
/* llama.cpp's x86 tiled GEMM (ggml-org/llama.cpp#27851, planner/tiled.c): the
 * PR opened on 2026-08-28; llama-cpp-python 0.3.35 (PyPI, 2026-08-17) vendors
 * a llama.cpp without it, 0.3.36 (2026-10-01) one with it. A row dated before
 * that month ran vec_dot (one from September may have either). */
#define PLAN_TILED_ERA "2026-10"
/* The same as a build number, at the ~10 builds a day from b5635 on 2025-06-11
 * (ikawrakow/ik_llama.cpp#518, "build: 5635 (3069e3169)") to b8664 run on
 * 2026-04-04 (geerlingguy/ai-benchmarks#51) and b10334 on 2026-09-10 (#53):
 * ~b10150 when the PR opened, ~b10500 on 2026-10-01. A named build from b10500
 * has it; one between may not. */
#define PLAN_TILED_BUILD 10500
#define PLAN_BUILD_MAX 1000000   /* b10326 in August 2026: a number this high is a typo */
/* Whether build (0: a current one) is of the old era (PLAN_EFF_ERA_*). */
bool plan_build_old(uint32_t build);
/* Whether build (0: a current one) takes -fa on|off|auto and defaults to auto;
 * before, -fa was a bare flag and flash attention was off unless given. */
bool plan_build_fa_auto(uint32_t build);
/* Whether build (0: a current one) has the x86 tiled GEMM (PLAN_TILED_BUILD). */
bool plan_build_tiled(uint32_t build);
/* Whether a run predates an era (era_build, era_month): by its build number, else (build 0: not known) by its
 * date (plan_dated_before). */
bool plan_run_before(uint32_t build, const char *date, uint32_t era_build, const char *era_month);
/* A backend's published results from old builds in the corpus (built in): rows and distinct sources. */
int plan_corpus_old_rows(int backend, int *n_sources);
/* Whether a corpus row measures a device of this family (plan_corpus_family). */
bool plan_corpus_family_measured(const char *family);
/* A device id's family (into family[cap]), and whether a corpus row measures it. */
bool plan_corpus_device_measured(const char *id, char *family, size_t cap);
/* Reads the corpus (its text NUL-terminated); plan_meas_import does too when
 * it sees the header. */
int plan_corpus_import(plan_meas_set *s, const char *text, const char *name, fc_err *err);
/* A device id's bandwidth and dense throughput, a GPU's for the backend it
 * runs (plan_speed_dev_from_device): hardware catalog, else data/bench_devices.csv. */
int plan_corpus_device(const char *id, int backend, plan_speed_dev *d, fc_err *err);
/* The device family of an id ("apple-m3-max-40c" -> "apple-m3", "rtx-4090" -> "nvidia-ada"). */
void plan_corpus_family(const char *id, char *out, size_t cap);

/* Cross-validation: each group (one source, or one device family) is left
 * out in turn, the constants refitted on the rest from `base`, and the group
 * predicted. pred[i] receives measurement i's out-of-sample prediction. */
enum plan_cv_by { PLAN_CV_SOURCE = 0, PLAN_CV_FAMILY };
#define PLAN_CV_DEEP 16384        /* "long context" rows: depth at least this */
int plan_cross_validate(const plan_efficiency *base, const plan_meas_set *s, int by, double *pred, fc_err *err);

/* A test's phase, as the medians count it: decode is a tgN test alone; a ppN
 * or ppN+tgN test is prefill (its prompt is most of its time). */
enum plan_phase { PLAN_PHASE_DECODE = 0, PLAN_PHASE_PREFILL, PLAN_PHASES };
const char *plan_phase_name(int phase);   /* "decode", "prefill" */
int plan_meas_phase(const plan_meas *m);
/* The efficiency set whose constants predict a measurement's device (plan_eff_set_of). */
int plan_meas_eff_set(const plan_meas *m);
/* Whether a measurement's model routes its tokens to experts (a mixture of experts). */
bool plan_meas_moe(const plan_meas *m);

typedef struct plan_cv_stats {
    int n, n_dec, n_pp, n_deep;
    double med, med_dec, med_pp, med_deep;   /* median |pred/meas - 1| */
    int n_be[PLAN_BACKEND_COUNT];
    double med_be[PLAN_BACKEND_COUNT];
    int n_set[PLAN_EFF_SETS][PLAN_PHASES];   /* per efficiency set and phase */
    double med_set[PLAN_EFF_SETS][PLAN_PHASES];
    int n_old[PLAN_EFF_SETS][PLAN_PHASES];   /* the same, results of builds before PLAN_CURRENT_ERA only */
    double med_old[PLAN_EFF_SETS][PLAN_PHASES];
    int n_moe[PLAN_EFF_SETS][PLAN_PHASES];   /* the same, results of mixture-of-experts models only */
    double med_moe[PLAN_EFF_SETS][PLAN_PHASES];
    int n_deep_set[PLAN_EFF_SETS][PLAN_PHASES]; /* the same, results at depth PLAN_CV_DEEP or more only */
    double med_deep_set[PLAN_EFF_SETS][PLAN_PHASES];
} plan_cv_stats;
/* Median errors of predictions pred[] against s: all, decode, prefill, deep, per backend, per set and phase. */
void plan_cv_summarize(const plan_meas_set *s, const double *pred, plan_cv_stats *st);

/* How far the speed model was off on published results it was not fitted on,
 * refitted without one source at a time (`calibrate --cross-validate --csv`
 * over data/bench_corpus.csv, built in from data/speed_accuracy.csv): per
 * efficiency set and phase, the number of results and the median
 * |predicted/measured - 1|. rows 0: the set was not measured there (a CPU the
 * probe measured: its constants come from this machine's own runs). */
typedef struct plan_accuracy {
    int set;
    int rows[PLAN_PHASES];
    double median[PLAN_PHASES];        /* one source held out at a time */
    double family_median[PLAN_PHASES]; /* one device family (chip generation) held out at a time */
    int old_rows[PLAN_PHASES];         /* results of builds before PLAN_CURRENT_ERA (0: none) */
    double old_median[PLAN_PHASES];    /* theirs, one source held out at a time */
    int moe_rows[PLAN_PHASES];         /* results of mixture-of-experts models (0: none) */
    double moe_median[PLAN_PHASES];    /* theirs, one source held out at a time */
    bool moe;                          /* the plan's model is one: moe_rows and moe_median apply */
    int deep_rows[PLAN_PHASES];        /* results at depth PLAN_CV_DEEP or more (0: none) */
    double deep_median[PLAN_PHASES];   /* theirs, one source held out at a time */
    bool deep;                         /* the plan's full context is that deep: deep_rows and deep_median apply */
    /* A catalog device whose family no published result measures: family_median is what
     * to expect of it (plan_corpus_family_measured), family its name. */
    bool unmeasured;
    char family[64];
    bool old_build;                    /* the plan is for such a build (plan --llama-build): old_median applies */
} plan_accuracy;
int plan_accuracy_of_set(int set, plan_accuracy *a, fc_err *err);
/* The device that runs most of a placement: the first GPU holding layers, else the host. */
const plan_device *plan_main_device(const plan_hw *hw, const plan_memory *mem);
/* That of the set which predicts most of a placement (plan_main_device; none
 * for a CPU the probe measured); unmeasured for
 * a catalog device whose chip generation is in no corpus row; old_build for a
 * plan for a llama_build before PLAN_CURRENT_ERA_BUILD (0: a current build);
 * moe for a model of experts; deep for a plan whose full context is
 * PLAN_CV_DEEP or more. */
int plan_accuracy_of_plan(const plan_hw *hw, const plan_memory *mem, const model_desc *model, const plan_params *p,
                          plan_accuracy *a, fc_err *err);
/* Whether a model routes its tokens to experts (a mixture of experts). */
bool plan_model_moe(const model_desc *d);

/* The corpus's own reproducibility: a row whose test (device, backend, model,
 * type, test, -fa, -ub, threads) another source measured too is "predicted" by the
 * geometric mean of the other sources' numbers. other[i] receives it, 0 where
 * no other source ran the test. What no speed model held out one source at a
 * time can beat: the sources disagree by this much on the very same test. */
void plan_cv_repeats(const plan_meas_set *s, double *other);

/* What `calibrate --cross-validate` reports: the constants in use, a fit to
 * everything from the prior (in-sample), then leave-one-source-out and
 * leave-one-family-out fits from the prior (a held-out group must not have
 * shaped the constants that predict it); then, over the rows another source
 * repeats, the other sources' numbers (PLAN_CV_REPEAT) beside the
 * leave-one-source-out predictions of the same rows (PLAN_CV_REPEAT_LOSO). */
enum plan_cv_run { PLAN_CV_IN_USE = 0, PLAN_CV_IN_SAMPLE, PLAN_CV_LOSO, PLAN_CV_LOFO, PLAN_CV_REPEAT,
                   PLAN_CV_REPEAT_LOSO, PLAN_CV_RUNS };
typedef struct plan_cv_report {
    plan_cv_stats st[PLAN_CV_RUNS];
    double *loso, *lofo;   /* per measurement of s: its out-of-sample predictions */
    double *repeat;        /* per measurement: the other sources' number for its test (plan_cv_repeats), 0: none */
} plan_cv_report;
int plan_cv_report_make(const plan_efficiency *in_use, const plan_meas_set *s, plan_cv_report *r, fc_err *err);
void plan_cv_report_free(plan_cv_report *r);

typedef struct plan_fit_stats {
    int n;
    double median_abs_err, max_abs_err;   /* |pred/meas - 1| */
} plan_fit_stats;

plan_fit_stats plan_fit_evaluate(const plan_meas_set *s, const plan_efficiency *e);
/* Rows in which a tensor type must be the main one (most weight elements), per
 * GPU backend, before it gets its own rate: fitted to a few rows, or to rows where
 * it is a minority, a per-type GPU prefill rate became a free knob (Vulkan q5_K
 * 0.005, q2_K 4.6 of the FP16 peak on 632 rows). Rows of the rate's phase: a
 * prefill rate is measured by prompts, not by the same file's decode rows
 * (ROCm's Q8_0 had 3 prefill rows and 1 decode row, its BF16 2 and 2). */
#define PLAN_FIT_TYPE_MIN_ROWS 4
/* Refits the constants of the backends and engines present in s, in place. */
int plan_calibrate(plan_efficiency *e, const plan_meas_set *s, plan_fit_stats *before, plan_fit_stats *after,
                   fc_err *err);


/* ---- speed of a plan, and the choice ------------------------------------- */

#define PLAN_TEST_PP 512           /* llama-bench's default tests: pp512 ... */
#define PLAN_TEST_TG 128           /* ... and tg128 */

/* Builds the speed setup of a plan: host CPU is device 0, GPU g is 1 + g. */
int plan_speed_from_plan(plan_speed_setup *s, const model_desc *m, const plan_hw *hw, const plan_memory *mem,
                         const plan_params *p, fc_err *err);

typedef struct plan_speed_result {
    double pp512, tg128;           /* from an empty context */
    int tg_bound;                  /* enum plan_bound: what bounds tg128 */
    int numa;                      /* enum plan_numa: the host's NUMA placement these speeds assume */
    double pp_depth, tg_depth;     /* pp512 / tg128 after `depth` cached tokens */
    uint32_t depth;
    /* PLAN_PAGED: mapped weights that do not stay in RAM are read from storage
     * again, paged_bytes per decoded token at storage_gbs (the speeds above
     * include that wait); storage_assumed: PLAN_DEFAULT_STORAGE_GBS, no
     * measurement. 0 when nothing pages. */
    double paged_bytes, storage_gbs;
    bool storage_assumed;
    /* The host CPU's threads meet at a barrier per graph node, each costing one
     * hand-over per thread (planner/speed.c layer_us), so fewer threads than its
     * cores can decode faster: dec_threads of threads would decode tg128 at
     * tg128_dec_threads (llama.cpp's -t, with -tb keeping every core for the
     * prompt). 0 when the default decodes within PLAN_DEC_THREADS_GAIN of it. */
    int dec_threads, threads;
    double tg128_dec_threads;
} plan_speed_result;
/* The share by which fewer decode threads must beat llama.cpp's default (a
 * thread per core) to be named: below it the difference is within the speed
 * model's own error on CPUs (docs/speed-model.md). */
#define PLAN_DEC_THREADS_GAIN 0.10

/* The depth of "the context full": tg128's last token sees n_ctx cells. */
uint32_t plan_full_depth(const plan_params *p);

/* The disk a paged host reads when the probe measured none (catalog CPU
 * platforms, a quick profile): a PCIe 3.0 x4 NVMe SSD's sequential read,
 * 3.5 GB/s (Samsung 970 EVO Plus datasheet: up to 3,500 MB/s). Page faults
 * through a mapping read less than the sequential figure, so a speed
 * computed with it stays a ceiling. */
#define PLAN_DEFAULT_STORAGE_GBS 3.5

int plan_speed_predict(const model_desc *m, const plan_hw *hw, const plan_memory *mem, const plan_params *p,
                       const plan_efficiency *e, uint32_t depth, plan_speed_result *r, fc_err *err);
/* What a paged host (PLAN_PAGED) reads from storage per token, into r's
 * paged_bytes and storage fields (plan_speed_predict fills them too). */
void plan_speed_paged_read(const plan_speed_setup *s, const plan_hw *hw, const plan_memory *mem, plan_speed_result *r);
/* tps of a test of n_prompt + n_gen tokens on a paged host (r from
 * plan_speed_predict or plan_speed_paged_read: paged_bytes > 0) with the
 * storage reads added; tps unchanged when nothing pages. */
double plan_speed_paged_tps(const plan_speed_result *r, const plan_memory *mem, uint32_t n_ubatch, int n_prompt,
                            int n_gen, double tps);

/* Quality loss of a llama.cpp file type relative to F16 (data/quality.csv,
 * planner/quality.c): perplexity increase in percent and KL divergence, -1
 * where not published. The model's family (data/quality_families.csv, by
 * name; hp NULL: the reference family) gives them; a type its family has no
 * figures for comes from the family it borrows from, scaled to it (scale:
 * the factor, 1 = as measured); family names the models measured and
 * borrowed says they are not of the model's family. FC_EINPUT if no family
 * in the chain publishes the type. */
typedef struct plan_quality_info {
    double ppl_pct, kld;
    char family[32];               /* the family the figures were measured on */
    char model_family[32];         /* the planned model's family */
    bool borrowed;
    double scale;
} plan_quality_info;
int plan_quality(const model_hparams *hp, const char *ftype, plan_quality_info *q);

/* The decode speed a recommendation must reach unless --min-tps says
 * otherwise: about twice a fast reader's pace. People read 238 words a
 * minute on average (Brysbaert 2019, J. Memory and Language 109:104047),
 * about 5 tokens/s at 1.3 tokens a word; below 10 t/s a chat visibly
 * stalls. --min-tps 0 turns the floor off. */
#define PLAN_DEFAULT_MIN_TPS 10.0

enum plan_where { PLAN_ON_GPU = 0, PLAN_ON_GPU_EXPS_CPU, PLAN_ON_SPLIT, PLAN_ON_CPU, PLAN_ON_NONE };
const char *plan_where_name(int where);

/* Where a model fits on hw, fastest placement first: all on the GPUs; MoE
 * experts in RAM; the most layers the GPUs hold (each card its own VRAM);
 * the CPU. Sets p->n_gpu_layers / exps_on_host / n_cpu_moe and m to that placement. */
int plan_place(const model_desc *d, const plan_hw *hw, plan_params *p, plan_memory *m);

#define PLAN_CHOICE_MAX 40
#define PLAN_MIN_CTX 512           /* the recommendation never shrinks the context below this */
#define PLAN_WHY_LEN 160

typedef struct plan_choice_row {
    char quant[16];
    uint64_t file_bytes;
    int where;                     /* enum plan_where */
    plan_params params;            /* the placement that fits: n_gpu_layers, exps_on_host, n_cpu_moe */
    uint32_t gpu_layers[PLAN_MAX_DEVICES]; /* layers per GPU (llama.cpp -ts) */
    int n_gpu;
    bool has_speed;                /* false: a device of the placement has no measured bandwidth */
    plan_speed_result speed;
    double ppl_pct, kld;           /* -1 = not published */
    char quality_from[32];         /* the family the quality figures were measured on */
    bool quality_borrowed;         /* ... which is not this model's */
    double quality_scale;          /* borrowed figures scaled to this model's family by this; 1 = as measured */
    bool native;                   /* the format the model is published in */
    bool requant;                  /* re-quantized from a native format: never better, not chosen */
    char why[PLAN_WHY_LEN];        /* one line: why this row is or is not the choice */
} plan_choice_row;

typedef struct plan_choice {
    plan_choice_row row[PLAN_CHOICE_MAX];
    int n_row;
    int best;                      /* index of the recommendation, -1 if none */
    int runner_up;                 /* the next best by the same objective, -1 if none */
    int fastest;                   /* the fastest row that fits and may be chosen (not a re-quantization), -1: none */
    uint32_t n_ctx;                /* the context the table was made for */
    double min_tps;                /* the floor the choice used */
    char reason[256];
    char quality_family[32];       /* the model's family in data/quality_families.csv */
    char quality_note[PLAN_WHY_LEN * 2]; /* where the quality figures come from, when not all the model's family's */
} plan_choice;

/* Every quantization of `model` on hw at p's context (shrunk by halves down
 * to PLAN_MIN_CTX while nothing fits). Each row is placed the fastest way it
 * fits: all on the GPUs, experts of the fewest layers in RAM, the most
 * layers the GPUs hold (each card its own VRAM), the CPU. The objective:
 * the best quality whose decode (tg128, context full) reaches min_tps;
 * quality losses under 0.1% perplexity count as equal and the faster wins.
 * Decode is tg128 from an empty context, as llama-bench reports it.
 * A model published in a native format (gpt-oss: MXFP4) is recommended in
 * it, never re-quantized. Nothing reaching the floor is no recommendation:
 * the reason names the fastest and its speed. Each row's why says why. */
int plan_choose(plan_choice *c, const model_desc *model, const plan_hw *hw, const plan_params *p, double min_tps,
                const plan_efficiency *e, fc_err *err);

/* ---- the commands ---------------------------------------------------------- */

#define PLAN_FILE_MAX 1200
#define PLAN_CMD_MAX 2048

/* The GGUF file llama.cpp would load for `model` (as the user named it in
 * spec) at file type quant: the file given when it is that type; else a file
 * name to download or make with llama-quantize, in the same folder as a GGUF
 * given ("SmolLM2-135M-Instruct.Q8_0.gguf" for "…/SmolLM2-135M-Instruct.Q4_1.gguf"),
 * from the model's name for a config.json or catalog entry
 * ("Mistral-7B-v0.3-Q8_0.gguf"); for ollama:NAME:TAG at its own type, the
 * blob its manifest names (model->file). *exists says which. */
void plan_model_file(const model_desc *model, const char *spec, const char *quant, char *buf, size_t cap,
                     bool *exists);
/* llama-server's command line for a placement (p: its -ngl, -c, -ctk/-ctv,
 * -fa, -ub, -np, expert overrides; gpu_layers: layers per GPU, or the
 * user's -ts when given; numa, an enum plan_numa on host: numactl's binding
 * and the node's threads, or --numa distribute) and ollama's parameters.
 * file is shell-quoted. */
void plan_command_line(const plan_params *p, const uint32_t *gpu_layers, int n_gpu, const plan_device *host, int numa,
                       const char *file, char *llama, size_t llama_cap, char *ollama, size_t ollama_cap);

/* ---- one plan: the request every verb makes ---------------------------------
 * plan, plan --hw all, the bare main job and report each fill one request and
 * only render the result (reports/). Loading the model (model_load) and
 * resolving the hardware (plan_hw_resolve) happen once, before. */

enum plan_want {
    PLAN_WANT_CHOICE = 1 << 0, /* every quantization and the recommendation */
    PLAN_WANT_SWEEP = 1 << 1,  /* pp512 / tg128 against context depth */
};

#define PLAN_SWEEP_MAX 16          /* depths 0, 512, 1024, ... */
#define PLAN_NOTES_MAX 8
#define PLAN_NOTE_LEN 256

typedef struct plan_request {
    const model_desc *model;       /* the model as given; not owned */
    const char *model_spec;        /* what the user named it: the command's file */
    const char *quant;             /* --quant asked, NULL = the model's own types */
    const plan_hw *hw;             /* resolved hardware; not owned */
    plan_params params;
    double min_tps;                /* decode the recommendation must reach */
    unsigned want;                 /* enum plan_want */
    const plan_efficiency *eff;    /* NULL: built-in constants + calibration file */
    bool set_backend;              /* --backend given: every GPU runs `backend` (enum plan_backend;  */
    int backend;                   /* PLAN_CPU: no layers on GPUs); else each device's own default */
    const plan_bench_test *bench;  /* --bench: llama-bench tests to predict; NULL/0: none */
    int n_bench;
    /* several hosts (docs/rpc.md): hw is unused, the planner resolves these */
    const char *cluster;           /* --hw 'a=...;b=...'; NULL: one machine */
    const char *link;              /* --link between them; NULL: 1gbe */
    int n_prompt, n_gen;           /* the llama-bench tests a cluster's speed is for; 0: pp512, tg128 */
} plan_request;

struct plan_cluster_plan;

/* Speculative decoding with a draft model (llama-server -md). Leviathan,
 * Kalman and Matias 2023, "Fast Inference from Transformers via Speculative
 * Decoding" (ICML, arXiv:2211.17192), eq. 1: with acceptance rate a and k
 * drafted tokens a step yields E = (1 - a^(k+1)) / (1 - a) tokens and costs k
 * draft decodes plus the target's pass over k + 1 tokens: one decode's time
 * plus what the speed model's batched cost adds from 1 to k + 1 tokens. tokens/s = E / (k * draft_s + verify_s[k]);
 * speed-up = that x target_s. All from an empty context, as tg128. */
#define PLAN_SPEC_N_ACCEPT 5       /* acceptance 0.5, 0.6, ... 0.9 */
#define PLAN_SPEC_N_DRAFT 5        /* k = 1, 2, 3 (llama-server's --draft-max default), 4, 8 */
typedef struct plan_spec {
    double target_s, draft_s;                  /* seconds per decoded token */
    uint32_t n_draft[PLAN_SPEC_N_DRAFT];
    double verify_s[PLAN_SPEC_N_DRAFT];        /* the target over n_draft + 1 tokens */
    double accept[PLAN_SPEC_N_ACCEPT];
    double tps[PLAN_SPEC_N_ACCEPT][PLAN_SPEC_N_DRAFT];
    double speedup[PLAN_SPEC_N_ACCEPT][PLAN_SPEC_N_DRAFT];
} plan_spec;
/* The table for target on its plan (mem, p) and p->extras->draft. */
int plan_spec_predict(const model_desc *target, const plan_hw *hw, const plan_memory *mem, const plan_params *p,
                      const plan_efficiency *e, plan_spec *out, fc_err *err);

/* Apple's GPU may wire only recommendedMaxWorkingSetSize of RAM by default;
 * `sudo sysctl iogpu.wired_limit_mb=N` raises it (macOS 14+). The N a plan
 * needs: the GPU's total plus the tight margin, in MiB rounded up; 0 when the
 * plan fits already, or cannot fit even so: N never exceeds RAM less what
 * the host part of the plan keeps resident and PLAN_MACOS_RESERVE for macOS. */
#define PLAN_MACOS_RESERVE (4ull << 30)
/* A device is "tight", not "fits", with less than this left (llama.cpp's --fit leaves 1 GiB). */
#define PLAN_TIGHT_MARGIN_MAX (1ull << 30)
uint32_t plan_wired_limit_mb(const plan_hw *hw, const plan_memory *m, int gpu);

typedef struct plan_result {
    const model_desc *model;       /* the request's model (borrowed) */
    plan_hw hw;
    plan_params params;            /* the request's, validated */
    plan_memory mem;               /* the requested placement */
    bool has_speed;                /* false: speed_note says why */
    plan_speed_result speed;
    char speed_note[FC_ERR_MSG_MAX];
    plan_speed_result sweep[PLAN_SWEEP_MAX];
    int n_sweep;
    char file[PLAN_FILE_MAX];      /* the file the requested plan runs */
    bool file_exists;
    char llama_cmd[PLAN_CMD_MAX];  /* the requested placement as a command */
    plan_choice *choice;           /* PLAN_WANT_CHOICE with speed; else NULL */
    char rec_file[PLAN_FILE_MAX];  /* the recommendation's file and commands */
    bool rec_file_exists;
    char rec_llama[PLAN_CMD_MAX], rec_ollama[256];
    char note[PLAN_NOTES_MAX][PLAN_NOTE_LEN]; /* warnings a user should read */
    int n_note;
    char verdict_advice[PLAN_NOTE_LEN]; /* what to change when the requested placement does not fit, else "" */
    plan_bench_test bench[PLAN_BENCH_MAX]; /* the request's --bench tests, predicted for the requested placement */
    double bench_tps[PLAN_BENCH_MAX];      /* 0: the test does not fit at its context */
    uint32_t bench_ctx[PLAN_BENCH_MAX];    /* the context llama-bench gives it: n_prompt + n_gen + n_depth */
    int n_bench;
    struct plan_cluster_plan *cluster; /* a request with a cluster: the whole plan is here (the rest is empty) */
    bool has_spec;                 /* a draft model was given and both speeds are known */
    plan_spec spec;
    uint32_t wired_limit_mb[PLAN_MAX_DEVICES]; /* per GPU: the sysctl that makes it fit, 0 = none */
    plan_accuracy accuracy;        /* with a speed: the held-out error of the set that runs most of it */
} plan_result;

/* Fills res (FC_EINPUT for a request the hardware cannot take, e.g. more
 * -ts values than GPUs); a request with a cluster fills res->cluster
 * (plan_cluster_make). Free with plan_result_free. */
int plan_make(const plan_request *rq, plan_result *res, fc_err *err);
/* --backend: every GPU of hw runs it. FC_EINPUT, naming what the GPU does run,
 * where one cannot (a Radeon has no Metal), or where there is no GPU for a
 * GPU backend; the CPU backend runs anywhere. cpu_way_out: the message names
 * --backend cpu as the other choice (one machine; a cluster refuses it). */
int plan_hw_use_backend(plan_hw *hw, int backend, bool cpu_way_out, fc_err *err);
void plan_result_free(plan_result *res);

/* `fitcheck models --local` (planner/local.c): the GGUF models found on this
 * machine (model_stores_scan; models_dir NULL = the stores only), each planned
 * with plan_make's defaults and PLAN_DEFAULT_MIN_TPS on this machine's
 * hardware. *out malloc'd, n entries. */
typedef struct plan_local_model {
    model_found found;
    bool planned;                     /* false: error says why */
    int verdict;                      /* enum plan_verdict, when planned */
    double tg128;                     /* predicted decode t/s; 0 = not predicted */
    plan_accuracy accuracy;           /* the plan's, when tg128 was predicted */
    char error[FC_ERR_MSG_MAX];
} plan_local_model;
int plan_local_make(const char *models_dir, plan_local_model **out, size_t *n, fc_err *err);

/* --hw all: the request's model on every catalog device alone (GPUs with this
 * machine's RAM as host), ranked by where it fits, then decode speed. */
typedef struct plan_rank_row {
    char id[64];
    double mem_gib;
    double price_usd;              /* launch price, 0 = none published */
    bool below_floor;              /* fits, but decodes under the request's min_tps */
    bool prefill_unvalidated;      /* plan_prefill_unvalidated: its pp512 is likely too high */
    plan_accuracy accuracy;        /* plan_accuracy_of_plan, when it fits */
    int where;                     /* enum plan_where */
    int backend;                   /* enum plan_backend its GPU runs (its own, or --backend); CPU for a CPU platform */
    plan_params params;            /* the placement found */
    plan_speed_result speed;       /* valid when where != PLAN_ON_NONE */
} plan_rank_row;

typedef struct plan_rank {
    plan_rank_row *row;
    size_t n;
} plan_rank;

/* rq->hw is ignored. Ranked: devices reaching rq->min_tps first, by where the
 * model fits, then decode speed; budget_usd > 0 keeps only devices whose
 * launch price is published and within it. Free with plan_rank_free. */
int plan_rank_hardware(const plan_request *rq, double budget_usd, plan_rank *out, fc_err *err);
void plan_rank_free(plan_rank *r);


/* ---- several machines: llama.cpp's RPC backend (planner/cluster*.c) --------
 * --hw 'a=rtx-4090;b=apple-m2-ultra:192;c=./pc2.json': the first host runs
 * llama-server, every other one an rpc-server whose devices llama.cpp puts
 * first in its device list (in --rpc order), before the main host's own GPUs;
 * token_embd and the host buffers stay on the main host (docs/rpc.md).
 * --link: a named link (1gbe, 2.5gbe, 10gbe, 25gbe, 40gbe, tb4), a rate and
 * round trip ("100mbit:2ms"), or a profile with a measured link (probe --peer);
 * it is the link from the main host to each other host. */

#define PLAN_MAX_HOSTS 8
#define PLAN_HOST_NAME_MAX 64
#define PLAN_RPC_PORT 50052        /* rpc-server's default port (tools/rpc/rpc-server.cpp) */

typedef struct plan_link {
    char name[64];
    double gbs;                    /* TCP goodput per direction, GB/s (1e9) */
    double rtt_us;                 /* round trip of a small message */
    char source[200];
} plan_link;

/* A named link, a "RATE:RTT" pair or a profile's measured link into *l. */
int plan_link_parse(plan_link *l, const char *spec, fc_err *err);

typedef struct plan_cluster {
    int n_host;
    char host_name[PLAN_MAX_HOSTS][PLAN_HOST_NAME_MAX];
    char host_spec[PLAN_MAX_HOSTS][256];
    plan_hw host_hw[PLAN_MAX_HOSTS];  /* each host's own devices, resolved */
    plan_link link;
    /* the devices as llama.cpp on the main host sees them: its CPU as host,
     * the RPC devices (hosts 1.. in order), then its own GPUs */
    plan_hw hw;
    int dev_host[PLAN_MAX_DEVICES];  /* host of hw.gpu[i] */
} plan_cluster;

/* True when an --hw spec names hosts ("a=...;b=..."). */
bool plan_cluster_spec_is(const char *spec);
/* Splits the spec into hosts (names and their --hw specs), no resolving:
 * what the fuzz target drives. */
int plan_cluster_parse(plan_cluster *c, const char *spec, fc_err *err);
/* Parses, resolves every host's hardware (plan_hw_resolve) and flattens. */
int plan_cluster_resolve(plan_cluster *c, const char *spec, const char *link, fc_err *err);
/* The cluster of c's first k hosts (k = 1: the main host alone), flattened. */
int plan_cluster_first_hosts(const plan_cluster *c, int k, plan_cluster *out, fc_err *err);
/* --backend on several hosts: every host's GPUs run it (plan_hw_use_backend;
 * a host without a GPU still serves its CPU); cpu is refused, each rpc-server
 * serving the GPUs it has. */
int plan_cluster_use_backend(plan_cluster *c, int backend, fc_err *err);

/* Network time of one llama_decode of n_tok tokens with kv_cells cells in
 * view: per run of layers on one remote host a round trip, the activations
 * in and out (or the logits of n_out tokens from the host with the output),
 * and for a new graph its description (prefill). */
typedef struct plan_net_time {
    double rtt_s, bytes_s, graph_s;   /* the three terms */
    double total_s;
    int n_trips;                      /* round trips per decode call */
    double bytes;                     /* bytes over the links per call */
} plan_net_time;

typedef struct plan_cluster_result {
    plan_memory mem;                  /* per device, as plan_memory_compute */
    uint64_t host_total[PLAN_MAX_HOSTS], host_capacity[PLAN_MAX_HOSTS];
    int host_verdict[PLAN_MAX_HOSTS];
    uint32_t layers[PLAN_MAX_DEVICES];/* -ts: layers per device */
    plan_speed_setup *setup;          /* owned; the compute half of the speed model */
    double tg_s_compute, pp_s_compute;/* per token / per prompt, without the network */
    plan_net_time net_tg, net_pp;     /* per token; per prompt of PLAN_TEST_PP */
    double tg_tps, pp_tps;            /* llama-bench tg128 / pp512 with the network */
    double load_s, load_cached_s;     /* weights over the links: first load; later loads with rpc-server -c */
    uint64_t remote_bytes, remote_cached_bytes;
    const char *dominant;             /* "compute", "round trips" or "transfers" (decode) */
} plan_cluster_result;

/* Memory, speed and load time of model m on the cluster with params p (its
 * tensor_split: layers per device, all 0 = llama.cpp's default: proportional
 * to free memory). n_prompt / n_gen / n_depth as llama-bench's tests (-p, -n, -d). */
int plan_cluster_eval(const plan_cluster *c, const model_desc *m, const plan_params *p, const plan_efficiency *e,
                      int n_prompt, int n_gen, int n_depth, plan_cluster_result *r, fc_err *err);
void plan_cluster_result_free(plan_cluster_result *r);
/* Network time of one decode call (see plan_net_time). */
plan_net_time plan_cluster_net(const plan_cluster *c, const model_desc *m, const plan_memory *mem, uint32_t n_tok,
                               uint32_t kv_cells, uint32_t n_out, bool new_graph);
/* The -ts llama.cpp's default gives, the fastest split that fits (searched
 * over whole layers; best_fits false when none fits). */
typedef struct plan_cluster_splits {
    plan_cluster_result dflt, best;
    bool best_fits;
} plan_cluster_splits;
int plan_cluster_split(const plan_cluster *c, const model_desc *m, const plan_params *p, const plan_efficiency *e,
                       int n_prompt, int n_gen, plan_cluster_splits *out, fc_err *err);
/* The rpc-server line for host h (h >= 1) and llama-server's on the main host. */
#define PLAN_RPC_CMD_MAX 256
/* numa: an enum plan_numa on host h's CPU when it serves as the device (no
 * GPU): PLAN_NUMA_PIN binds the server to the node with numactl */
void plan_cluster_rpc_cmd(const plan_cluster *c, int h, int numa, char *buf, size_t cap);
void plan_cluster_llama_cmd(const plan_cluster *c, const plan_params *p, const uint32_t *layers, int numa,
                            const char *file, char *buf, size_t cap);

/* The whole plan across hosts, as plan_make returns it for a request with a
 * cluster: the hosts and link, llama.cpp's default split and the fastest
 * that fits, the split asked for (-ts or -ngl given), and the commands for
 * the split shown (the one asked for, else the fastest that fits, else the
 * default). */
/* Does each host pay: the model on the first k hosts, with llama.cpp's
 * split by free memory (the fastest split that fits when that does not),
 * against the fastest plan on fewer hosts that fits. For decode: the
 * compute time per token host k saves and the round trips it adds, and the
 * link goodput below which it costs more (round trips, activations) than it
 * saves: break_even_gbs, 0 when any link pays (it adds no transfers), -1
 * when none does (it saves nothing, or its round trips alone take more). */
typedef struct plan_cluster_step {
    bool fits;
    bool fastest;                     /* the fastest split: llama.cpp's default does not fit */
    double tg_tps, pp_tps;            /* 0 when nothing fits */
    bool compared;                    /* k >= 2 and fewer hosts have a figure: the fields below are set */
    bool first_fit;                   /* the model fits on no fewer hosts: it pays by making it fit */
    bool pays;                        /* faster decode than the fastest on fewer hosts, or first_fit */
    double base_tg_tps;               /* that fastest decode on fewer hosts */
    double saved_s, trips_s;          /* both fit: decode compute saved, round trips added, per token */
    double break_even_gbs;
    char no_speed[FC_ERR_MSG_MAX];    /* k < n: why these hosts have no plan ("" = they have one) */
} plan_cluster_step;

typedef struct plan_cluster_plan {
    char model_name[PLAN_FILE_MAX];   /* the model as the user named it */
    plan_cluster cluster;
    int n_prompt, n_gen;
    plan_cluster_splits splits;
    bool has_requested;
    plan_cluster_result requested;
    char file[PLAN_FILE_MAX];         /* the GGUF llama-server loads */
    bool file_exists;
    char llama_cmd[PLAN_CMD_MAX];     /* on the main host */
    char rpc_cmd[PLAN_MAX_HOSTS][PLAN_RPC_CMD_MAX]; /* on host h >= 1 */
    /* enum plan_numa per host for the split shown (the main host's CPU, a host's CPU
     * serving as its device; PLAN_NUMA_ONE otherwise), and plan_numa_note's line for it */
    int numa[PLAN_MAX_HOSTS];
    char numa_note[PLAN_MAX_HOSTS][PLAN_NOTE_LEN];
    plan_cluster_step step[PLAN_MAX_HOSTS]; /* step[k - 1]: the first k hosts */
} plan_cluster_plan;

/* plan_make's half for rq->cluster: resolves the hosts and link, checks -ts
 * against the devices, and fills *out. Free with plan_cluster_plan_free. */
int plan_cluster_make(const plan_request *rq, plan_cluster_plan *out, fc_err *err);
/* rq's --bench tests (llama-bench with --rpc) on cp's hosts and link, into r's
 * bench arrays as plan_make's one-machine tests: the split llama-bench runs
 * with the same flags (-ts as asked, else llama.cpp's default), each test at
 * the context llama-bench gives it, 0 t/s where it does not fit. */
int plan_cluster_bench(const plan_cluster_plan *cp, const plan_request *rq, plan_result *r, fc_err *err);
void plan_cluster_plan_free(plan_cluster_plan *p);

#endif

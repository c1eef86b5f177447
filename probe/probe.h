/* probe/: measures this machine — topology and capacity, memory bandwidth and
 * latency per level, compute, storage, GPUs and the bus — into a machine
 * profile that the planner, the reports and other machines read. It measures
 * and never prints: reports/ renders a profile (rep_probe_print), the CLI
 * draws progress through probe_options.progress_fn.
 *
 * The profile is plain data; probe_profile_save/load convert it to a
 * versioned JSON document (docs/profile.md). Every figure that can come from
 * more than one place records its source, because virtual machines lie. */
#ifndef FC_PROBE_H
#define FC_PROBE_H

#include "common/fc.h"

#define PROBE_SCHEMA_VERSION 1
#define PROBE_MAX_CACHES 8
#define PROBE_MAX_SWEEP 64
#define PROBE_MAX_THREADS 256
#define PROBE_MAX_GPUS 16
#define PROBE_MAX_NUMA 64
#define PROBE_SOURCE_MAX 32
#define PROBE_MAX_NVME 8
#define PROBE_NOTE_MAX 512

typedef struct probe_cache {
    int level;                       /* 1, 2, 3, 4 */
    char kind[16];                   /* "data", "unified", "instruction" */
    uint64_t size_bytes;             /* per instance */
    int shared_by_cores;             /* cores sharing one instance */
    char source[PROBE_SOURCE_MAX];   /* "sysfs", "hwloc", "cpuid" */
    double read_gbs;                 /* measured, all cores, 0 if not measured */
    double latency_ns;               /* measured, 0 if not measured */
} probe_cache;

typedef struct probe_point {
    double x;     /* working-set bytes, or thread count */
    double gbs;   /* GB/s, 1e9 bytes */
} probe_point;

typedef struct probe_link {
    int gen_max, width_max;          /* capability */
    int gen_cur, width_cur;          /* status when read (idle links downshift) */
    int gen_loaded, width_loaded;    /* status read during a transfer, 0 if not read */
    double theoretical_gbs;          /* per direction, after encoding, at capability */
    char source[PROBE_SOURCE_MAX];   /* "libpci", "sysfs" */
} probe_link;

typedef struct probe_gpu {
    char name[128];
    char api[16];                    /* "cuda", "opencl" */
    char vendor[64];
    char pci_bus_id[32];             /* "0000:65:00.0", empty when unknown */
    int numa_node;                   /* -1 when unknown */
    int cc_major, cc_minor;          /* CUDA compute capability */
    int compute_units;               /* SMs / CUs */
    bool unified_memory;             /* shares host RAM: do not count it twice */
    uint64_t vram_total, vram_free;  /* free: read with our own context current */
    uint64_t max_alloc;              /* largest single allocation (OpenCL), 0 = no limit known */
    uint64_t l2_bytes;
    int mem_bus_width_bits;
    double mem_clock_mhz;
    double theoretical_gbs;          /* 2 x clock x width / 8 */
    /* measured; 0 = not measured. copy_gbs counts each byte once (as
     * nvbandwidth does): the memory moves twice that. */
    double read_gbs, copy_gbs;
    double h2d_pinned_gbs, d2h_pinned_gbs, h2d_pageable_gbs, d2h_pageable_gbs;
    double launch_us;                /* host time per launch, queued back to back */
    double fp16_tflops, bf16_tflops, fp32_tflops;
    probe_link link;
    char note[160];                  /* why something was not measured */
} probe_gpu;

typedef struct probe_nvme {
    char pci_bus_id[32];
    char name[96];
    probe_link link;
} probe_nvme;

/* A network link to another machine, measured by `fitcheck probe --peer`
 * against `fitcheck serve` there (net/net.h). Throughput is TCP goodput,
 * what an application moves: about 94% of an Ethernet link's line rate. */
#define PROBE_MAX_NET_LINKS 8
typedef struct probe_net_link {
    char peer[128];                  /* HOST:PORT as given */
    char created[32];                /* ISO 8601 UTC */
    double rtt_median_us, rtt_p99_us, rtt_min_us; /* small-message round trips */
    int n_pings;
    double up_gbs, down_gbs;         /* this machine -> peer, peer -> this machine, GB/s (1e9) */
    uint64_t up_bytes, down_bytes;   /* what the throughput figures moved */
} probe_net_link;

/* Int8 multiply-adds per FP32 one, per instruction of one width, of the dot
 * products llama.cpp's CPU kernels use for quantized weights against Q8
 * activations (ggml-cpu arch/x86/quants.c mul_sum_us8_pairs_float: vpdpbusd
 * with AVX-VNNI or AVX512-VNNI, else vpmaddubsw + vpmaddwd; arch/arm/quants.c:
 * SMMLA with i8mm, SDOT with dotprod). An FP32 FMA does 4 per 128 bits;
 * vpmaddubsw 16 products in pairs that vpmaddwd must then add, 8 per
 * instruction; vpdpbusd and SDOT 16; SMMLA, a 2x8 by 8x2 product, 32. */
#define PROBE_INT8_AVX2 2.0
#define PROBE_INT8_DOT 4.0  /* AVX-VNNI, AVX512-VNNI, Arm dotprod */
#define PROBE_INT8_I8MM 8.0
/* The instructions behind such a figure, in words ("AVX2, no VNNI"); "not known" for 0. */
const char *probe_int8_name(double per_fp32);

typedef struct probe_profile {
    int schema_version;
    char created[32];                /* ISO 8601 UTC */
    char hostname[64];
    char cpu_model[128];
    char isa[32];                    /* best SIMD level used: "avx512", "avx2", "sse2", "scalar" */
    double int8_per_fp32;            /* int8 multiply-adds per FP32 one of llama.cpp's quantized kernels here
                                      * (PROBE_INT8_*, probe/isa.c); 0 = not known */
    bool quick;                      /* measured with --quick */

    /* topology */
    int n_packages, n_cores, n_threads, n_numa;
    char topo_source[PROBE_SOURCE_MAX];
    char topo_note[PROBE_NOTE_MAX];  /* where sources disagreed and which one was kept */
    probe_cache caches[PROBE_MAX_CACHES];
    int n_caches;

    /* capacity */
    uint64_t ram_total, ram_available;
    char ram_source[PROBE_SOURCE_MAX];
    uint64_t numa_mem[PROBE_MAX_NUMA];
    int numa_cores[PROBE_MAX_NUMA];  /* cores of each node; 0 = not known (a profile from before they were counted) */
    int numa_ids[PROBE_MAX_NUMA];    /* each node's OS number (numactl's, a GPU's numa_node); all 0 = not recorded */
    uint64_t hugepage_bytes, hugepages_free;
    bool thp_enabled;
    uint64_t cgroup_mem_max;         /* 0 = no limit */
    double cgroup_cpus;              /* 0 = no limit */

    /* DRAM bandwidth (GB/s, 1e9 bytes) */
    /* best of the repetitions (STREAM's convention) and their median */
    double read_gbs, read_1t_gbs, write_gbs, copy_gbs, triad_gbs;
    double read_median_gbs, write_median_gbs, copy_median_gbs, triad_median_gbs;
    double numa_read_gbs[PROBE_MAX_NUMA];    /* all cores of one node reading its memory; 0 = not measured */
    double dram_theoretical_gbs;     /* 0 when unknown */
    char dram_theoretical_source[64];
    int threads_used;
    probe_point sweep[PROBE_MAX_SWEEP];      /* read GB/s vs working-set bytes */
    int n_sweep;
    probe_point scaling[PROBE_MAX_THREADS];  /* read GB/s vs threads */
    int n_scaling;
    double dram_latency_ns, dram_latency_hugepage_ns;

    /* compute */
    double sgemm_gflops_1t, sgemm_gflops_all;

    /* storage */
    char storage_path[512];
    double storage_read_gbs;
    bool storage_direct;             /* measured with O_DIRECT (page cache bypassed) */

    /* GPUs and bus */
    probe_gpu gpus[PROBE_MAX_GPUS];
    int n_gpus;
    probe_nvme nvme[PROBE_MAX_NVME];
    int n_nvme;
    char gpu_note[256];              /* "no NVIDIA driver (libcuda.so.1 not found)" ... */

    /* links to other machines (probe --peer), one per peer, latest kept */
    probe_net_link net_links[PROBE_MAX_NET_LINKS];
    int n_net_links;
    /* the conditions measured under (quiet.c) */
    double load_avg;                 /* 1-minute load average when measuring began */
    double others_cpus;              /* CPUs other processes kept busy meanwhile */
    double steal_frac;               /* share of CPU time the hypervisor stole meanwhile */
    double read_spread;              /* 1 - median/best of the read-bandwidth repeats */
    char busy[PROBE_NOTE_MAX];       /* why the figures are not trustworthy; "" = measured on a quiet machine */
} probe_profile;

/* Called between steps: what is being measured and the fraction done. */
typedef void (*probe_progress_fn)(const char *step, double frac);

typedef struct probe_options {
    bool quick;                      /* capacity and all-core read bandwidth only, < 2 s */
    bool progress;                   /* report steps through progress_fn */
    probe_progress_fn progress_fn;   /* the caller draws (cli uses rep_progress); probe/ never does */
    bool no_gpu;
    bool gpu_only;                   /* the GPUs and the bus only, no CPU figures (the GPU check) */
    int threads;                     /* 0 = one per core */
    const char *models_dir;          /* storage test location, default "." */
} probe_options;

/* Runs the probe. Never allocates more than half the available memory. */
int probe_run(probe_profile *p, const probe_options *opt, fc_err *err);

/* Finds and measures GPUs (CUDA driver API and OpenCL, both loaded with
 * dlopen) and the PCIe links of GPUs and NVMe drives. No driver is not an
 * error: p->gpu_note says why nothing was found. Called by probe_run. */
int probe_gpus(probe_profile *p, const probe_options *opt, fc_err *err);

/* Whether measurements taken under these conditions are trustworthy: false
 * when quiet; true with `why` saying what was busy (load average over the
 * CPUs used, other processes holding a quarter of the machine's CPUs, more
 * than 5% stolen by a hypervisor, read repeats more than 20% apart).
 * probe_run fills p->busy with it; a caller refuses to save such a profile
 * unless told to (fitcheck probe --force). */
bool probe_busy_judge(double load_avg, int cpus, double others_cpus, int machine_cpus, double steal_frac,
                      double spread, char *why, size_t cap);

/* DRAM read bandwidth now, measured as the profile's read_gbs is (the same
 * kernel, best of a few repetitions, over a DRAM-sized working set), on n_threads
 * threads pinned one per core (0: as many as probe_run uses): short probes
 * to check a measurement against in the same minute (`fitcheck run --bench`
 * runs one before and after each test), since a VM's bandwidth can swing by
 * half between minutes. Open allocates and touches the working set once
 * (512 MiB or 4x the last-level cache, held until close); each read then
 * takes a fraction of a second. */
typedef struct probe_bw probe_bw;
int probe_bw_open(probe_bw **out, int n_threads, fc_err *err);
double probe_bw_read(probe_bw *b); /* GB/s */
void probe_bw_close(probe_bw *b);

/* Bytes this process may still allocate now: MemAvailable, capped by the
 * cgroup's memory limit less its usage. 0 when unknown. */
uint64_t probe_available_ram(void);
/* RAM now: total, available (capped by the cgroup's memory.max less what the
 * cgroup uses) and that limit (0 = none). The one reader of free memory
 * that planning and running share. */
typedef struct probe_ram {
    uint64_t total, available, cgroup_max;
} probe_ram;
int probe_ram_now(probe_ram *r, fc_err *err);

/* Default profile location: $XDG_CACHE_HOME/fitcheck/machine.json. */
int probe_default_path(char *buf, size_t cap, fc_err *err);
int probe_profile_save(const probe_profile *p, const char *path, fc_err *err);
/* Creates the directory a profile will be saved in and checks it is
 * writable, so a probe fails before measuring rather than after. */
int probe_profile_prepare(const char *path, fc_err *err);
/* Refuses profiles of a newer schema or the wrong shape (FC_EINPUT). */
int probe_profile_load(probe_profile *p, const char *path, fc_err *err);
/* The same conversions on text, for profiles that travel inside other
 * documents. *out is malloc'ed. `where` names the text in messages. */
int probe_profile_to_json(const probe_profile *p, char **out, fc_err *err);
int probe_profile_from_json(probe_profile *p, const char *text, const char *where, fc_err *err);

/* The profile the planner works from: the saved one at probe_default_path(),
 * or, when there is none and run_quick_if_missing, a quick probe that is then
 * saved — unless the machine was busy (p->busy): then it serves this call only. A saved profile that cannot
 * be read is an error naming the file and the fix, not re-measured silently. */
int probe_profile_get(probe_profile *p, bool run_quick_if_missing, fc_err *err);

#endif

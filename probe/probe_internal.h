/* probe/ internals shared by its source files; not part of the public API
 * (that is probe/probe.h). One section per concept: topology, buffers, the
 * pinned worker pool, SIMD kernels, and one entry point per measurement. */
#ifndef FC_PROBE_INTERNAL_H
#define FC_PROBE_INTERNAL_H

#include "probe/probe.h"

#include <hwloc.h>
#include <pthread.h>

#define PROBE_HUGEPAGE_BYTES (2u << 20)  /* buffers are aligned to this so THP can back them */
#define PROBE_CACHE_LINE 64

/* ---- topology (topo.c) ------------------------------------------------
 * The hwloc topology is kept for pinning; NULL when hwloc failed, and then
 * threads are pinned to the CPUs of our affinity mask in order. */
typedef struct probe_topo {
    hwloc_topology_t topo;
    int n_cpus;                          /* CPUs we may run on (affinity mask) */
    int n_cores;                         /* entries in cpu_of_core */
    int cpu_of_core[PROBE_MAX_THREADS];  /* OS index of the first PU of core i */
    int numa_of_core[PROBE_MAX_THREADS]; /* logical NUMA node of core i, 0 if unknown */
} probe_topo;

/* Fills topology, caches and the CPU model; warnings go to p->topo_note. */
int probe_topo_init(probe_topo *t, probe_profile *p, fc_err *err);
void probe_topo_free(probe_topo *t);
/* Pins the calling thread to core i; more threads than cores wrap around. */
void probe_topo_pin(const probe_topo *t, int core);
/* Appends "; text" to a note, truncating rather than overflowing. */
void probe_note_add(char *note, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- measuring conditions (quiet.c) ------------------------------------ */
typedef struct probe_quiet_mark {
    bool have_stat;
    unsigned long long busy, steal, total; /* /proc/stat ticks, all CPUs */
    int n_cpus;                            /* CPUs /proc/stat lists */
    double wall, own;                      /* seconds: monotonic clock, this process's CPU time */
} probe_quiet_mark;
/* Load average now and the counters to compare against at the end. */
void probe_quiet_begin(probe_profile *p, probe_quiet_mark *m);
/* Fills p's conditions and p->busy (probe_busy_judge). */
void probe_quiet_end(probe_profile *p, const probe_quiet_mark *begin);

/* ---- capacity (capacity.c): RAM, huge pages, THP, cgroup limits ------- */
int probe_capacity(probe_profile *p, fc_err *err);
/* Bytes the probe may allocate: half of what is available, cgroup included. */
uint64_t probe_mem_budget(const probe_profile *p);

/* ---- buffers (buffer.c) ----------------------------------------------- */
typedef struct probe_buf {
    void *map;        /* what mmap returned */
    size_t map_bytes;
    float *data;      /* PROBE_HUGEPAGE_BYTES-aligned start */
    size_t bytes;
} probe_buf;

/* Maps bytes (rounded up to a 4 KiB multiple), asks for huge pages or
 * forbids them, and first-touches every page from the calling thread so the
 * memory lands on that thread's NUMA node. */
int probe_buf_alloc(probe_buf *b, size_t bytes, bool hugepages, fc_err *err);
void probe_buf_free(probe_buf *b);

/* ---- SIMD kernels (kernels.c) ------------------------------------------
 * n counts floats and must be a multiple of PROBE_KERNEL_BLOCK. */
#define PROBE_KERNEL_BLOCK 128  /* 8 independent 64-byte vectors per iteration */

typedef struct probe_kernels {
    const char *isa;  /* "avx512", "avx2", "sse2", "scalar" */
    float (*read)(const float *a, size_t n);
    void (*write)(float *a, size_t n, float v);                     /* non-temporal */
    void (*copy)(float *dst, const float *src, size_t n);           /* non-temporal */
    void (*triad)(float *a, const float *b, const float *c, float s, size_t n);
} probe_kernels;

/* The int8 multiply-adds per FP32 one of the dot products llama.cpp's quantized CPU kernels
 * use here (probe/isa.c); 0 = not known. */
double probe_int8_per_fp32(void);

/* The widest kernel set this CPU runs. */
const probe_kernels *probe_kernels_best(void);

/* ---- pinned worker pool (pool.c) ---------------------------------------
 * One thread per core, pinned, each owning a first-touched buffer. A run is
 * one barrier-synchronized repetition of a job on the active workers; its
 * time is from the earliest start to the latest end (the slowest thread,
 * as likwid-bench and STREAM count it). */
typedef struct probe_pool probe_pool;

typedef struct probe_worker {
    probe_pool *pool;
    int id;
    probe_buf buf;
    double t_start, t_end;
    double sink;       /* results the compiler must not delete */
    pthread_t thread;
    int status;        /* FC_OK, or why the buffer could not be had */
} probe_worker;

typedef void (*probe_job_fn)(probe_worker *w, void *arg);

struct probe_pool {
    const probe_topo *topo;
    int n;
    probe_worker *workers;
    size_t buf_bytes_each;
    /* Start-up gate: workers wait here until all exist, so a failed start
     * never leaves threads stuck in a barrier that cannot fill. */
    pthread_mutex_t gate_lock;
    pthread_cond_t gate_cond;
    int ready;
    bool go;
    pthread_barrier_t start, done;
    probe_job_fn job;
    void *arg;
    bool active[PROBE_MAX_THREADS];
    bool quit;
};

int probe_pool_start(probe_pool *pool, const probe_topo *t, int n, size_t buf_bytes, fc_err *err);
/* One repetition of job on the workers marked in active; returns seconds. */
double probe_pool_run(probe_pool *pool, const bool *active, probe_job_fn job, void *arg);
void probe_pool_stop(probe_pool *pool);

/* ---- measurements ----------------------------------------------------- */
typedef struct probe_step {
    const probe_options *opt;
    int done, total;  /* progress: steps finished of all planned */
} probe_step;
void probe_step_report(probe_step *s, const char *what);

int probe_bandwidth(probe_profile *p, probe_pool *pool, const probe_kernels *k, const probe_options *opt,
                    probe_step *st, fc_err *err);
/* All-buffer read bandwidth of the pool's first n threads, as probe_bandwidth
 * measures read_gbs, in fewer repetitions (probe_bw_read). */
double probe_bandwidth_read(probe_pool *pool, int n);
int probe_latency(probe_profile *p, probe_pool *pool, probe_step *st, fc_err *err);
int probe_sgemm(probe_profile *p, fc_err *err);
int probe_storage(probe_profile *p, const char *dir, fc_err *err);
/* Theoretical DRAM bandwidth from the SMBIOS memory-device records. */
void probe_dram_theoretical(probe_profile *p);

/* Best and median of n samples (sorts them). */
void probe_best_median(double *v, int n, double *best, double *median, bool higher_is_better);

#endif

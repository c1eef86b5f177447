/* probe_run: the order of the measurements and the memory they may use.
 * Capacity comes first (it sets the memory budget), then bandwidth and
 * latency on one pool of pinned threads, then SGEMM (OpenBLAS's own threads
 * would disturb bandwidth runs, so it goes after), storage and GPUs. */
#include "probe/probe_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The DRAM working set: large enough that no cache level holds a useful part,
 * including caches a VM hides. This VM's CPUID says 32 MiB of L3, yet copy
 * ran at cache speed up to 128 MiB and fell to DRAM speed only by 512 MiB,
 * so the floor is likwid-bench's customary 1 GB rather than 4x the claim. */
#define DRAM_SET_MIN_TOTAL (1ull << 30)
/* The same-minute probe (probe_bw_*) runs twice beside every benchmark test:
 * half that set, still several times this host's last-level cache (Sapphire
 * Rapids: 105 MB per socket, where the VM's CPUID says 32 MiB). */
#define DRAM_SET_NOW_TOTAL (512ull << 20)
#define DRAM_SET_LLC_MULTIPLE 4  /* STREAM's rule: arrays at least 4x the caches */
#define DRAM_SET_MIN_PER_THREAD (16ull << 20)
#define DRAM_SET_FLOOR (1ull << 20)  /* below this per thread there is no DRAM figure to be had */
#define STEPS_QUICK 4                /* topology, read, sgemm, GPUs */
#define STEPS_FULL 11                /* + write, copy, triad, scaling, sweep, cache latency, DRAM latency, sgemm, storage */

void probe_step_report(probe_step *s, const char *what) {
    if (s->opt->progress && s->opt->progress_fn)
        s->opt->progress_fn(what, s->total ? (double)s->done / s->total : 0);
    s->done++;
}

/* Bytes of the last-level cache across all its instances. */
static uint64_t llc_bytes(const probe_profile *p) {
    uint64_t best = 0;
    for (int i = 0; i < p->n_caches; i++) {
        const probe_cache *c = &p->caches[i];
        int share = c->shared_by_cores > 0 ? c->shared_by_cores : 1;
        uint64_t total = c->size_bytes * (uint64_t)((p->n_cores + share - 1) / share);
        if (strcmp(c->kind, "instruction") && total > best) best = total;
    }
    return best;
}

static int threads_choose(const probe_profile *p, const probe_options *opt) {
    if (opt->threads > 0) return opt->threads > PROBE_MAX_THREADS ? PROBE_MAX_THREADS : opt->threads;
    int n = p->n_cores;
    /* A container's CPU quota is what we may use, not the host's cores. */
    if (p->cgroup_cpus > 0 && n > (int)ceil(p->cgroup_cpus)) n = (int)ceil(p->cgroup_cpus);
    return n < 1 ? 1 : n;
}

static void header_fill(probe_profile *p, const probe_options *opt) {
    p->schema_version = PROBE_SCHEMA_VERSION;
    p->quick = opt->quick;
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(p->created, sizeof p->created, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (gethostname(p->hostname, sizeof p->hostname) != 0) snprintf(p->hostname, sizeof p->hostname, "unknown");
    p->hostname[sizeof p->hostname - 1] = '\0';
}

/* Bytes of DRAM working set per thread for n threads (p's caches and
 * memory budget known). */
static int dram_set_bytes(const probe_profile *p, int n, uint64_t min_total, uint64_t *per_out, fc_err *err) {
    uint64_t per = DRAM_SET_LLC_MULTIPLE * llc_bytes(p) / (uint64_t)n;
    if (per < min_total / (uint64_t)n) per = min_total / (uint64_t)n;
    if (per < DRAM_SET_MIN_PER_THREAD) per = DRAM_SET_MIN_PER_THREAD;
    /* Half the budget for the pool, half for the latency buffer. */
    uint64_t budget = probe_mem_budget(p) / 2 / (uint64_t)n;
    if (per > budget) per = budget;
    if (per < DRAM_SET_FLOOR)
        return fc_err_set(err, FC_ERUNTIME, "too little free memory to measure bandwidth (%llu KiB per thread)",
                          (unsigned long long)(per >> 10));
    *per_out = per;
    return FC_OK;
}

static int measure_memory(probe_profile *p, const probe_topo *topo, const probe_options *opt, probe_step *st,
                          fc_err *err) {
    int n = p->threads_used;
    uint64_t per;
    if (dram_set_bytes(p, n, DRAM_SET_MIN_TOTAL, &per, err)) return err->status;
    probe_pool pool;
    if (probe_pool_start(&pool, topo, n, (size_t)per, err)) return err->status;
    int rc = probe_bandwidth(p, &pool, probe_kernels_best(), opt, st, err);
    if (!rc && !opt->quick && !fc_interrupted) rc = probe_latency(p, &pool, st, err);
    probe_pool_stop(&pool);
    return rc;
}

struct probe_bw {
    probe_topo topo;
    probe_pool pool;
    int n;
};

int probe_bw_open(probe_bw **out, int n_threads, fc_err *err) {
    probe_profile *p = fc_calloc(1, sizeof *p, err);
    probe_bw *b = p ? fc_calloc(1, sizeof *b, err) : NULL;
    if (!b) {
        free(p);
        return FC_ERUNTIME;
    }
    probe_options opt = {.quick = true, .threads = n_threads};
    uint64_t per = 0;
    int rc = probe_topo_init(&b->topo, p, err);
    if (!rc) rc = probe_capacity(p, err);
    b->n = threads_choose(p, &opt);
    if (!rc) rc = dram_set_bytes(p, b->n, DRAM_SET_NOW_TOTAL, &per, err);
    if (!rc) rc = probe_pool_start(&b->pool, &b->topo, b->n, (size_t)per, err);
    free(p);
    if (rc) {
        probe_topo_free(&b->topo);
        free(b);
        return rc;
    }
    *out = b;
    return FC_OK;
}

double probe_bw_read(probe_bw *b) { return probe_bandwidth_read(&b->pool, b->n); }

void probe_bw_close(probe_bw *b) {
    if (!b) return;
    probe_pool_stop(&b->pool);
    probe_topo_free(&b->topo);
    free(b);
}

static int measure_all(probe_profile *p, const probe_options *opt, fc_err *err) {
    probe_step st = {.opt = opt, .total = opt->quick ? STEPS_QUICK : STEPS_FULL};
    probe_step_report(&st, "topology and capacity");
    probe_topo topo;
    int rc = probe_topo_init(&topo, p, err);
    if (!rc) rc = probe_capacity(p, err);
    if (!rc) {
        p->threads_used = threads_choose(p, opt);
        p->int8_per_fp32 = probe_int8_per_fp32();
        rc = measure_memory(p, &topo, opt, &st, err);
    }
    probe_topo_free(&topo);
    if (rc) return rc;
    /* SGEMM runs even with --quick: it costs about 0.2 s and without it
     * the planner's prefill (and compute-bound decode) predictions fall back
     * to guesses — the no-argument main job plans from a quick profile. */
    if (!fc_interrupted) {
        probe_step_report(&st, "SGEMM (OpenBLAS)");
        rc = probe_sgemm(p, err);
        if (rc) return rc;
    }
    if (!opt->quick && !fc_interrupted) {
        probe_step_report(&st, "storage read");
        rc = probe_storage(p, opt->models_dir ? opt->models_dir : ".", err);
        if (rc) return rc;
        probe_dram_theoretical(p);
    }
    if (fc_interrupted) return fc_err_set(err, FC_ERUNTIME, "interrupted");
    if (opt->no_gpu) {
        snprintf(p->gpu_note, sizeof p->gpu_note, "GPU probe skipped (--no-gpu)");
        return FC_OK;
    }
    probe_step_report(&st, "GPUs and bus");
    return probe_gpus(p, opt, err);
}

int probe_run(probe_profile *p, const probe_options *opt, fc_err *err) {
    memset(p, 0, sizeof *p);
    header_fill(p, opt);
    /* the GPU check: a failing or slow CPU measurement cannot cost the GPU figures */
    if (opt->gpu_only) return probe_gpus(p, opt, err);
    probe_quiet_mark mark;
    probe_quiet_begin(p, &mark);
    int rc = measure_all(p, opt, err);
    if (!rc) probe_quiet_end(p, &mark);
    return rc;
}

/* Memory bandwidth: read, non-temporal write, copy and triad at DRAM size on
 * all cores; read against thread count (one core cannot reach DRAM peak,
 * Little's law) and per NUMA node; and a working-set sweep from 4 KiB to a
 * few times the last-level cache whose plateaus are each cache level's
 * bandwidth.
 *
 * Bytes are counted as STREAM and likwid-bench count them: read 1 word per
 * element, write 1, copy 2, triad 3; non-temporal stores have no
 * write-allocate traffic to count. GB = 1e9 bytes. Each figure is the best
 * repetition (STREAM's convention) with the median kept beside it. */
#include "probe/probe_internal.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define BW_REPS_FULL 15     /* timed repetitions per all-core figure */
#define BW_REPS_QUICK 8
/* A same-minute probe sits beside every benchmark test, twice: fewer
 * repetitions (of 512 MiB, run.c) keep it under 0.1 s at DRAM speed. */
#define BW_REPS_NOW 3
#define BW_REPS_SCALING 7
#define BW_REPS_SWEEP 5
#define BW_MAX_REPS 32
/* Each repetition moves at least this much per thread, so barrier wake-up
 * (tens of microseconds in a VM) stays under 1% of the time. */
#define BW_MIN_REP_BYTES (48u << 20)
#define SWEEP_MIN_BYTES 4096.0
#define SWEEP_STEPS_PER_OCTAVE 2
/* Thread counts above this are sampled every SCALING_STRIDE threads. */
#define SCALING_DENSE_MAX 8
#define SCALING_STRIDE 8

typedef struct bw_job {
    const probe_kernels *k;
    size_t floats;  /* per array, per thread; a multiple of PROBE_KERNEL_BLOCK */
    int inner;      /* kernel calls per repetition */
} bw_job;

static void op_read(probe_worker *w, void *arg) {
    const bw_job *j = arg;
    float s = 0;
    for (int r = 0; r < j->inner; r++) s += j->k->read(w->buf.data, j->floats);
    w->sink += s;
}

static void op_write(probe_worker *w, void *arg) {
    const bw_job *j = arg;
    for (int r = 0; r < j->inner; r++) j->k->write(w->buf.data, j->floats, 0.25f * (float)(r + 1));
}

static void op_copy(probe_worker *w, void *arg) {
    const bw_job *j = arg;
    float *a = w->buf.data;
    for (int r = 0; r < j->inner; r++) j->k->copy(a + j->floats, a, j->floats);
}

static void op_triad(probe_worker *w, void *arg) {
    const bw_job *j = arg;
    float *a = w->buf.data;
    for (int r = 0; r < j->inner; r++) j->k->triad(a, a + j->floats, a + 2 * j->floats, 0.5f, j->floats);
}

typedef struct bw_op {
    const char *name;
    int arrays;         /* how the thread's buffer is split */
    int words_counted;  /* words of traffic per element */
    probe_job_fn fn;
    size_t best_off, median_off;  /* where the figures go in probe_profile */
} bw_op;

static const bw_op ops[] = {
    {"read", 1, 1, op_read, offsetof(probe_profile, read_gbs), offsetof(probe_profile, read_median_gbs)},
    {"write", 1, 1, op_write, offsetof(probe_profile, write_gbs), offsetof(probe_profile, write_median_gbs)},
    {"copy", 2, 2, op_copy, offsetof(probe_profile, copy_gbs), offsetof(probe_profile, copy_median_gbs)},
    {"triad", 3, 3, op_triad, offsetof(probe_profile, triad_gbs), offsetof(probe_profile, triad_median_gbs)},
};

void probe_best_median(double *v, int n, double *best, double *median, bool higher_is_better) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    *best = n ? (higher_is_better ? v[n - 1] : v[0]) : 0;
    *median = n ? (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2])) : 0;
}

/* GB/s of op over `set_bytes` per thread (all arrays together) on the active
 * workers: one untimed warm-up, then reps timed repetitions. */
static void bw_measure(probe_pool *pool, const bool *active, const bw_op *op, const probe_kernels *k,
                       size_t set_bytes, int reps, double *best, double *median) {
    int n_active = 0;
    for (int i = 0; i < pool->n; i++) n_active += active[i];
    size_t block = PROBE_KERNEL_BLOCK;
    bw_job job = {.k = k, .floats = set_bytes / sizeof(float) / (size_t)op->arrays / block * block};
    if (job.floats < block) job.floats = block;
    size_t thread_bytes = job.floats * sizeof(float) * (size_t)op->arrays;
    job.inner = thread_bytes >= BW_MIN_REP_BYTES ? 1 : (int)(BW_MIN_REP_BYTES / thread_bytes);
    double traffic = (double)job.floats * sizeof(float) * op->words_counted * job.inner * n_active;
    double gbs[BW_MAX_REPS];
    if (reps > BW_MAX_REPS) reps = BW_MAX_REPS;
    probe_pool_run(pool, active, op->fn, &job);
    for (int r = 0; r < reps; r++) {
        double t = probe_pool_run(pool, active, op->fn, &job);
        gbs[r] = t > 0 ? traffic / t / 1e9 : 0;
    }
    probe_best_median(gbs, reps, best, median, true);
}

static void active_first(bool *active, int n, int count) {
    for (int i = 0; i < n; i++) active[i] = i < count;
}

static double read_gbs(probe_pool *pool, const bool *active, const probe_kernels *k, size_t bytes, int reps) {
    double best, median;
    bw_measure(pool, active, &ops[0], k, bytes, reps, &best, &median);
    return best;
}

static void sweep_run(probe_profile *p, probe_pool *pool, const probe_kernels *k) {
    bool active[PROBE_MAX_THREADS];
    active_first(active, pool->n, pool->n);
    /* Up to the whole DRAM working set (at least 4x the last-level cache),
     * so the curve also shows where caches the topology hides end. */
    double max_total = (double)pool->buf_bytes_each * pool->n;
    p->n_sweep = 0;
    for (int s = 0; p->n_sweep < PROBE_MAX_SWEEP; s++) {
        double x = SWEEP_MIN_BYTES * pow(2.0, (double)s / SWEEP_STEPS_PER_OCTAVE);
        if (x > max_total * 1.0001) break;
        size_t per_thread = (size_t)(x / pool->n);
        probe_point *pt = &p->sweep[p->n_sweep++];
        pt->gbs = read_gbs(pool, active, k, per_thread, BW_REPS_SWEEP);
        pt->x = (double)(per_thread < PROBE_KERNEL_BLOCK * sizeof(float) ? PROBE_KERNEL_BLOCK * sizeof(float)
                                                                         : per_thread) * pool->n;
        if (fc_interrupted) return;
    }
    /* Each level's bandwidth: the best sweep point on its plateau, from twice
     * the level below (clear of it) to half its own capacity (clear of the
     * edge); the point nearest half its capacity when the plateau is empty. */
    double below = 0;
    for (int i = 0; i < p->n_caches; i++) {
        probe_cache *c = &p->caches[i];
        if (!strcmp(c->kind, "instruction")) continue;
        int share = c->shared_by_cores > 0 ? c->shared_by_cores : 1;
        double cap = (double)c->size_bytes * ((pool->n + share - 1) / share);
        double best_dist = INFINITY, best = 0;
        for (int j = 0; j < p->n_sweep; j++) {
            const probe_point *pt = &p->sweep[j];
            if (pt->x >= 2 * below && pt->x <= cap / 2 && pt->gbs > best) best = pt->gbs;
            double d = fabs(log(pt->x / (cap / 2)));
            if (pt->x <= cap && d < best_dist) {
                best_dist = d;
                c->read_gbs = pt->gbs;
            }
        }
        if (best > 0) c->read_gbs = best;
        below = cap;
    }
}

static void scaling_run(probe_profile *p, probe_pool *pool, const probe_kernels *k) {
    bool active[PROBE_MAX_THREADS];
    p->n_scaling = 0;
    for (int t = 1; t <= pool->n && p->n_scaling < PROBE_MAX_THREADS; t++) {
        if (t > SCALING_DENSE_MAX && t % SCALING_STRIDE && t != pool->n) continue;
        active_first(active, pool->n, t);
        probe_point *pt = &p->scaling[p->n_scaling++];
        pt->x = t;
        pt->gbs = read_gbs(pool, active, k, pool->buf_bytes_each, BW_REPS_SCALING);
        if (fc_interrupted) return;
    }
    p->read_1t_gbs = p->scaling[0].gbs;
}

static void numa_run(probe_profile *p, probe_pool *pool, const probe_kernels *k) {
    for (int node = 0; node < p->n_numa && p->n_numa > 1; node++) {
        bool active[PROBE_MAX_THREADS];
        int count = 0;
        for (int i = 0; i < pool->n; i++) count += active[i] = pool->topo->numa_of_core[i % pool->topo->n_cores] == node;
        if (count) p->numa_read_gbs[node] = read_gbs(pool, active, k, pool->buf_bytes_each, BW_REPS_SCALING);
    }
}

double probe_bandwidth_read(probe_pool *pool, int n) {
    bool active[PROBE_MAX_THREADS];
    active_first(active, pool->n, n);
    return read_gbs(pool, active, probe_kernels_best(), pool->buf_bytes_each, BW_REPS_NOW);
}

int probe_bandwidth(probe_profile *p, probe_pool *pool, const probe_kernels *k, const probe_options *opt,
                    probe_step *st, fc_err *err) {
    (void)err;
    bool all[PROBE_MAX_THREADS];
    active_first(all, pool->n, pool->n);
    snprintf(p->isa, sizeof p->isa, "%s", k->isa);
    size_t n_ops = opt->quick ? 1 : FC_ARRAY_LEN(ops);
    for (size_t i = 0; i < n_ops && !fc_interrupted; i++) {
        char step[48];
        snprintf(step, sizeof step, "DRAM %s bandwidth", ops[i].name);
        probe_step_report(st, step);
        double *best = (double *)((char *)p + ops[i].best_off);
        double *median = (double *)((char *)p + ops[i].median_off);
        bw_measure(pool, all, &ops[i], k, pool->buf_bytes_each, opt->quick ? BW_REPS_QUICK : BW_REPS_FULL, best,
                   median);
    }
    if (opt->quick || fc_interrupted) return FC_OK;
    probe_step_report(st, "thread scaling");
    scaling_run(p, pool, k);
    numa_run(p, pool, k);
    probe_step_report(st, "working-set sweep");
    if (!fc_interrupted) sweep_run(p, pool, k);
    return FC_OK;
}

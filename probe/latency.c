/* Load-to-use latency per level: a pointer chase through the cache lines of
 * a buffer in random order, so every load depends on the one before and the
 * prefetchers cannot guess the next line (tinymembench and MLC do the same).
 * DRAM is measured twice: with huge pages (the TLB covers the buffer) and
 * without (each miss also walks the page table), which is the difference a
 * model mapped with or without huge pages sees. Runs on worker 0, pinned. */
#include "probe/probe_internal.h"

#include <stdlib.h>
#include <string.h>

#define LAT_LOADS 400000u            /* dependent loads per timed repetition */
#define LAT_REPS 5                   /* the fastest repetition counts: preemption only adds time */
#define LAT_DRAM_MIN_BYTES (128u << 20)
#define LAT_DRAM_LLC_MULTIPLE 4u

typedef struct lat_job {
    size_t bytes;
    bool hugepages;
    double ns;     /* result */
    int status;
} lat_job;

static uint64_t xorshift(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void lat_chase(probe_worker *w, void *arg) {
    lat_job *j = arg;
    probe_buf b;
    fc_err err = {0};
    j->status = probe_buf_alloc(&b, j->bytes, j->hugepages, &err);
    if (j->status) return;
    size_t lines = b.bytes / PROBE_CACHE_LINE;
    uint32_t *order = malloc(lines * sizeof *order);
    if (!order) {
        j->status = FC_ERUNTIME;
        probe_buf_free(&b);
        return;
    }
    /* Fisher-Yates shuffle of the line order, then link it into one cycle. */
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < lines; i++) order[i] = (uint32_t)i;
    for (size_t i = lines - 1; i > 0; i--) {
        size_t r = (size_t)(xorshift(&seed) % (i + 1));
        uint32_t t = order[i];
        order[i] = order[r];
        order[r] = t;
    }
    char *base = (char *)b.data;
    for (size_t i = 0; i < lines; i++)
        *(void **)(base + (size_t)order[i] * PROBE_CACHE_LINE) = base + (size_t)order[(i + 1) % lines] * PROBE_CACHE_LINE;
    free(order);
    void **p = (void **)base;
    for (size_t i = 0; i < lines && i < LAT_LOADS; i++) p = *p; /* warm the caches and the TLB */
    double best = 0;
    for (int r = 0; r < LAT_REPS; r++) {
        double t0 = fc_now();
        for (unsigned i = 0; i < LAT_LOADS; i++) p = *p;
        double t = fc_now() - t0;
        if (r == 0 || t < best) best = t;
    }
    w->sink += (double)(uintptr_t)p;
    j->ns = best * 1e9 / LAT_LOADS;
    probe_buf_free(&b);
}

static double lat_measure(probe_pool *pool, size_t bytes, bool hugepages) {
    bool active[PROBE_MAX_THREADS] = {true};
    lat_job j = {.bytes = bytes, .hugepages = hugepages};
    probe_pool_run(pool, active, lat_chase, &j);
    return j.status == FC_OK ? j.ns : 0;
}

int probe_latency(probe_profile *p, probe_pool *pool, probe_step *st, fc_err *err) {
    (void)err;
    /* The pool's buffers hold half the budget; the chase buffer and its
     * line-order index (4 bytes per 64-byte line) share the other half.
     * Every chase, cache levels included, stays inside it: a VM may claim a
     * 480 MiB L3, whose half would not fit in a 256 MiB container. */
    uint64_t budget = probe_mem_budget(p) / 2 / (PROBE_CACHE_LINE + sizeof(uint32_t)) * PROBE_CACHE_LINE;
    uint64_t llc = 0, below = 0;
    for (int i = 0; i < p->n_caches && !fc_interrupted; i++) {
        probe_cache *c = &p->caches[i];
        if (!strcmp(c->kind, "instruction")) continue;
        /* Half the level: past the level below, clear of this one's edge.
         * Capped by the budget, the chase is still inside this level as long
         * as it is past the level below; otherwise the level stays unmeasured. */
        uint64_t bytes = c->size_bytes / 2;
        if (bytes > budget) bytes = budget;
        if (bytes > below) c->latency_ns = lat_measure(pool, (size_t)bytes, true);
        if (c->size_bytes > below) below = c->size_bytes;
        if (c->size_bytes > llc) llc = c->size_bytes;
    }
    probe_step_report(st, "DRAM latency");
    uint64_t dram = (uint64_t)LAT_DRAM_LLC_MULTIPLE * llc;
    if (dram < LAT_DRAM_MIN_BYTES) dram = LAT_DRAM_MIN_BYTES;
    if (dram > budget) dram = budget;
    if (!fc_interrupted) p->dram_latency_hugepage_ns = lat_measure(pool, dram, true);
    if (!fc_interrupted) p->dram_latency_ns = lat_measure(pool, dram, false);
    return FC_OK;
}

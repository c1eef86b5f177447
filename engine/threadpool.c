/* A fork-join thread pool pinned to physical cores through hwloc.
 *
 * Decode runs a few hundred parallel sections per token, each tens of
 * microseconds long, so waking threads through the kernel every time would
 * cost more than the work. Workers spin on a generation counter for a short
 * while and only then sleep on a futex; the caller does its own share of the
 * work as thread 0 and spins until the others are done. */
#include "engine/internal.h"

#include <hwloc.h>
#include <immintrin.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Pause-loop iterations before a worker sleeps (about 100-300 us), and before
 * the waiting caller starts yielding the core to others. */
#define POOL_SPIN_ITERS 4000
#define POOL_YIELD_AFTER 2000

typedef struct worker_arg {
    struct eng_pool *p;
    int ith;
} worker_arg;

struct eng_pool {
    int n;
    worker_arg args[ENG_MAX_THREADS];
    pthread_t threads[ENG_MAX_THREADS];
    _Atomic uint32_t gen;      /* bumped once per parallel section */
    _Atomic int done;          /* workers finished with the current section */
    _Atomic int sleepers;      /* workers blocked in futex wait */
    _Atomic int stop;
    eng_task_fn fn;
    void *arg;
    hwloc_topology_t topo;
    int topo_ok;
};


static long futex(_Atomic uint32_t *addr, int op, uint32_t val) {
    return syscall(SYS_futex, (uint32_t *)addr, op, val, NULL, NULL, 0);
}

/* Binds the calling thread to the i-th physical core (wrapping around);
 * failure only costs speed, so it is not an error. */
static void pin_to_core(eng_pool *p, int i) {
    if (!p->topo_ok) return;
    int ncores = hwloc_get_nbobjs_by_type(p->topo, HWLOC_OBJ_CORE);
    if (ncores <= 0) return;
    hwloc_obj_t core = hwloc_get_obj_by_type(p->topo, HWLOC_OBJ_CORE, (unsigned)(i % ncores));
    if (!core || !core->cpuset) return;
    hwloc_cpuset_t set = hwloc_bitmap_dup(core->cpuset);
    hwloc_bitmap_singlify(set); /* one hardware thread of the core */
    hwloc_set_cpubind(p->topo, set, HWLOC_CPUBIND_THREAD);
    hwloc_bitmap_free(set);
}

static void *worker_main(void *varg) {
    worker_arg *wa = varg;
    eng_pool *p = wa->p;
    pin_to_core(p, wa->ith);
    /* Not a load of p->gen: a section may start before this thread runs. */
    uint32_t seen = 0;
    for (;;) {
        int spins = 0;
        uint32_t g;
        while ((g = atomic_load_explicit(&p->gen, memory_order_acquire)) == seen) {
            if (++spins < POOL_SPIN_ITERS) {
                _mm_pause();
                continue;
            }
            atomic_fetch_add(&p->sleepers, 1);
            futex(&p->gen, FUTEX_WAIT_PRIVATE, seen);
            atomic_fetch_sub(&p->sleepers, 1);
            spins = 0;
        }
        seen = g;
        if (atomic_load(&p->stop)) return NULL;
        p->fn(p->arg, wa->ith, p->n);
        atomic_fetch_add_explicit(&p->done, 1, memory_order_release);
    }
}

int eng_pool_n(const eng_pool *p) { return p->n; }

int eng_default_threads(void) {
    hwloc_topology_t t;
    int n = 0;
    if (hwloc_topology_init(&t) == 0) {
        if (hwloc_topology_load(t) == 0) n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
        hwloc_topology_destroy(t);
    }
    if (n <= 0) n = (int)sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > ENG_MAX_THREADS ? ENG_MAX_THREADS : n;
}

int eng_pool_new(eng_pool **out, int n, fc_err *err) {
    if (n < 1 || n > ENG_MAX_THREADS) return fc_err_set(err, FC_EINPUT, "thread count %d is outside 1..%d", n, ENG_MAX_THREADS);
    eng_pool *p = fc_calloc(1, sizeof *p, err);
    if (!p) return FC_ERUNTIME;
    p->n = n;
    if (hwloc_topology_init(&p->topo) == 0) {
        p->topo_ok = hwloc_topology_load(p->topo) == 0;
        if (!p->topo_ok) hwloc_topology_destroy(p->topo);
    }
    if (n > 1) pin_to_core(p, 0);
    for (int i = 1; i < n; i++) {
        p->args[i] = (worker_arg){p, i};
        if (pthread_create(&p->threads[i], NULL, worker_main, &p->args[i])) {
            p->n = i; /* the ones started so far are joined by free */
            eng_pool_free(p);
            return fc_err_set(err, FC_ERUNTIME, "cannot start worker thread %d of %d", i, n);
        }
    }
    *out = p;
    return FC_OK;
}

void eng_pool_run(eng_pool *p, eng_task_fn fn, void *arg) {
    if (p->n == 1) {
        fn(arg, 0, 1);
        return;
    }
    p->fn = fn;
    p->arg = arg;
    atomic_store_explicit(&p->done, 0, memory_order_relaxed);
    /* seq_cst: this store and the sleepers load below pair with the worker's
     * sleepers increment and the futex's re-check of gen (no lost wake-up). */
    atomic_fetch_add(&p->gen, 1);
    if (atomic_load(&p->sleepers) > 0) futex(&p->gen, FUTEX_WAKE_PRIVATE, INT32_MAX);
    fn(arg, 0, p->n);
    int spins = 0;
    while (atomic_load_explicit(&p->done, memory_order_acquire) < p->n - 1) {
        if (++spins < POOL_YIELD_AFTER) _mm_pause();
        else sched_yield();
    }
}

void eng_pool_free(eng_pool *p) {
    if (!p) return;
    atomic_store(&p->stop, 1);
    atomic_fetch_add(&p->gen, 1);
    futex(&p->gen, FUTEX_WAKE_PRIVATE, INT32_MAX);
    for (int i = 1; i < p->n; i++) pthread_join(p->threads[i], NULL);
    if (p->topo_ok) hwloc_topology_destroy(p->topo);
    free(p);
}

void eng_split(int64_t n, int ith, int nth, int64_t *lo, int64_t *hi) {
    int64_t per = (n + nth - 1) / nth;
    *lo = per * ith < n ? per * ith : n;
    *hi = *lo + per < n ? *lo + per : n;
}

void eng_split_tiles(int64_t n, int64_t tile, int ith, int nth, int64_t *lo, int64_t *hi) {
    eng_split((n + tile - 1) / tile, ith, nth, lo, hi);
    *lo = *lo * tile < n ? *lo * tile : n;
    *hi = *hi * tile < n ? *hi * tile : n;
}

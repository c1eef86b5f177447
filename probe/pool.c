/* The pinned worker pool: one thread per core, started once per probe so
 * thread creation, pinning and first touch are paid once, and every
 * measurement is a barrier-synchronized repetition across the same threads.
 * The caller waits on the barriers too, so a repetition's time runs from the
 * first worker's start to the last one's end. */
#include "probe/probe_internal.h"

#include <stdlib.h>
#include <string.h>

static void *worker_main(void *arg) {
    probe_worker *w = arg;
    probe_pool *pool = w->pool;
    probe_topo_pin(pool->topo, w->id);
    /* Allocated here, after pinning, so the first touch places it on our node. */
    fc_err err = {0};
    w->status = probe_buf_alloc(&w->buf, pool->buf_bytes_each, true, &err);
    pthread_mutex_lock(&pool->gate_lock);
    pool->ready++;
    pthread_cond_broadcast(&pool->gate_cond);
    while (!pool->go && !pool->quit) pthread_cond_wait(&pool->gate_cond, &pool->gate_lock);
    bool run = pool->go;
    pthread_mutex_unlock(&pool->gate_lock);
    while (run) {
        pthread_barrier_wait(&pool->start);
        if (pool->quit) break;
        if (pool->active[w->id] && w->status == FC_OK) {
            w->t_start = fc_now();
            pool->job(w, pool->arg);
            w->t_end = fc_now();
        }
        pthread_barrier_wait(&pool->done);
    }
    probe_buf_free(&w->buf);
    return NULL;
}

/* Releases the workers that exist without running anything and joins them. */
static void pool_abandon(probe_pool *pool, int started) {
    pthread_mutex_lock(&pool->gate_lock);
    pool->quit = true;
    pthread_cond_broadcast(&pool->gate_cond);
    pthread_mutex_unlock(&pool->gate_lock);
    for (int i = 0; i < started; i++) pthread_join(pool->workers[i].thread, NULL);
    pthread_barrier_destroy(&pool->start);
    pthread_barrier_destroy(&pool->done);
    pthread_cond_destroy(&pool->gate_cond);
    pthread_mutex_destroy(&pool->gate_lock);
    free(pool->workers);
    pool->workers = NULL;
}

int probe_pool_start(probe_pool *pool, const probe_topo *t, int n, size_t buf_bytes, fc_err *err) {
    memset(pool, 0, sizeof *pool);
    if (n < 1 || n > PROBE_MAX_THREADS)
        return fc_err_set(err, FC_EINPUT, "thread count %d out of range 1..%d", n, PROBE_MAX_THREADS);
    pool->topo = t;
    pool->n = n;
    pool->buf_bytes_each = buf_bytes;
    pool->workers = fc_calloc((size_t)n, sizeof *pool->workers, err);
    if (!pool->workers) return FC_ERUNTIME;
    pthread_mutex_init(&pool->gate_lock, NULL);
    pthread_cond_init(&pool->gate_cond, NULL);
    pthread_barrier_init(&pool->start, NULL, (unsigned)n + 1);
    pthread_barrier_init(&pool->done, NULL, (unsigned)n + 1);
    int started = 0;
    for (; started < n; started++) {
        probe_worker *w = &pool->workers[started];
        w->pool = pool;
        w->id = started;
        if (pthread_create(&w->thread, NULL, worker_main, w) != 0) break;
    }
    if (started < n) {
        pool_abandon(pool, started);
        return fc_err_set(err, FC_ERUNTIME, "could start only %d of %d measurement threads", started, n);
    }
    pthread_mutex_lock(&pool->gate_lock);
    while (pool->ready < n) pthread_cond_wait(&pool->gate_cond, &pool->gate_lock);
    pthread_mutex_unlock(&pool->gate_lock);
    for (int i = 0; i < n; i++)
        if (pool->workers[i].status != FC_OK) {
            pool_abandon(pool, n);
            return fc_err_set(err, FC_ERUNTIME, "cannot allocate %zu MiB per measurement thread", buf_bytes >> 20);
        }
    pthread_mutex_lock(&pool->gate_lock);
    pool->go = true;
    pthread_cond_broadcast(&pool->gate_cond);
    pthread_mutex_unlock(&pool->gate_lock);
    return FC_OK;
}

double probe_pool_run(probe_pool *pool, const bool *active, probe_job_fn job, void *arg) {
    memcpy(pool->active, active, sizeof(bool) * (size_t)pool->n);
    pool->job = job;
    pool->arg = arg;
    pthread_barrier_wait(&pool->start);
    pthread_barrier_wait(&pool->done);
    double t0 = 0, t1 = 0;
    bool first = true;
    for (int i = 0; i < pool->n; i++) {
        if (!active[i]) continue;
        const probe_worker *w = &pool->workers[i];
        if (first || w->t_start < t0) t0 = w->t_start;
        if (first || w->t_end > t1) t1 = w->t_end;
        first = false;
    }
    return t1 - t0;
}

void probe_pool_stop(probe_pool *pool) {
    if (!pool->workers) return;
    pool->quit = true;
    pthread_barrier_wait(&pool->start);
    pool_abandon(pool, pool->n);
}

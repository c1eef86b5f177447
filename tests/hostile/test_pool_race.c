/* The engine's fork-join thread pool (engine/threadpool.c) under stress:
 * thousands of short parallel sections, as decode runs them. After every
 * eng_pool_run each worker's writes must be visible to the caller, and each
 * section must run on every thread exactly once. scripts/sanitize.sh also runs
 * this under ThreadSanitizer (build-tsan/), which reports any data race the
 * spin/futex hand-off lets through even when the sums happen to come out right. */
#include "engine/internal.h"
#include "tests/check.h"

#define POOL_THREADS 4        /* more than the CI machine's cores: workers get preempted mid-spin */
#define SECTIONS 2000
#define ELEMS 4096

typedef struct section {
    uint32_t id;
    uint32_t seen[POOL_THREADS]; /* written by thread ith only */
    int nth_seen[POOL_THREADS];
    float *x;
    double partial[POOL_THREADS];
} section;

static void task(void *arg, int ith, int nth) {
    section *s = arg;
    s->seen[ith] = s->id;
    s->nth_seen[ith] = nth;
    int64_t lo, hi;
    eng_split(ELEMS, ith, nth, &lo, &hi);
    double sum = 0;
    for (int64_t i = lo; i < hi; i++) {
        s->x[i] += 1.0f; /* each element owned by exactly one thread */
        sum += s->x[i];
    }
    s->partial[ith] = sum;
}

int main(void) {
    eng_pool *pool;
    fc_err err = {0};
    if (eng_pool_new(&pool, POOL_THREADS, &err) != FC_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    static float x[ELEMS];
    section s = {.x = x};
    int bad_seen = 0, bad_sum = 0;
    for (uint32_t k = 1; k <= SECTIONS; k++) {
        s.id = k;
        eng_pool_run(pool, task, &s);
        double total = 0;
        for (int t = 0; t < POOL_THREADS; t++) {
            bad_seen += s.seen[t] != k || s.nth_seen[t] != POOL_THREADS;
            total += s.partial[t];
        }
        /* every element was incremented k times: the sum is k * ELEMS exactly */
        bad_sum += total != (double)k * ELEMS;
    }
    CHECK_MSG(bad_seen == 0, "%d thread-sections missed or ran with the wrong count", bad_seen);
    CHECK_MSG(bad_sum == 0, "%d sections summed wrong (a worker's writes not visible after the join)", bad_sum);
    eng_pool_free(pool);
    return check_done("pool_race");
}

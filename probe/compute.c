/* Compute: OpenBLAS SGEMM on one thread and on all, the ceiling prompt
 * processing (a matrix-matrix product per layer) can approach on this CPU. */
#include "probe/probe_internal.h"

#include <cblas.h>
#include <stdlib.h>

#define SGEMM_N 1024   /* 2.1 GFLOP per product: long enough to time, short enough to repeat */
#define SGEMM_REPS 3

static double sgemm_best(const float *a, const float *b, float *c) {
    double best = 0;
    for (int r = 0; r <= SGEMM_REPS; r++) {
        double t0 = fc_now();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, SGEMM_N, SGEMM_N, SGEMM_N, 1.0f, a, SGEMM_N, b,
                    SGEMM_N, 0.0f, c, SGEMM_N);
        double t = fc_now() - t0;
        double gflops = t > 0 ? 2.0 * SGEMM_N * SGEMM_N * SGEMM_N / t / 1e9 : 0;
        if (r > 0 && gflops > best) best = gflops; /* r == 0 warms up */
    }
    return best;
}

int probe_sgemm(probe_profile *p, fc_err *err) {
    size_t n = (size_t)SGEMM_N * SGEMM_N;
    float *m = fc_malloc(3 * n * sizeof(float), err);
    if (!m) return FC_ERUNTIME;
    for (size_t i = 0; i < 3 * n; i++) m[i] = (float)(i % 7) * 0.25f;
    int saved = openblas_get_num_threads();
    openblas_set_num_threads(1);
    p->sgemm_gflops_1t = sgemm_best(m, m + n, m + 2 * n);
    openblas_set_num_threads(p->threads_used > 0 ? p->threads_used : 1);
    p->sgemm_gflops_all = sgemm_best(m, m + n, m + 2 * n);
    openblas_set_num_threads(saved);
    free(m);
    return FC_OK;
}

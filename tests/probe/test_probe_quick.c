/* A real quick probe of this machine: the numbers it reports agree with what
 * the kernel says and are in the right shape. No timing thresholds: only
 * "measured something positive". */
#include "probe/probe.h"
#include "tests/check.h"

#include <string.h>

static unsigned long long meminfo_total(void) {
    FILE *fp = fopen("/proc/meminfo", "r");
    unsigned long long kb = 0;
    if (fp) {
        if (fscanf(fp, "MemTotal: %llu kB", &kb) != 1) kb = 0;
        fclose(fp);
    }
    return kb * 1024;
}

int main(void) {
    static probe_profile p;
    probe_options opt = {.quick = true, .no_gpu = true, .models_dir = "."};
    fc_err err = {0};
    int rc = probe_run(&p, &opt, &err);
    CHECK_MSG(rc == FC_OK, "%s", err.msg);
    unsigned long long total = meminfo_total();
    if (total) CHECK_MSG(p.ram_total > total * 0.9 && p.ram_total < total * 1.1, "%llu vs %llu",
                         (unsigned long long)p.ram_total, total);
    CHECK(p.ram_available > 0 && p.ram_available <= p.ram_total);
    CHECK(p.n_cores >= 1 && p.n_threads >= p.n_cores && p.n_packages >= 1 && p.n_numa >= 1);
    CHECK(p.threads_used >= 1);
    CHECK_MSG(p.read_gbs > 0, "read %g GB/s", p.read_gbs);
    CHECK(p.read_median_gbs > 0 && p.read_median_gbs <= p.read_gbs);
    CHECK(p.isa[0] != '\0' && p.quick);
    /* the int8 dot products of llama.cpp's quantized kernels here: AVX2's, VNNI's or dotprod's, i8mm's, or none known */
    CHECK_MSG(p.int8_per_fp32 == 0 || p.int8_per_fp32 == 2 || p.int8_per_fp32 == 4 || p.int8_per_fp32 == 8, "%g",
              p.int8_per_fp32);
#if defined(__x86_64__)
    if (!__builtin_cpu_supports("avx2")) CHECK(p.int8_per_fp32 == 0);
    else if (__builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vl")) CHECK(p.int8_per_fp32 == 4);
    else CHECK(p.int8_per_fp32 == 2 || p.int8_per_fp32 == 4); /* AVX-VNNI without AVX-512 is 4 */
#endif
    CHECK(p.n_caches >= 1);
    for (int i = 1; i < p.n_caches; i++) CHECK_MSG(p.caches[i].level >= p.caches[i - 1].level, "cache %d", i);
    for (int i = 0; i < p.n_caches; i++) CHECK(p.caches[i].size_bytes > 0 && p.caches[i].source[0]);
    CHECK(!strcmp(p.gpu_note, "GPU probe skipped (--no-gpu)"));
    /* The profile it made serializes and reads back. */
    char *text = NULL;
    static probe_profile q;
    CHECK(probe_profile_to_json(&p, &text, &err) == FC_OK);
    CHECK(text && probe_profile_from_json(&q, text, "quick", &err) == FC_OK);
    CHECK(q.ram_total == p.ram_total && q.n_caches == p.n_caches);
    free(text);
    return check_done("probe_quick");
}

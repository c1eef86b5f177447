/* The GPU probe on this machine, for real: OpenCL on PoCL (this CPU as an
 * OpenCL device) is measured; without libcuda the CUDA path says so in one
 * line and the probe still succeeds. */
#include "probe/gpu_internal.h"
#include "reports/reports.h"
#include "tests/check.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

/* Skip (exit 77) only when the OpenCL loader or PoCL is really absent. */
static bool pocl_present(void) {
    void *h = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return false;
    dlclose(h);
    FILE *f = fopen("/etc/OpenCL/vendors/pocl.icd", "r");
    if (!f)
        return false;
    fclose(f);
    return true;
}

static void check_cuda_absent(void) {
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h) { /* a machine with the NVIDIA driver: the absent path cannot be shown */
        dlclose(h);
        return;
    }
    static probe_profile p;
    probe_options opt = {.quick = true};
    fc_err err = {0};
    char note[256] = "";
    probe_cuda(&p, &opt, NULL, note, sizeof note);
    CHECK(p.n_gpus == 0);
    CHECK_MSG(strcmp(note, "no NVIDIA driver (libcuda.so.1 not found)") == 0, "note: %s", note);
    memset(&p, 0, sizeof p);
    CHECK(probe_gpus(&p, &opt, &err) == FC_OK);
    CHECK_MSG(strstr(p.gpu_note, "no NVIDIA driver (libcuda.so.1 not found)") != NULL, "gpu_note: %s", p.gpu_note);
}

static void check_no_gpu_option(void) {
    static probe_profile p;
    probe_options opt = {.quick = true, .no_gpu = true};
    fc_err err = {0};
    CHECK(probe_gpus(&p, &opt, &err) == FC_OK);
    CHECK(p.n_gpus == 0);
    CHECK(strstr(p.gpu_note, "--no-gpu") != NULL);
}

/* --quick lists a device that shares host RAM but does not measure it: the
 * CPU probe already measured that memory, and 2 s leave no time for PoCL's
 * kernel compile. */
static void check_pocl_quick(void) {
    static probe_profile p;
    probe_options opt = {.quick = true};
    char note[256] = "";
    probe_opencl(&p, &opt, false, note, sizeof note);
    int unified = 0;
    for (int i = 0; i < p.n_gpus; i++) {
        if (!p.gpus[i].unified_memory) continue;
        unified++;
        CHECK(p.gpus[i].vram_total > 0);
        CHECK(p.gpus[i].read_gbs == 0);
        CHECK_MSG(strstr(p.gpus[i].note, "not measured with --quick") != NULL, "note: %s", p.gpus[i].note);
    }
    CHECK_MSG(unified > 0, "no unified-memory OpenCL device among %d", p.n_gpus);
}

static void check_pocl(void) {
    static probe_profile p;
    probe_options opt = {.quick = false};
    char note[256] = "";
    probe_opencl(&p, &opt, false, note, sizeof note);
    CHECK_MSG(note[0] == '\0', "opencl note: %s", note);
    const probe_gpu *cpu = NULL;
    for (int i = 0; i < p.n_gpus; i++)
        if (strstr(p.gpus[i].name, "pthread") || strstr(p.gpus[i].vendor, "Portable") ||
            strstr(p.gpus[i].name, "cpu"))
            cpu = &p.gpus[i];
    CHECK_MSG(cpu != NULL, "PoCL CPU device not listed among %d devices", p.n_gpus);
    if (!cpu)
        return;
    printf("%s: global %llu bytes, read %.2f GB/s, H2D %.2f D2H %.2f GB/s%s%s\n", cpu->name,
           (unsigned long long)cpu->vram_total, cpu->read_gbs, cpu->h2d_pageable_gbs, cpu->d2h_pageable_gbs,
           cpu->note[0] ? ", note: " : "", cpu->note);
    CHECK(strcmp(cpu->api, "opencl") == 0);
    CHECK(cpu->vram_total > 0);
    CHECK(cpu->max_alloc > 0 && cpu->max_alloc <= cpu->vram_total);
    CHECK(cpu->compute_units > 0);
    CHECK(cpu->unified_memory);
    CHECK(cpu->read_gbs > 0);
    CHECK(cpu->h2d_pageable_gbs > 0);
    CHECK(cpu->d2h_pageable_gbs > 0);
    CHECK_MSG(cpu->note[0] == '\0', "device note: %s", cpu->note);

    /* the table fitcheck probe prints names the device and its numbers */
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    CHECK(mem != NULL);
    if (!mem)
        return;
    rep_probe_gpus_print(&p, mem);
    fclose(mem);
    fputs(text, stdout);
    CHECK(strstr(text, cpu->name) != NULL);
    CHECK(strstr(text, "[opencl]") != NULL);
    CHECK(strstr(text, "unified memory") != NULL);
    CHECK(strstr(text, "read ") != NULL);
    free(text);
}

int main(void) {
    check_cuda_absent();
    check_no_gpu_option();
    if (!pocl_present()) {
        printf("gpu_probe: no OpenCL loader or PoCL: skipped the OpenCL part\n");
        return check_failures ? 1 : 77;
    }
    check_pocl_quick();
    check_pocl();
    return check_done("gpu_probe");
}

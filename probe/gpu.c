/* GPUs and the bus: drives the CUDA and OpenCL probes and the PCIe/NVMe
 * link reading, and prints the result. No GPU, no driver, a busy GPU or a
 * failed kernel is never an error: one line in a note, and the probe goes on. */
#include "probe/gpu_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GPU_API_NOTE_MAX 192

static int gpu_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double probe_gpu_median(double *v, int n) {
    if (n <= 0)
        return 0.0;
    qsort(v, (size_t)n, sizeof *v, gpu_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

void probe_gpu_note_add(char *note, size_t cap, const char *fmt, ...) {
    size_t len = strnlen(note, cap);
    if (cap == 0 || len + 1 >= cap)
        return;
    if (len > 0) {
        snprintf(note + len, cap - len, "; ");
        len = strnlen(note, cap);
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(note + len, cap - len, fmt, ap);
    va_end(ap);
}

uint64_t probe_gpu_host_free(void) {
    long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}

int probe_gpus(probe_profile *p, const probe_options *opt, fc_err *err) {
    (void)err; /* nothing here is fatal: trouble goes into the notes */
    p->n_gpus = 0;
    p->gpu_note[0] = '\0';
    probe_bus bus;
    probe_bus_open(&bus);
    probe_bus_nvme(&bus, p);
    if (opt->no_gpu) {
        snprintf(p->gpu_note, sizeof p->gpu_note, "GPU probe skipped (--no-gpu)");
    } else {
        char cuda_note[GPU_API_NOTE_MAX] = "", ocl_note[GPU_API_NOTE_MAX] = "";
        probe_cuda(p, opt, &bus, cuda_note, sizeof cuda_note);
        /* NVIDIA's OpenCL ICD lists the same cards again: CUDA measures them */
        int n_cuda = p->n_gpus;
        probe_opencl(p, opt, n_cuda > 0, ocl_note, sizeof ocl_note);
        /* CUDA reads its links itself (again under load); OpenCL GPUs that
         * tell their PCI address get theirs here */
        for (int i = n_cuda; i < p->n_gpus; i++) {
            probe_gpu *g = &p->gpus[i];
            if (!g->pci_bus_id[0])
                continue;
            g->numa_node = probe_bus_numa(&bus, g->pci_bus_id);
            probe_bus_link(&bus, g->pci_bus_id, &g->link);
        }
        if (cuda_note[0])
            probe_gpu_note_add(p->gpu_note, sizeof p->gpu_note, "%s", cuda_note);
        if (ocl_note[0])
            probe_gpu_note_add(p->gpu_note, sizeof p->gpu_note, "%s", ocl_note);
    }
    probe_bus_close(&bus);
    return FC_OK;
}

/* ---- printing -------------------------------------------------------------- */
static void gpu_print_link(const probe_link *l, FILE *out) {
    if (!l->gen_max)
        return;
    fprintf(out, "     PCIe gen%d x%d (%.1f GB/s per direction), idle gen%d x%d", l->gen_max, l->width_max,
            l->theoretical_gbs, l->gen_cur, l->width_cur);
    if (l->gen_loaded)
        fprintf(out, ", under load gen%d x%d", l->gen_loaded, l->width_loaded);
    fprintf(out, " [%s]\n", fc_safe(l->source));
}

static void gpu_print_one(int i, const probe_gpu *g, FILE *out) {
    char total[32], free_b[32], l2[32];
    fprintf(out, "  #%d %s [%s]", i, fc_safe(g->name), fc_safe(g->api));
    if (g->pci_bus_id[0])
        fprintf(out, " %s", fc_safe(g->pci_bus_id));
    if (g->numa_node >= 0)
        fprintf(out, " node %d", g->numa_node);
    if (g->cc_major)
        fprintf(out, ", sm_%d%d", g->cc_major, g->cc_minor);
    fprintf(out, ", %d %s", g->compute_units, strcmp(g->api, "cuda") ? "CUs" : "SMs");
    if (g->l2_bytes)
        fprintf(out, ", cache %s", fc_fmt_bytes(g->l2_bytes, l2, sizeof l2));
    fputc('\n', out);
    fprintf(out, "     %s %s", g->unified_memory ? "unified memory (host RAM)" : "VRAM",
            fc_fmt_bytes(g->vram_total, total, sizeof total));
    if (g->vram_free)
        fprintf(out, ", %s free", fc_fmt_bytes(g->vram_free, free_b, sizeof free_b));
    if (g->max_alloc)
        fprintf(out, ", max alloc %s", fc_fmt_bytes(g->max_alloc, free_b, sizeof free_b));
    if (g->theoretical_gbs > 0)
        fprintf(out, "; datasheet %.0f GB/s (%d-bit, %.0f MHz)", g->theoretical_gbs, g->mem_bus_width_bits,
                g->mem_clock_mhz);
    fputc('\n', out);
    if (g->read_gbs > 0) {
        fprintf(out, "     read %.1f GB/s", g->read_gbs);
        if (g->copy_gbs > 0)
            fprintf(out, ", copy %.1f GB/s", g->copy_gbs);
        if (g->launch_us > 0)
            fprintf(out, ", launch %.2f us", g->launch_us);
        if (g->fp32_tflops > 0)
            fprintf(out, ", fp32 %.1f TFLOPS", g->fp32_tflops);
        if (g->fp16_tflops > 0)
            fprintf(out, ", fp16 %.1f / bf16 %.1f TFLOPS (mma.sync)", g->fp16_tflops, g->bf16_tflops);
        fputc('\n', out);
    }
    if (g->h2d_pinned_gbs > 0)
        fprintf(out, "     pinned H2D %.1f / D2H %.1f GB/s\n", g->h2d_pinned_gbs, g->d2h_pinned_gbs);
    if (g->h2d_pageable_gbs > 0)
        fprintf(out, "     pageable H2D %.1f / D2H %.1f GB/s\n", g->h2d_pageable_gbs, g->d2h_pageable_gbs);
    gpu_print_link(&g->link, out);
    if (g->note[0])
        fprintf(out, "     note: %s\n", fc_safe(g->note));
}

/* Every text here may come from a profile copied from another machine:
 * shown through fc_safe (common/fc.h). */
void probe_gpus_print(const probe_profile *p, FILE *out) {
    fprintf(out, "GPUs: %d\n", p->n_gpus);
    for (int i = 0; i < p->n_gpus && i < PROBE_MAX_GPUS; i++)
        gpu_print_one(i, &p->gpus[i], out);
    if (p->gpu_note[0])
        fprintf(out, "  note: %s\n", fc_safe(p->gpu_note));
    for (int i = 0; i < p->n_nvme && i < (int)FC_ARRAY_LEN(p->nvme); i++) {
        const probe_nvme *n = &p->nvme[i];
        fprintf(out, "NVMe %s %s", fc_safe(n->pci_bus_id), fc_safe(n->name));
        if (n->link.gen_max)
            fprintf(out, ": PCIe gen%d x%d (%.1f GB/s), now gen%d x%d [%s]", n->link.gen_max, n->link.width_max,
                    n->link.theoretical_gbs, n->link.gen_cur, n->link.width_cur, fc_safe(n->link.source));
        fputc('\n', out);
    }
}

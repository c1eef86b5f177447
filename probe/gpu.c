/* GPUs and the bus: drives the CUDA and OpenCL probes and the PCIe/NVMe
 * link reading (reports/probe_screen.c prints the result). No GPU, no driver, a busy GPU or a
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

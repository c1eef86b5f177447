/* Measurement buffers: 2 MiB-aligned anonymous mappings so transparent huge
 * pages can back them (fewer TLB misses, as a real model mapping would get),
 * first-touched by the thread that will read them so they live on its NUMA
 * node. */
#include "probe/probe_internal.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#define PAGE_BYTES 4096u

int probe_buf_alloc(probe_buf *b, size_t bytes, bool hugepages, fc_err *err) {
    memset(b, 0, sizeof *b);
    bytes = (bytes + PAGE_BYTES - 1) / PAGE_BYTES * PAGE_BYTES;
    if (bytes == 0 || bytes > SIZE_MAX - PROBE_HUGEPAGE_BYTES)
        return fc_err_set(err, FC_ERUNTIME, "bad measurement buffer size %zu", bytes);
    size_t map_bytes = bytes + PROBE_HUGEPAGE_BYTES;
    void *m = mmap(NULL, map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return fc_err_set(err, FC_ERUNTIME, "cannot map a %zu MiB measurement buffer: %s", bytes >> 20, strerror(errno));
    uintptr_t start = ((uintptr_t)m + PROBE_HUGEPAGE_BYTES - 1) & ~(uintptr_t)(PROBE_HUGEPAGE_BYTES - 1);
    /* Advice is a hint: a kernel without THP refuses it and we measure 4 KiB pages. */
    madvise((void *)start, bytes, hugepages ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    /* Random floats in [1, 2), different in every buffer: constant or zero
     * pages can be deduplicated or compressed by a hypervisor and then read
     * or written faster than memory allows. */
    float *f = (float *)start;
    uint32_t x = (uint32_t)(start >> 12) * 2654435761u;
    for (size_t i = 0; i < bytes / sizeof(float); i++) {
        x = x * 1664525u + 1013904223u;
        uint32_t bits = 0x3f800000u | (x >> 9);
        memcpy(&f[i], &bits, sizeof bits);
    }
    b->map = m;
    b->map_bytes = map_bytes;
    b->data = f;
    b->bytes = bytes;
    return FC_OK;
}

void probe_buf_free(probe_buf *b) {
    if (b->map) munmap(b->map, b->map_bytes);
    memset(b, 0, sizeof *b);
}

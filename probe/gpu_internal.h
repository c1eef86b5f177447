/* Internal to probe/: the GPU and bus probe's parts (gpu.c drives them).
 * Not a public header: the planner and the CLI see only probe/probe.h.
 * Tests include it to check the decoders against known register values. */
#ifndef FC_PROBE_GPU_INTERNAL_H
#define FC_PROBE_GPU_INTERNAL_H

#include "probe/probe.h"

#include <hwloc.h>
#include <stdint.h>

/* ---- measurement sizes and repetitions ---------------------------------- */
/* Device buffers never take more than this share of the free VRAM read. */
#define PROBE_GPU_VRAM_SHARE 0.5
/* Host buffers never take more than this share of the free host memory. */
#define PROBE_GPU_HOST_SHARE 0.125
/* Read buffer: at least this many times the L2 so the cache cannot help. */
#define PROBE_GPU_L2_FACTOR 16
#define PROBE_GPU_READ_BYTES ((uint64_t)1 << 30)        /* 1 GiB */
#define PROBE_GPU_READ_BYTES_QUICK ((uint64_t)256 << 20)
#define PROBE_GPU_XFER_BYTES ((uint64_t)256 << 20)      /* per host<->device copy */
#define PROBE_GPU_XFER_BYTES_QUICK ((uint64_t)64 << 20)
#define PROBE_GPU_REPS 8        /* kernels or copies per timed sample */
#define PROBE_GPU_REPS_QUICK 4
#define PROBE_GPU_SAMPLES 5     /* samples per figure; the median is kept */
#define PROBE_GPU_SAMPLES_QUICK 3
#define PROBE_GPU_LAUNCHES 2000 /* empty kernels timed for the launch latency */
#define PROBE_GPU_MAX_SAMPLES 16

/* Median of n values (sorts v in place); 0 when n is 0. */
double probe_gpu_median(double *v, int n);
/* Appends "; text" (or text when empty) to a note, truncating safely. */
void probe_gpu_note_add(char *note, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Free host memory in bytes (the most a host buffer may take is a share). */
uint64_t probe_gpu_host_free(void);

/* ---- embedded PTX (probe/kernels, generated fc_ptx.c) -------------------- */
typedef struct probe_ptx_module {
    const char *module; /* "stream" (memory kernels), "mma" (tensor cores) */
    const char *origin; /* "nvcc" (built here), "committed" (fallback) */
    const char *text;
} probe_ptx_module;
extern const probe_ptx_module probe_ptx_modules[];
extern const int probe_ptx_n_modules;

/* ---- PCIe link decoding (pure functions, unit-tested) ------------------- */
/* LNKCAP (cap + 0x0c) and LNKSTA (cap + 0x12) of the PCI Express capability
 * (libpci's PCI_EXP_LNKCAP/LNKSTA) share the speed and width fields. */

/* Per-lane, per-direction GB/s after line encoding; 0 for an unknown gen. */
double probe_pcie_lane_gbs(int gen);
/* Speed field (bits 3:0) and width field (bits 9:4) of LNKCAP or LNKSTA. */
int probe_pcie_speed_field(uint32_t reg);
int probe_pcie_width_field(uint32_t reg);
/* Fills gen/width max (LNKCAP), current (LNKSTA) and the theoretical GB/s. */
void probe_pcie_decode(uint32_t lnkcap, uint16_t lnksta, probe_link *l);
/* sysfs "16.0 GT/s PCIe" -> 4; 0 when unrecognised. */
int probe_pcie_gen_from_text(const char *speed);
/* "0000:65:00.0" or "00000000:65:00.0" -> canonical "0000:65:00.0". */
bool probe_pcie_bus_id_parse(const char *s, unsigned *dom, unsigned *bus, unsigned *dev, unsigned *fn);

/* ---- the bus: libpci, sysfs and hwloc ----------------------------------- */
typedef struct probe_bus {
    struct pci_access *pacc;     /* NULL when libpci could not start */
    hwloc_topology_t topo;       /* with PCI objects; NULL when unavailable */
    hwloc_bitmap_t saved_cpubind;
    bool pinned;
} probe_bus;

void probe_bus_open(probe_bus *b);
void probe_bus_close(probe_bus *b);
/* Link capability and status of one PCI device: config space through
 * libpci, or the sysfs link files when config space is denied. false when
 * neither works (not PCIe, or no such device). */
bool probe_bus_link(probe_bus *b, const char *bus_id, probe_link *l);
/* Reads the current link status only (during a transfer). */
bool probe_bus_link_now(probe_bus *b, const char *bus_id, int *gen, int *width);
/* NUMA node nearest the device, -1 when unknown. */
int probe_bus_numa(probe_bus *b, const char *bus_id);
/* Pins the calling thread to the CPUs near the device; unpin restores. */
bool probe_bus_pin(probe_bus *b, const char *bus_id);
void probe_bus_unpin(probe_bus *b);
/* Lists NVMe controllers with their links into p->nvme. */
void probe_bus_nvme(probe_bus *b, probe_profile *p);

/* ---- the APIs ----------------------------------------------------------- */
/* Both append devices to p->gpus and write one line into note on trouble. */
void probe_cuda(probe_profile *p, const probe_options *opt, probe_bus *bus, char *note, size_t cap);
/* skip_nvidia: CUDA already listed NVIDIA devices; do not count them twice. */
void probe_opencl(probe_profile *p, const probe_options *opt, bool skip_nvidia, char *note, size_t cap);

#endif

/* NVIDIA GPUs through the CUDA driver API, loaded with dlopen("libcuda.so.1"):
 * no CUDA is needed to build or run fitcheck. The few types, enums and
 * functions used are declared here; the versioned _v2 symbols are the real
 * ones (the unversioned names are 32-bit-size leftovers or macros).
 *
 * Per device: what the driver says (name, bus id, compute capability, SMs,
 * memory clock and bus width, VRAM, L2), then what the device does (read and
 * copy bandwidth, host<->device transfers pinned and pageable, launch
 * latency, fp16/bf16 tensor throughput) with the PTX kernels of
 * probe/kernels. The first failing call ends the device's measurements
 * with one line in its note; the probe goes on with the next device. */
#include "probe/gpu_internal.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

#define CUDA_SUCCESS 0
#define CUDA_ERROR_NO_DEVICE 100

/* CUdevice_attribute values used (cuda.h, stable since CUDA 4-11). */
enum {
    CU_ATTR_CLOCK_RATE = 13,          /* kHz, SM clock */
    CU_ATTR_MULTIPROCESSOR_COUNT = 16,
    CU_ATTR_INTEGRATED = 18,
    CU_ATTR_MEMORY_CLOCK_RATE = 36,   /* kHz */
    CU_ATTR_GLOBAL_MEMORY_BUS_WIDTH = 37,
    CU_ATTR_L2_CACHE_SIZE = 38,
    CU_ATTR_CC_MAJOR = 75,
    CU_ATTR_CC_MINOR = 76,
    /* true on Grace Hopper and other ATS systems: the GPU shares host memory */
    CU_ATTR_PAGEABLE_USES_HOST_PAGE_TABLES = 100,
};

/* cuModuleLoadDataEx options: where the JIT writes why PTX did not load. */
#define CU_JIT_ERROR_LOG_BUFFER 5
#define CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES 6
#define CUDA_JIT_LOG_MAX 512
/* the loader's reason a libcuda did not load, kept for the note */
#define CUDA_DLERROR_MAX 160

/* Every driver entry point used: name (the real, versioned symbol) and
 * parameters. One table drives the struct, the dlsym loop and the error
 * message naming a symbol an old driver lacks. */
#define CUDA_SYMBOLS(X)                                                                                 \
    X(cuInit, (unsigned int flags))                                                                     \
    X(cuGetErrorString, (CUresult r, const char **s))                                                   \
    X(cuDriverGetVersion, (int *version))                                                               \
    X(cuDeviceGetCount, (int *count))                                                                   \
    X(cuDeviceGet, (CUdevice * dev, int ordinal))                                                       \
    X(cuDeviceGetName, (char *name, int len, CUdevice dev))                                             \
    X(cuDeviceGetAttribute, (int *value, int attrib, CUdevice dev))                                     \
    X(cuDeviceGetPCIBusId, (char *id, int len, CUdevice dev))                                           \
    X(cuDeviceTotalMem_v2, (size_t * bytes, CUdevice dev))                                              \
    X(cuDevicePrimaryCtxRetain, (CUcontext * ctx, CUdevice dev))                                        \
    X(cuDevicePrimaryCtxRelease_v2, (CUdevice dev))                                                     \
    X(cuCtxSetCurrent, (CUcontext ctx))                                                                 \
    X(cuCtxSynchronize, (void))                                                                         \
    X(cuMemGetInfo_v2, (size_t * free_bytes, size_t * total_bytes))                                     \
    X(cuMemAlloc_v2, (CUdeviceptr * p, size_t bytes))                                                   \
    X(cuMemFree_v2, (CUdeviceptr p))                                                                    \
    X(cuMemAllocHost_v2, (void **p, size_t bytes))                                                      \
    X(cuMemFreeHost, (void *p))                                                                         \
    X(cuMemcpyHtoD_v2, (CUdeviceptr dst, const void *src, size_t bytes))                                \
    X(cuMemcpyDtoH_v2, (void *dst, CUdeviceptr src, size_t bytes))                                      \
    X(cuMemcpyHtoDAsync_v2, (CUdeviceptr dst, const void *src, size_t bytes, CUstream s))               \
    X(cuMemcpyDtoHAsync_v2, (void *dst, CUdeviceptr src, size_t bytes, CUstream s))                     \
    X(cuMemcpyDtoDAsync_v2, (CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s))               \
    X(cuStreamCreate, (CUstream * s, unsigned int flags))                                               \
    X(cuStreamDestroy_v2, (CUstream s))                                                                 \
    X(cuStreamSynchronize, (CUstream s))                                                                \
    X(cuEventCreate, (CUevent * e, unsigned int flags))                                                 \
    X(cuEventDestroy_v2, (CUevent e))                                                                   \
    X(cuEventRecord, (CUevent e, CUstream s))                                                           \
    X(cuEventSynchronize, (CUevent e))                                                                  \
    X(cuEventElapsedTime, (float *ms, CUevent start, CUevent stop))                                     \
    X(cuModuleLoadDataEx, (CUmodule * m, const void *image, unsigned int n, int *opts, void **vals))    \
    X(cuModuleUnload, (CUmodule m))                                                                     \
    X(cuModuleGetFunction, (CUfunction * f, CUmodule m, const char *name))                              \
    X(cuLaunchKernel, (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,   \
                       unsigned bz, unsigned shmem, CUstream s, void **params, void **extra))

typedef struct cuda_api {
    void *lib;
#define CUDA_FIELD(name, params) CUresult(*name) params;
    CUDA_SYMBOLS(CUDA_FIELD)
#undef CUDA_FIELD
} cuda_api;

static const struct {
    const char *name;
    size_t offset;
} cuda_symbols[] = {
#define CUDA_ENTRY(name, params) {#name, offsetof(cuda_api, name)},
    CUDA_SYMBOLS(CUDA_ENTRY)
#undef CUDA_ENTRY
};

/* ---- measurement shapes -------------------------------------------------- */
#define CUDA_THREADS 256            /* threads per block for every kernel */
#define CUDA_READ_BLOCKS_PER_SM 8   /* 2048 resident threads per SM */
#define CUDA_COMPUTE_BLOCKS_PER_SM 4
#define CUDA_MMA_ITERS 4096
/* fc_mma.cu: FC_MMA_CHAINS (4) mma.sync m16n8k16 per iteration per warp,
 * each 2 x 16 x 8 x 16 = 4096 flops. */
#define CUDA_MMA_FLOPS_PER_WARP_ITER (4.0 * 4096.0)
/* fc_stream.cu fc_fma: FC_FMA_CHAINS (8) fused multiply-adds of 2 flops
 * per iteration per thread. */
#define CUDA_FMA_ITERS 16384
#define CUDA_FMA_FLOPS_PER_THREAD_ITER (8.0 * 2.0)
#define CUDA_WARP 32
#define CUDA_HOLD_MS 2              /* spin kernel holding the stream while copies queue */
#define CUDA_CLOCK_KHZ_DEFAULT 1000000 /* SM clock assumed for the spin when the driver is silent */
#define CUDA_MIN_BUFFER ((uint64_t)16 << 20)
#define CUDA_ROUND ((uint64_t)1 << 20)
/* VRAM used by others beyond our own context before the note says so. */
#define CUDA_BUSY_BYTES ((uint64_t)1 << 30)
#define CUDA_FILL_SEED 0x5eed1234u

typedef struct cuda_dev {
    const cuda_api *cu;
    probe_gpu *g;
    CUdevice dev;
    CUcontext ctx;
    CUstream stream;
    CUevent ev_start, ev_stop;
    CUmodule mod_stream, mod_mma;
    CUfunction fn_fill, fn_read, fn_empty, fn_spin, fn_fma, fn_mma_f16, fn_mma_bf16;
    CUdeviceptr buf_a, buf_b, sink;
    uint64_t buf_bytes;
    int sms, clock_khz, samples, reps;
    bool failed; /* a call failed: its line is in g->note, stop measuring */
} cuda_dev;

/* Checks one driver call: on failure the first error goes into the note. */
static bool cuda_ok(cuda_dev *d, CUresult r, const char *what) {
    if (r == CUDA_SUCCESS)
        return !d->failed;
    if (!d->failed) {
        const char *s = NULL;
        if (d->cu->cuGetErrorString(r, &s) != CUDA_SUCCESS || !s)
            s = "unknown error";
        probe_gpu_note_add(d->g->note, sizeof d->g->note, "%s failed: %s (%d)", what, s, r);
    }
    d->failed = true;
    return false;
}
#define CUDA_OK(d, fn, args) cuda_ok((d), (d)->cu->fn args, #fn)

/* ---- loading the driver --------------------------------------------------- */
/* Where libcuda.so.1 is looked for, in order. The bare name first: the
 * loader's own path (LD_LIBRARY_PATH, ld.so.cache) is what the machine set
 * up. Then the driver's usual folders, because a process started without
 * that setup (a plain shell in a container, the packed bundle's loader) does
 * not search them: the NVIDIA Container Toolkit and GKE mount the driver
 * under /usr/local/nvidia/lib64 (a read-only mount on the H200 machines
 * lent here), Debian and Ubuntu packages install it in the multiarch folder,
 * RHEL in /usr/lib64, WSL in /usr/lib/wsl/lib. No stubs folder: the toolkit's
 * stub libcuda only fails cuInit. */
static const char *const cuda_lib_names[] = {
    "libcuda.so.1",
    "/usr/local/nvidia/lib64/libcuda.so.1",
    "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
    "/usr/lib/aarch64-linux-gnu/libcuda.so.1",
    "/usr/lib64/libcuda.so.1",
    "/usr/local/cuda/lib64/libcuda.so.1",
    "/usr/lib/wsl/lib/libcuda.so.1",
};

/* The first libcuda.so.1 that loads is the driver: a later one that would
 * have had the symbols is not tried, since mixing drivers is worse than a
 * clear note. A libcuda that is there but does not load (a library it needs
 * is missing, or wants a newer glibc than the process has) is named with the
 * loader's reason: "not found" would send the reader looking elsewhere. */
static bool cuda_load(cuda_api *cu, char *note, size_t cap) {
    char why[CUDA_DLERROR_MAX] = "";
    memset(cu, 0, sizeof *cu);
    for (size_t i = 0; i < FC_ARRAY_LEN(cuda_lib_names) && !cu->lib; i++) {
        cu->lib = dlopen(cuda_lib_names[i], RTLD_NOW | RTLD_LOCAL);
        const char *e = cu->lib ? NULL : dlerror();
        /* glibc's reason for a file that is not there is strerror(ENOENT) */
        if (e && !why[0] && !strstr(e, "No such file or directory"))
            snprintf(why, sizeof why, "%s", e);
    }
    if (!cu->lib) {
        if (why[0])
            probe_gpu_note_add(note, cap, "NVIDIA driver not loadable: %s", why);
        else
            probe_gpu_note_add(note, cap, "no NVIDIA driver (libcuda.so.1 not found)");
        return false;
    }
    for (size_t i = 0; i < FC_ARRAY_LEN(cuda_symbols); i++) {
        void *sym = dlsym(cu->lib, cuda_symbols[i].name);
        if (!sym) {
            probe_gpu_note_add(note, cap, "NVIDIA driver too old: libcuda.so.1 lacks %s", cuda_symbols[i].name);
            dlclose(cu->lib);
            cu->lib = NULL;
            return false;
        }
        memcpy((char *)cu + cuda_symbols[i].offset, &sym, sizeof sym);
    }
    return true;
}

/* ---- what the driver says ------------------------------------------------- */
/* 0 when the driver does not answer: some attributes are deprecated in newer
 * drivers, and a missing figure must not stop the measurements. */
static int cuda_attr(cuda_dev *d, int attr) {
    int v = 0;
    return d->cu->cuDeviceGetAttribute(&v, attr, d->dev) == CUDA_SUCCESS ? v : 0;
}

static bool cuda_describe(cuda_dev *d) {
    probe_gpu *g = d->g;
    snprintf(g->api, sizeof g->api, "cuda");
    snprintf(g->vendor, sizeof g->vendor, "NVIDIA");
    g->numa_node = -1;
    if (!CUDA_OK(d, cuDeviceGetName, (g->name, (int)sizeof g->name, d->dev)))
        return false;
    char bus[64] = "";
    unsigned dom, b, dv, fn;
    if (CUDA_OK(d, cuDeviceGetPCIBusId, (bus, (int)sizeof bus, d->dev)) &&
        probe_pcie_bus_id_parse(bus, &dom, &b, &dv, &fn))
        snprintf(g->pci_bus_id, sizeof g->pci_bus_id, "%04x:%02x:%02x.%x", dom, b, dv, fn);
    g->cc_major = cuda_attr(d, CU_ATTR_CC_MAJOR);
    g->cc_minor = cuda_attr(d, CU_ATTR_CC_MINOR);
    d->sms = g->compute_units = cuda_attr(d, CU_ATTR_MULTIPROCESSOR_COUNT);
    d->clock_khz = cuda_attr(d, CU_ATTR_CLOCK_RATE);
    if (d->clock_khz <= 0)
        d->clock_khz = CUDA_CLOCK_KHZ_DEFAULT;
    g->l2_bytes = (uint64_t)cuda_attr(d, CU_ATTR_L2_CACHE_SIZE);
    g->mem_bus_width_bits = cuda_attr(d, CU_ATTR_GLOBAL_MEMORY_BUS_WIDTH);
    g->mem_clock_mhz = cuda_attr(d, CU_ATTR_MEMORY_CLOCK_RATE) / 1e3;
    /* double data rate: two transfers per clock on every bus-width bit */
    g->theoretical_gbs = 2.0 * g->mem_clock_mhz * 1e6 * g->mem_bus_width_bits / 8.0 / 1e9;
    if (g->theoretical_gbs <= 0)
        probe_gpu_note_add(g->note, sizeof g->note, "driver reports no memory clock or bus width");
    g->unified_memory = cuda_attr(d, CU_ATTR_INTEGRATED) || cuda_attr(d, CU_ATTR_PAGEABLE_USES_HOST_PAGE_TABLES);
    size_t total = 0;
    if (CUDA_OK(d, cuDeviceTotalMem_v2, (&total, d->dev)))
        g->vram_total = total;
    if (!d->failed && d->sms <= 0)
        probe_gpu_note_add(g->note, sizeof g->note, "driver reports no multiprocessors");
    return !d->failed && d->sms > 0;
}

/* ---- context, kernels, buffers ------------------------------------------- */
/* Loads a module from the first embedded PTX of that name the driver takes:
 * nvcc's when built with it, else (or on an older driver) the committed one.
 * A module that does not load leaves the context usable: the caller decides
 * whether the device's measurements can go on without it. */
static bool cuda_module(cuda_dev *d, const char *module, CUmodule *out) {
    char log[CUDA_JIT_LOG_MAX] = "";
    CUresult last = CUDA_SUCCESS;
    for (int i = 0; i < probe_ptx_n_modules; i++) {
        if (strcmp(probe_ptx_modules[i].module, module) != 0)
            continue;
        int opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
        void *vals[] = {log, (void *)(uintptr_t)sizeof log};
        last = d->cu->cuModuleLoadDataEx(out, probe_ptx_modules[i].text, 2, opts, vals);
        if (last == CUDA_SUCCESS)
            return true;
    }
    log[strcspn(log, "\n")] = '\0';
    const char *s = NULL;
    if (d->cu->cuGetErrorString(last, &s) != CUDA_SUCCESS || !s)
        s = "unknown error";
    probe_gpu_note_add(d->g->note, sizeof d->g->note, "PTX %s did not load: %s (%d) %.100s", module, s, last, log);
    return false;
}

static bool cuda_function(cuda_dev *d, CUmodule m, const char *name, CUfunction *f) {
    return CUDA_OK(d, cuModuleGetFunction, (f, m, name));
}

static bool cuda_open(cuda_dev *d) {
    size_t free_b = 0, total_b = 0;
    if (!CUDA_OK(d, cuDevicePrimaryCtxRetain, (&d->ctx, d->dev)) || !CUDA_OK(d, cuCtxSetCurrent, (d->ctx)) ||
        !CUDA_OK(d, cuMemGetInfo_v2, (&free_b, &total_b)))
        return false;
    d->g->vram_free = free_b;
    if (total_b)
        d->g->vram_total = total_b;
    /* our own context is already counted in; more than that is someone else */
    if (total_b - free_b > CUDA_BUSY_BYTES)
        probe_gpu_note_add(d->g->note, sizeof d->g->note, "%.1f GiB in use by others",
                           (double)(total_b - free_b) / FC_GIB);
    if (!cuda_module(d, "stream", &d->mod_stream)) {
        d->failed = true; /* nothing can be measured without the memory kernels */
        return false;
    }
    if (!cuda_function(d, d->mod_stream, "fc_fill", &d->fn_fill) ||
        !cuda_function(d, d->mod_stream, "fc_read", &d->fn_read) ||
        !cuda_function(d, d->mod_stream, "fc_empty", &d->fn_empty) ||
        !cuda_function(d, d->mod_stream, "fc_spin", &d->fn_spin) ||
        !cuda_function(d, d->mod_stream, "fc_fma", &d->fn_fma))
        return false;
    return CUDA_OK(d, cuStreamCreate, (&d->stream, 0)) && CUDA_OK(d, cuEventCreate, (&d->ev_start, 0)) &&
           CUDA_OK(d, cuEventCreate, (&d->ev_stop, 0));
}

static void cuda_close(cuda_dev *d) {
    const cuda_api *cu = d->cu;
    if (!d->ctx)
        return;
    /* after a failure the context may be unusable: release what we can,
     * statuses ignored on purpose (nothing left to report) */
    if (d->buf_a)
        cu->cuMemFree_v2(d->buf_a);
    if (d->buf_b)
        cu->cuMemFree_v2(d->buf_b);
    if (d->sink)
        cu->cuMemFree_v2(d->sink);
    if (d->ev_start)
        cu->cuEventDestroy_v2(d->ev_start);
    if (d->ev_stop)
        cu->cuEventDestroy_v2(d->ev_stop);
    if (d->stream)
        cu->cuStreamDestroy_v2(d->stream);
    if (d->mod_stream)
        cu->cuModuleUnload(d->mod_stream);
    if (d->mod_mma)
        cu->cuModuleUnload(d->mod_mma);
    cu->cuCtxSetCurrent(NULL);
    cu->cuDevicePrimaryCtxRelease_v2(d->dev);
    d->ctx = NULL;
}

/* Two device buffers of equal size, far larger than L2, within the share of
 * free VRAM we allow ourselves, filled with random data on the device. */
static bool cuda_buffers(cuda_dev *d, const probe_options *opt) {
    probe_gpu *g = d->g;
    uint64_t want = opt->quick ? PROBE_GPU_READ_BYTES_QUICK : PROBE_GPU_READ_BYTES;
    if (g->l2_bytes * PROBE_GPU_L2_FACTOR > want)
        want = g->l2_bytes * PROBE_GPU_L2_FACTOR;
    uint64_t allowed = (uint64_t)((double)g->vram_free * PROBE_GPU_VRAM_SHARE) / 2;
    uint64_t bytes = (want < allowed ? want : allowed) / CUDA_ROUND * CUDA_ROUND;
    if (bytes < CUDA_MIN_BUFFER) {
        probe_gpu_note_add(g->note, sizeof g->note, "too little free VRAM to measure");
        return false;
    }
    if (bytes < g->l2_bytes * PROBE_GPU_L2_FACTOR)
        probe_gpu_note_add(g->note, sizeof g->note, "read buffer only %.0fx L2", (double)bytes / g->l2_bytes);
    d->buf_bytes = bytes;
    if (!CUDA_OK(d, cuMemAlloc_v2, (&d->buf_a, bytes)) || !CUDA_OK(d, cuMemAlloc_v2, (&d->buf_b, bytes)) ||
        !CUDA_OK(d, cuMemAlloc_v2, (&d->sink, 64)))
        return false;
    unsigned long long words = bytes / 16;
    CUdeviceptr bufs[2] = {d->buf_a, d->buf_b};
    for (int i = 0; i < 2; i++) {
        unsigned int seed = CUDA_FILL_SEED + (unsigned)i;
        void *args[] = {&bufs[i], &words, &seed};
        if (!CUDA_OK(d, cuLaunchKernel,
                     (d->fn_fill, (unsigned)d->sms * CUDA_READ_BLOCKS_PER_SM, 1, 1, CUDA_THREADS, 1, 1, 0, d->stream,
                      args, NULL)))
            return false;
    }
    return CUDA_OK(d, cuStreamSynchronize, (d->stream));
}

/* ---- timing ---------------------------------------------------------------- */
/* One unit of timed work, queued d->reps times per sample. */
typedef struct cuda_work {
    CUfunction fn;            /* a kernel ... */
    unsigned grid;
    void **args;
    int copy;                 /* ... or a copy: 1 DtoD, 2 HtoD, 3 DtoH */
    void *host;
    uint64_t bytes;
    bool sync_copy;           /* pageable: synchronous copies on the host clock */
} cuda_work;

enum { CUDA_COPY_NONE, CUDA_COPY_DTOD, CUDA_COPY_HTOD, CUDA_COPY_DTOH };

static bool cuda_enqueue(cuda_dev *d, const cuda_work *w) {
    for (int r = 0; r < d->reps; r++) {
        bool ok;
        switch (w->copy) {
        case CUDA_COPY_DTOD:
            ok = CUDA_OK(d, cuMemcpyDtoDAsync_v2, (d->buf_b, d->buf_a, w->bytes, d->stream));
            break;
        case CUDA_COPY_HTOD:
            ok = w->sync_copy ? CUDA_OK(d, cuMemcpyHtoD_v2, (d->buf_a, w->host, w->bytes))
                              : CUDA_OK(d, cuMemcpyHtoDAsync_v2, (d->buf_a, w->host, w->bytes, d->stream));
            break;
        case CUDA_COPY_DTOH:
            ok = w->sync_copy ? CUDA_OK(d, cuMemcpyDtoH_v2, (w->host, d->buf_a, w->bytes))
                              : CUDA_OK(d, cuMemcpyDtoHAsync_v2, (w->host, d->buf_a, w->bytes, d->stream));
            break;
        default:
            ok = CUDA_OK(d, cuLaunchKernel,
                         (w->fn, w->grid, 1, 1, CUDA_THREADS, 1, 1, 0, d->stream, w->args, NULL));
        }
        if (!ok)
            return false;
    }
    return true;
}

/* Median over samples of `amount` units per sample per second / 1e9: GB/s
 * for bytes, GFLOP/s for flops. Device work is timed with events behind a
 * spin kernel (queueing gaps do not count, as in nvbandwidth); synchronous
 * pageable copies with the host clock. One warm-up sample is discarded. */
static double cuda_time(cuda_dev *d, const cuda_work *w, double amount) {
    double v[PROBE_GPU_MAX_SAMPLES];
    long long hold = (long long)d->clock_khz * CUDA_HOLD_MS;
    void *hold_args[] = {&hold};
    for (int s = -1; s < d->samples; s++) {
        float ms = 0;
        if (w->sync_copy) {
            double t0 = fc_now();
            if (!cuda_enqueue(d, w) || !CUDA_OK(d, cuCtxSynchronize, ()))
                return 0;
            ms = (float)((fc_now() - t0) * 1e3);
        } else if (!CUDA_OK(d, cuLaunchKernel, (d->fn_spin, 1, 1, 1, 1, 1, 1, 0, d->stream, hold_args, NULL)) ||
                   !CUDA_OK(d, cuEventRecord, (d->ev_start, d->stream)) || !cuda_enqueue(d, w) ||
                   !CUDA_OK(d, cuEventRecord, (d->ev_stop, d->stream)) ||
                   !CUDA_OK(d, cuEventSynchronize, (d->ev_stop)) ||
                   !CUDA_OK(d, cuEventElapsedTime, (&ms, d->ev_start, d->ev_stop))) {
            return 0;
        }
        if (s >= 0)
            v[s] = ms > 0 ? amount * d->reps / (ms * 1e-3) / 1e9 : 0;
    }
    return probe_gpu_median(v, d->samples);
}

/* ---- the measurements ------------------------------------------------------ */
static void cuda_measure_memory(cuda_dev *d) {
    unsigned long long words = d->buf_bytes / 16;
    void *args[] = {&d->buf_a, &words, &d->sink};
    cuda_work read = {.fn = d->fn_read, .grid = (unsigned)d->sms * CUDA_READ_BLOCKS_PER_SM, .args = args};
    d->g->read_gbs = cuda_time(d, &read, (double)d->buf_bytes);
    /* a device-local copy counts each byte once, as nvbandwidth does (the
     * memory moves twice that: one read and one write) */
    cuda_work copy = {.copy = CUDA_COPY_DTOD, .bytes = d->buf_bytes};
    if (!d->failed)
        d->g->copy_gbs = cuda_time(d, &copy, (double)d->buf_bytes);
}

/* Host time per launch of an empty kernel, launches queued back to back as
 * an inference engine queues its per-layer kernels. */
static void cuda_measure_launch(cuda_dev *d) {
    double v[PROBE_GPU_MAX_SAMPLES];
    for (int s = -1; s < d->samples && !d->failed; s++) {
        double t0 = fc_now();
        for (int i = 0; i < PROBE_GPU_LAUNCHES; i++)
            if (!CUDA_OK(d, cuLaunchKernel, (d->fn_empty, 1, 1, 1, CUDA_WARP, 1, 1, 0, d->stream, NULL, NULL)))
                return;
        if (!CUDA_OK(d, cuStreamSynchronize, (d->stream)))
            return;
        if (s >= 0)
            v[s] = (fc_now() - t0) / PROBE_GPU_LAUNCHES * 1e6;
    }
    d->g->launch_us = probe_gpu_median(v, d->samples);
}

/* fp32 on the CUDA cores, then fp16/bf16 on the tensor cores. */
static void cuda_measure_compute(cuda_dev *d) {
    probe_gpu *g = d->g;
    int fma_iters = CUDA_FMA_ITERS;
    unsigned fma_grid = (unsigned)d->sms * CUDA_COMPUTE_BLOCKS_PER_SM;
    void *fma_args[] = {&fma_iters, &d->sink};
    cuda_work fma = {.fn = d->fn_fma, .grid = fma_grid, .args = fma_args};
    double fma_flops = (double)fma_grid * CUDA_THREADS * fma_iters * CUDA_FMA_FLOPS_PER_THREAD_ITER;
    g->fp32_tflops = cuda_time(d, &fma, fma_flops) / 1e3;
    if (d->failed)
        return;
    if (g->cc_major < 8) {
        probe_gpu_note_add(g->note, sizeof g->note, "no tensor-core test: mma.sync bf16 needs sm_80");
        return;
    }
    if (!cuda_module(d, "mma", &d->mod_mma) || !cuda_function(d, d->mod_mma, "fc_mma_f16", &d->fn_mma_f16) ||
        !cuda_function(d, d->mod_mma, "fc_mma_bf16", &d->fn_mma_bf16))
        return;
    int iters = CUDA_MMA_ITERS;
    unsigned grid = (unsigned)d->sms * CUDA_COMPUTE_BLOCKS_PER_SM;
    double flops = (double)grid * (CUDA_THREADS / CUDA_WARP) * iters * CUDA_MMA_FLOPS_PER_WARP_ITER;
    void *args[] = {&iters, &d->sink};
    cuda_work f16 = {.fn = d->fn_mma_f16, .grid = grid, .args = args};
    cuda_work bf16 = {.fn = d->fn_mma_bf16, .grid = grid, .args = args};
    g->fp16_tflops = cuda_time(d, &f16, flops) / 1e3;
    if (!d->failed)
        g->bf16_tflops = cuda_time(d, &bf16, flops) / 1e3;
}

/* The link status while copies run: idle links train down to save power. */
static void cuda_link_loaded(cuda_dev *d, probe_bus *bus, cuda_work *h2d) {
    probe_gpu *g = d->g;
    if (!g->pci_bus_id[0] || !cuda_enqueue(d, h2d))
        return;
    probe_bus_link_now(bus, g->pci_bus_id, &g->link.gen_loaded, &g->link.width_loaded);
    CUDA_OK(d, cuStreamSynchronize, (d->stream));
}

/* Host<->device copies from pinned and from pageable memory, with the host
 * thread (and so the first touch of the host buffers) on the GPU's node. */
static void cuda_measure_transfers(cuda_dev *d, const probe_options *opt, probe_bus *bus) {
    probe_gpu *g = d->g;
    uint64_t bytes = opt->quick ? PROBE_GPU_XFER_BYTES_QUICK : PROBE_GPU_XFER_BYTES;
    uint64_t host_cap = (uint64_t)((double)probe_gpu_host_free() * PROBE_GPU_HOST_SHARE) / 2;
    if (bytes > host_cap)
        bytes = host_cap / CUDA_ROUND * CUDA_ROUND;
    if (bytes > d->buf_bytes)
        bytes = d->buf_bytes;
    if (bytes < CUDA_MIN_BUFFER) {
        probe_gpu_note_add(g->note, sizeof g->note, "too little free host memory for transfers");
        return;
    }
    bool pinned_thread = g->pci_bus_id[0] && probe_bus_pin(bus, g->pci_bus_id);
    void *pinned = NULL;
    void *pageable = malloc(bytes);
    if (!pageable) {
        probe_gpu_note_add(g->note, sizeof g->note, "no host memory for transfers");
    } else if (CUDA_OK(d, cuMemAllocHost_v2, (&pinned, bytes))) {
        memset(pinned, 0x5a, bytes);
        memset(pageable, 0x5a, bytes); /* fault the pages in before timing */
        cuda_work w = {.copy = CUDA_COPY_HTOD, .host = pinned, .bytes = bytes};
        g->h2d_pinned_gbs = cuda_time(d, &w, (double)bytes);
        cuda_link_loaded(d, bus, &w);
        w.copy = CUDA_COPY_DTOH;
        if (!d->failed)
            g->d2h_pinned_gbs = cuda_time(d, &w, (double)bytes);
        w = (cuda_work){.copy = CUDA_COPY_HTOD, .host = pageable, .bytes = bytes, .sync_copy = true};
        if (!d->failed)
            g->h2d_pageable_gbs = cuda_time(d, &w, (double)bytes);
        w.copy = CUDA_COPY_DTOH;
        if (!d->failed)
            g->d2h_pageable_gbs = cuda_time(d, &w, (double)bytes);
    }
    if (pinned)
        d->cu->cuMemFreeHost(pinned);
    free(pageable);
    if (pinned_thread)
        probe_bus_unpin(bus);
}

static void cuda_probe_device(const cuda_api *cu, int ordinal, probe_gpu *g, const probe_options *opt,
                              probe_bus *bus) {
    cuda_dev d = {.cu = cu, .g = g};
    d.samples = opt->quick ? PROBE_GPU_SAMPLES_QUICK : PROBE_GPU_SAMPLES;
    d.reps = opt->quick ? PROBE_GPU_REPS_QUICK : PROBE_GPU_REPS;
    if (!CUDA_OK(&d, cuDeviceGet, (&d.dev, ordinal)) || !cuda_describe(&d))
        return;
    if (g->pci_bus_id[0]) {
        g->numa_node = probe_bus_numa(bus, g->pci_bus_id);
        if (!probe_bus_link(bus, g->pci_bus_id, &g->link))
            probe_gpu_note_add(g->note, sizeof g->note, "PCIe link not readable");
    }
    if (cuda_open(&d) && cuda_buffers(&d, opt)) {
        cuda_measure_memory(&d);
        if (!d.failed)
            cuda_measure_launch(&d);
        if (!d.failed)
            cuda_measure_compute(&d);
        if (!d.failed)
            cuda_measure_transfers(&d, opt, bus);
    }
    cuda_close(&d);
}

void probe_cuda(probe_profile *p, const probe_options *opt, probe_bus *bus, char *note, size_t cap) {
    cuda_api cu;
    if (!cuda_load(&cu, note, cap))
        return;
    int count = 0;
    CUresult r = cu.cuInit(0);
    if (r == CUDA_SUCCESS)
        r = cu.cuDeviceGetCount(&count);
    if (r == CUDA_ERROR_NO_DEVICE || (r == CUDA_SUCCESS && count == 0)) {
        probe_gpu_note_add(note, cap, "NVIDIA driver found, no CUDA device");
    } else if (r != CUDA_SUCCESS) {
        const char *s = NULL;
        if (cu.cuGetErrorString(r, &s) != CUDA_SUCCESS || !s)
            s = "unknown error";
        probe_gpu_note_add(note, cap, "CUDA driver failed to start: %s (%d)", s, r);
    }
    for (int i = 0; i < count && p->n_gpus < PROBE_MAX_GPUS && !fc_interrupted; i++) {
        probe_gpu *g = &p->gpus[p->n_gpus++];
        memset(g, 0, sizeof *g);
        cuda_probe_device(&cu, i, g, opt, bus);
    }
    /* libcuda is not unloaded: the driver keeps threads that outlive contexts */
}

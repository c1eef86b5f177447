/* OpenCL devices, loaded with dlopen("libOpenCL.so.1") (the ICD loader):
 * AMD and Intel GPUs, and PoCL, which exposes this CPU as an OpenCL device
 * and so gives every machine (and CI) a real device to measure. Types and
 * enums come from the OpenCL 1.2 headers, declared here so nothing OpenCL is
 * needed to build. Per device: global memory, largest allocation, compute
 * units, cache; measured with a profiling queue: read-kernel bandwidth and
 * host<->device transfers from ordinary (pageable) host memory. */
#include "probe/gpu_internal.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef cl_uint cl_bool;
typedef cl_ulong cl_bitfield;
typedef struct _cl_platform_id *cl_platform_id;
typedef struct _cl_device_id *cl_device_id;
typedef struct _cl_context *cl_context;
typedef struct _cl_command_queue *cl_command_queue;
typedef struct _cl_mem *cl_mem;
typedef struct _cl_program *cl_program;
typedef struct _cl_kernel *cl_kernel;
typedef struct _cl_event *cl_event;

#define CL_SUCCESS 0
#define CL_TRUE 1
#define CL_DEVICE_TYPE_CPU (1u << 1)
#define CL_DEVICE_TYPE_ALL 0xFFFFFFFFu
#define CL_DEVICE_TYPE 0x1000
#define CL_DEVICE_VENDOR_ID 0x1001
#define CL_DEVICE_MAX_COMPUTE_UNITS 0x1002
#define CL_DEVICE_MAX_MEM_ALLOC_SIZE 0x1010
#define CL_DEVICE_GLOBAL_MEM_CACHE_SIZE 0x101E
#define CL_DEVICE_GLOBAL_MEM_SIZE 0x101F
#define CL_DEVICE_NAME 0x102B
#define CL_DEVICE_VENDOR 0x102C
#define CL_DEVICE_HOST_UNIFIED_MEMORY 0x1035
/* cl_khr_pci_bus_info: where the device sits on PCI, for its link */
#define CL_DEVICE_PCI_BUS_INFO_KHR 0x410F

typedef struct ocl_pci_bus_info {
    cl_uint domain, bus, device, function;
} ocl_pci_bus_info;
#define CL_QUEUE_PROFILING_ENABLE (1u << 1)
#define CL_MEM_READ_WRITE (1u << 0)
#define CL_PROGRAM_BUILD_LOG 0x1183
#define CL_PROFILING_COMMAND_START 0x1282
#define CL_PROFILING_COMMAND_END 0x1283

/* PCI vendor id of NVIDIA: those devices are measured through CUDA. */
#define OCL_VENDOR_NVIDIA 0x10DEu
#define OCL_MAX_PLATFORMS 8
#define OCL_MAX_DEVICES 16
#define OCL_ITEMS_PER_CU 1024
#define OCL_LOG_MAX 160
#define OCL_MIN_BUFFER ((uint64_t)4 << 20)

#define OCL_SYMBOLS(X)                                                                                      \
    X(cl_int, clGetPlatformIDs, (cl_uint n, cl_platform_id * ids, cl_uint * count))                           \
    X(cl_int, clGetDeviceIDs, (cl_platform_id p, cl_bitfield type, cl_uint n, cl_device_id * ids, cl_uint * count)) \
    X(cl_int, clGetDeviceInfo, (cl_device_id d, cl_uint what, size_t size, void *val, size_t *ret))          \
    X(cl_context, clCreateContext, (const intptr_t *props, cl_uint n, const cl_device_id *devs, void *notify, \
                                    void *user, cl_int *err))                                                 \
    X(cl_int, clReleaseContext, (cl_context c))                                                               \
    X(cl_command_queue, clCreateCommandQueue, (cl_context c, cl_device_id d, cl_bitfield props, cl_int * err)) \
    X(cl_int, clReleaseCommandQueue, (cl_command_queue q))                                                    \
    X(cl_mem, clCreateBuffer, (cl_context c, cl_bitfield flags, size_t size, void *host, cl_int *err))       \
    X(cl_int, clReleaseMemObject, (cl_mem m))                                                                 \
    X(cl_program, clCreateProgramWithSource, (cl_context c, cl_uint n, const char **src, const size_t *lens, \
                                              cl_int *err))                                                   \
    X(cl_int, clBuildProgram, (cl_program p, cl_uint n, const cl_device_id *devs, const char *opts,         \
                               void *notify, void *user))                                                     \
    X(cl_int, clGetProgramBuildInfo, (cl_program p, cl_device_id d, cl_uint what, size_t size, void *val,    \
                                      size_t *ret))                                                           \
    X(cl_int, clReleaseProgram, (cl_program p))                                                               \
    X(cl_kernel, clCreateKernel, (cl_program p, const char *name, cl_int *err))                               \
    X(cl_int, clReleaseKernel, (cl_kernel k))                                                                 \
    X(cl_int, clSetKernelArg, (cl_kernel k, cl_uint i, size_t size, const void *val))                        \
    X(cl_int, clEnqueueNDRangeKernel, (cl_command_queue q, cl_kernel k, cl_uint dims, const size_t *offset,  \
                                       const size_t *global, const size_t *local, cl_uint nwait,             \
                                       const cl_event *wait, cl_event *ev))                                   \
    X(cl_int, clEnqueueWriteBuffer, (cl_command_queue q, cl_mem m, cl_bool block, size_t off, size_t size,   \
                                     const void *src, cl_uint nwait, const cl_event *wait, cl_event *ev))     \
    X(cl_int, clEnqueueReadBuffer, (cl_command_queue q, cl_mem m, cl_bool block, size_t off, size_t size,    \
                                    void *dst, cl_uint nwait, const cl_event *wait, cl_event *ev))            \
    X(cl_int, clFinish, (cl_command_queue q))                                                                 \
    X(cl_int, clGetEventProfilingInfo, (cl_event e, cl_uint what, size_t size, void *val, size_t *ret))      \
    X(cl_int, clReleaseEvent, (cl_event e))

typedef struct ocl_api {
    void *lib;
#define OCL_FIELD(ret, name, params) ret(*name) params;
    OCL_SYMBOLS(OCL_FIELD)
#undef OCL_FIELD
} ocl_api;

static const struct {
    const char *name;
    size_t offset;
} ocl_symbols[] = {
#define OCL_ENTRY(ret, name, params) {#name, offsetof(ocl_api, name)},
    OCL_SYMBOLS(OCL_ENTRY)
#undef OCL_ENTRY
};

/* The read kernels, both 16-byte loads with the store only under a condition
 * the random fill never meets. GPUs: grid-stride (neighbouring work-items
 * read neighbouring words, which coalesces). CPUs: one contiguous slice per
 * work-item, because a CPU runs each work-item's loop on its own and the
 * grid stride would turn into a cache-hostile strided walk. */
static const char ocl_read_src[] =
    "__kernel void fc_read(__global const uint4 *p, ulong n, __global uint4 *sink) {\n"
    "    uint4 acc = (uint4)(0);\n"
    "    for (ulong i = get_global_id(0); i < n; i += get_global_size(0))\n"
    "        acc ^= p[i];\n"
    "    if (acc.x == 0x7fc0ffeeu && acc.y == 0x7fc0ffeeu)\n"
    "        sink[0] = acc;\n"
    "}\n"
    "__kernel void fc_read_slice(__global const uint4 *p, ulong n, __global uint4 *sink) {\n"
    "    ulong per = (n + get_global_size(0) - 1) / get_global_size(0);\n"
    "    ulong lo = get_global_id(0) * per, hi = min(lo + per, n);\n"
    "    uint4 acc = (uint4)(0);\n"
    "    for (ulong i = lo; i < hi; i++)\n"
    "        acc ^= p[i];\n"
    "    if (acc.x == 0x7fc0ffeeu && acc.y == 0x7fc0ffeeu)\n"
    "        sink[0] = acc;\n"
    "}\n";

typedef struct ocl_dev {
    const ocl_api *cl;
    probe_gpu *g;
    cl_device_id id;
    cl_context ctx;
    cl_command_queue queue;
    cl_program prog;
    cl_kernel kernel;
    cl_mem buf, sink;
    void *host;
    uint64_t bytes;
    bool cpu;        /* a CPU device: the slice kernel, one work-item per core */
    int samples, reps;
    bool failed;
} ocl_dev;

static bool ocl_ok(ocl_dev *d, cl_int r, const char *what) {
    if (r == CL_SUCCESS)
        return !d->failed;
    if (!d->failed)
        probe_gpu_note_add(d->g->note, sizeof d->g->note, "%s failed (%d)", what, (int)r);
    d->failed = true;
    return false;
}
#define OCL_OK(d, fn, args) ocl_ok((d), (d)->cl->fn args, #fn)

static bool ocl_load(ocl_api *cl, char *note, size_t cap) {
    memset(cl, 0, sizeof *cl);
    cl->lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!cl->lib) {
        probe_gpu_note_add(note, cap, "no OpenCL loader (libOpenCL.so.1 not found)");
        return false;
    }
    for (size_t i = 0; i < FC_ARRAY_LEN(ocl_symbols); i++) {
        void *sym = dlsym(cl->lib, ocl_symbols[i].name);
        if (!sym) {
            probe_gpu_note_add(note, cap, "OpenCL loader lacks %s", ocl_symbols[i].name);
            dlclose(cl->lib);
            cl->lib = NULL;
            return false;
        }
        memcpy((char *)cl + ocl_symbols[i].offset, &sym, sizeof sym);
    }
    return true;
}

static cl_ulong ocl_info_ulong(ocl_dev *d, cl_uint what) {
    cl_ulong v = 0;
    return OCL_OK(d, clGetDeviceInfo, (d->id, what, sizeof v, &v, NULL)) ? v : 0;
}

static cl_uint ocl_info_uint(ocl_dev *d, cl_uint what) {
    cl_uint v = 0;
    return OCL_OK(d, clGetDeviceInfo, (d->id, what, sizeof v, &v, NULL)) ? v : 0;
}

static void ocl_describe(ocl_dev *d) {
    probe_gpu *g = d->g;
    snprintf(g->api, sizeof g->api, "opencl");
    g->numa_node = -1;
    /* the string queries fill at most size-1 bytes and always terminate */
    OCL_OK(d, clGetDeviceInfo, (d->id, CL_DEVICE_NAME, sizeof g->name - 1, g->name, NULL));
    OCL_OK(d, clGetDeviceInfo, (d->id, CL_DEVICE_VENDOR, sizeof g->vendor - 1, g->vendor, NULL));
    g->compute_units = (int)ocl_info_uint(d, CL_DEVICE_MAX_COMPUTE_UNITS);
    g->vram_total = ocl_info_ulong(d, CL_DEVICE_GLOBAL_MEM_SIZE);
    g->max_alloc = ocl_info_ulong(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    g->l2_bytes = ocl_info_ulong(d, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE);
    /* a CPU device is host memory by definition; HOST_UNIFIED_MEMORY says so
     * for integrated GPUs (deprecated in 2.0 but still answered) */
    /* optional (an extension): asked directly, its absence is no failure */
    ocl_pci_bus_info pci;
    if (d->cl->clGetDeviceInfo(d->id, CL_DEVICE_PCI_BUS_INFO_KHR, sizeof pci, &pci, NULL) == CL_SUCCESS)
        snprintf(g->pci_bus_id, sizeof g->pci_bus_id, "%04x:%02x:%02x.%x", pci.domain & 0xffff, pci.bus & 0xff,
                 pci.device & 0x1f, pci.function & 0x7);
    d->cpu = (ocl_info_ulong(d, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_CPU) != 0;
    g->unified_memory = d->cpu || ocl_info_uint(d, CL_DEVICE_HOST_UNIFIED_MEMORY);
}

/* Buffer size: the target, at least 16x the cache, within the largest
 * allocation, the device-memory share and the host-memory share (the host
 * copy is the same size; for unified devices both are host RAM). */
static uint64_t ocl_buffer_bytes(const probe_gpu *g, const probe_options *opt) {
    uint64_t want = opt->quick ? PROBE_GPU_XFER_BYTES_QUICK : PROBE_GPU_XFER_BYTES;
    if (!opt->quick && g->l2_bytes * PROBE_GPU_L2_FACTOR > want)
        want = g->l2_bytes * PROBE_GPU_L2_FACTOR;
    uint64_t caps[] = {g->max_alloc, (uint64_t)((double)g->vram_total * PROBE_GPU_VRAM_SHARE),
                       (uint64_t)((double)probe_gpu_host_free() * PROBE_GPU_HOST_SHARE) / 2};
    for (size_t i = 0; i < FC_ARRAY_LEN(caps); i++)
        if (caps[i] < want)
            want = caps[i];
    return want / 16 * 16;
}

static bool ocl_open(ocl_dev *d, const probe_options *opt) {
    cl_int err = 0;
    d->bytes = ocl_buffer_bytes(d->g, opt);
    if (d->bytes < OCL_MIN_BUFFER) {
        probe_gpu_note_add(d->g->note, sizeof d->g->note, "too little memory to measure");
        return false;
    }
    d->ctx = d->cl->clCreateContext(NULL, 1, &d->id, NULL, NULL, &err);
    if (!ocl_ok(d, err, "clCreateContext"))
        return false;
    d->queue = d->cl->clCreateCommandQueue(d->ctx, d->id, CL_QUEUE_PROFILING_ENABLE, &err);
    if (!ocl_ok(d, err, "clCreateCommandQueue"))
        return false;
    const char *src = ocl_read_src;
    d->prog = d->cl->clCreateProgramWithSource(d->ctx, 1, &src, NULL, &err);
    if (!ocl_ok(d, err, "clCreateProgramWithSource"))
        return false;
    err = d->cl->clBuildProgram(d->prog, 1, &d->id, "", NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[OCL_LOG_MAX] = "";
        d->cl->clGetProgramBuildInfo(d->prog, d->id, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        log[strcspn(log, "\n")] = '\0';
        ocl_ok(d, err, "clBuildProgram");
        probe_gpu_note_add(d->g->note, sizeof d->g->note, "%s", log);
        return false;
    }
    d->kernel = d->cl->clCreateKernel(d->prog, d->cpu ? "fc_read_slice" : "fc_read", &err);
    if (!ocl_ok(d, err, "clCreateKernel"))
        return false;
    d->buf = d->cl->clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, d->bytes, NULL, &err);
    if (!ocl_ok(d, err, "clCreateBuffer"))
        return false;
    d->sink = d->cl->clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
    if (!ocl_ok(d, err, "clCreateBuffer"))
        return false;
    d->host = malloc(d->bytes);
    if (!d->host) {
        probe_gpu_note_add(d->g->note, sizeof d->g->note, "no host memory for the test buffer");
        return false;
    }
    /* random words (xorshift32): compression and zero-page tricks cannot help */
    uint32_t x = 0x9e3779b9u;
    uint32_t *w = d->host;
    for (uint64_t i = 0; i < d->bytes / sizeof *w; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        w[i] = x;
    }
    return OCL_OK(d, clEnqueueWriteBuffer, (d->queue, d->buf, CL_TRUE, 0, d->bytes, d->host, 0, NULL, NULL));
}

static void ocl_close(ocl_dev *d) {
    const ocl_api *cl = d->cl;
    if (d->kernel)
        cl->clReleaseKernel(d->kernel);
    if (d->prog)
        cl->clReleaseProgram(d->prog);
    if (d->buf)
        cl->clReleaseMemObject(d->buf);
    if (d->sink)
        cl->clReleaseMemObject(d->sink);
    if (d->queue)
        cl->clReleaseCommandQueue(d->queue);
    if (d->ctx)
        cl->clReleaseContext(d->ctx);
    free(d->host);
}

enum { OCL_READ, OCL_H2D, OCL_D2H };

static bool ocl_enqueue(ocl_dev *d, int what, cl_event *ev) {
    switch (what) {
    case OCL_H2D:
        return OCL_OK(d, clEnqueueWriteBuffer, (d->queue, d->buf, 0, 0, d->bytes, d->host, 0, NULL, ev));
    case OCL_D2H:
        return OCL_OK(d, clEnqueueReadBuffer, (d->queue, d->buf, 0, 0, d->bytes, d->host, 0, NULL, ev));
    default: {
        size_t cus = (size_t)(d->g->compute_units > 0 ? d->g->compute_units : 1);
        size_t global = d->cpu ? cus : cus * OCL_ITEMS_PER_CU, one = 1;
        return OCL_OK(d, clEnqueueNDRangeKernel,
                      (d->queue, d->kernel, 1, NULL, &global, d->cpu ? &one : NULL, 0, NULL, ev));
    }
    }
}

/* GB/s of one kind of work: d->reps commands per sample, timed from
 * the first command's start to the last one's end on the device's own
 * profiling clock; one warm-up sample; the median of the rest. */
static double ocl_time(ocl_dev *d, int what) {
    double v[PROBE_GPU_MAX_SAMPLES];
    for (int s = -1; s < d->samples; s++) {
        cl_event first = NULL, last = NULL;
        bool ok = true;
        for (int r = 0; r < d->reps && ok; r++) {
            cl_event ev = NULL;
            ok = ocl_enqueue(d, what, &ev);
            if (ok && r == 0)
                first = ev;
            else if (ok && r == d->reps - 1)
                last = ev;
            else if (ev)
                d->cl->clReleaseEvent(ev);
        }
        cl_ulong t0 = 0, t1 = 0;
        ok = ok && OCL_OK(d, clFinish, (d->queue)) &&
             OCL_OK(d, clGetEventProfilingInfo, (first, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL)) &&
             OCL_OK(d, clGetEventProfilingInfo, (last, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL));
        if (first)
            d->cl->clReleaseEvent(first);
        if (last)
            d->cl->clReleaseEvent(last);
        if (!ok)
            return 0;
        if (s >= 0)
            v[s] = t1 > t0 ? (double)d->bytes * d->reps / (double)(t1 - t0) : 0; /* bytes/ns = GB/s */
    }
    return probe_gpu_median(v, d->samples);
}

static void ocl_measure(ocl_dev *d) {
    cl_ulong words = d->bytes / 16;
    if (!OCL_OK(d, clSetKernelArg, (d->kernel, 0, sizeof d->buf, &d->buf)) ||
        !OCL_OK(d, clSetKernelArg, (d->kernel, 1, sizeof words, &words)) ||
        !OCL_OK(d, clSetKernelArg, (d->kernel, 2, sizeof d->sink, &d->sink)))
        return;
    d->g->read_gbs = ocl_time(d, OCL_READ);
    /* from malloc'd host memory: the pageable path */
    if (!d->failed)
        d->g->h2d_pageable_gbs = ocl_time(d, OCL_H2D);
    if (!d->failed)
        d->g->d2h_pageable_gbs = ocl_time(d, OCL_D2H);
}

static void ocl_probe_device(const ocl_api *cl, cl_device_id id, probe_gpu *g, const probe_options *opt) {
    ocl_dev d = {.cl = cl, .g = g, .id = id};
    d.samples = opt->quick ? PROBE_GPU_SAMPLES_QUICK : PROBE_GPU_SAMPLES;
    d.reps = opt->quick ? PROBE_GPU_REPS_QUICK : PROBE_GPU_REPS;
    ocl_describe(&d);
    /* --quick must finish in 2 s: a device that shares host RAM (PoCL, an
     * integrated GPU) reads the memory the CPU probe already measured, and
     * compiling its kernel alone costs most of a second. --gpu-only leaves
     * the CPU alone, and an OpenCL CPU device is the CPU (PoCL took over a
     * minute here on a busy 2-core VM). */
    const char *skip = opt->gpu_only && d.cpu           ? "the CPU itself; not measured with --gpu-only"
                       : opt->quick && g->unified_memory ? "shares host RAM; not measured with --quick"
                                                         : NULL;
    if (skip) {
        probe_gpu_note_add(g->note, sizeof g->note, "%s", skip);
        ocl_close(&d);
        return;
    }
    if (!d.failed && ocl_open(&d, opt))
        ocl_measure(&d);
    ocl_close(&d);
}

void probe_opencl(probe_profile *p, const probe_options *opt, bool skip_nvidia, char *note, size_t cap) {
    ocl_api cl;
    if (!ocl_load(&cl, note, cap))
        return;
    cl_platform_id plats[OCL_MAX_PLATFORMS];
    cl_uint n_plat = 0;
    /* no ICD installed reads as an error (-1001) from the loader */
    if (cl.clGetPlatformIDs(OCL_MAX_PLATFORMS, plats, &n_plat) != CL_SUCCESS || n_plat == 0) {
        probe_gpu_note_add(note, cap, "no OpenCL platform");
        return;
    }
    if (n_plat > OCL_MAX_PLATFORMS)
        n_plat = OCL_MAX_PLATFORMS;
    for (cl_uint pi = 0; pi < n_plat; pi++) {
        cl_device_id devs[OCL_MAX_DEVICES];
        cl_uint n_dev = 0;
        if (cl.clGetDeviceIDs(plats[pi], CL_DEVICE_TYPE_ALL, OCL_MAX_DEVICES, devs, &n_dev) != CL_SUCCESS)
            continue;
        if (n_dev > OCL_MAX_DEVICES)
            n_dev = OCL_MAX_DEVICES;
        for (cl_uint di = 0; di < n_dev && p->n_gpus < PROBE_MAX_GPUS && !fc_interrupted; di++) {
            cl_uint vendor = 0;
            if (cl.clGetDeviceInfo(devs[di], CL_DEVICE_VENDOR_ID, sizeof vendor, &vendor, NULL) == CL_SUCCESS &&
                skip_nvidia && vendor == OCL_VENDOR_NVIDIA)
                continue;
            probe_gpu *g = &p->gpus[p->n_gpus++];
            memset(g, 0, sizeof *g);
            ocl_probe_device(&cl, devs[di], g, opt);
        }
    }
    /* the ICD loader stays loaded: PoCL's worker threads outlive the context */
}

/* The built-in hardware catalog (data/hardware.json, embedded; every row
 * keeps its source and confidence) and plans for lists of catalog devices
 * ("rtx-4090,rtx-4090"). */
#include "planner/planner.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern const fc_embed_file plan_hw_files[];
extern const size_t plan_hw_files_count;

/* A GPU's default share of unified memory when the catalog row has none:
 * macOS lets the GPU wire about 2/3 of RAM below 36 GB and 3/4 above
 * (recommendedMaxWorkingSetSize, see data/hardware.json notes). */
#define HW_SHARE_SMALL 0.667
#define HW_SHARE_LARGE 0.75
#define HW_SHARE_LARGE_FROM_GIB 36.0
/* Host RAM assumed when a catalog GPU is planned without a CPU platform and
 * this machine's RAM cannot be read. */
#define HW_DEFAULT_HOST_GIB 64.0

static json_t *hw_root; /* parsed once; the catalog is immutable */

static const json_t *hw_devices(fc_err *err) {
    if (!hw_root) {
        json_error_t jerr;
        hw_root = json_loadb((const char *)plan_hw_files[0].data, plan_hw_files[0].len, 0, &jerr);
        if (!hw_root) {
            fc_err_set(err, FC_ERUNTIME, "built-in hardware catalog: line %d: %s", jerr.line, jerr.text);
            return NULL;
        }
    }
    const json_t *d = json_object_get(hw_root, "devices");
    if (!json_is_array(d)) fc_err_set(err, FC_ERUNTIME, "built-in hardware catalog has no device list");
    return json_is_array(d) ? d : NULL;
}

size_t plan_hwcat_count(void) {
    const json_t *d = hw_devices(NULL);
    return d ? json_array_size(d) : 0;
}

static void hw_str(const json_t *o, const char *key, char *buf, size_t cap) {
    const char *s = json_string_value(json_object_get(o, key));
    snprintf(buf, cap, "%s", s ? s : "");
}

static double hw_num(const json_t *o, const char *key) {
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : 0.0;
}

int plan_hwcat_get(size_t i, plan_hw_entry *e, fc_err *err) {
    const json_t *devs = hw_devices(err);
    if (!devs) return FC_ERUNTIME;
    const json_t *o = json_array_get(devs, i);
    if (!json_is_object(o)) return fc_err_set(err, FC_EINPUT, "hardware catalog entry %zu does not exist", i);
    memset(e, 0, sizeof *e);
    hw_str(o, "id", e->id, sizeof e->id);
    hw_str(o, "vendor", e->vendor, sizeof e->vendor);
    hw_str(o, "name", e->name, sizeof e->name);
    hw_str(o, "category", e->category, sizeof e->category);
    hw_str(o, "memory_type", e->memory_type, sizeof e->memory_type);
    hw_str(o, "host_interface", e->host_interface, sizeof e->host_interface);
    hw_str(o, "source", e->source, sizeof e->source);
    hw_str(o, "confidence", e->confidence, sizeof e->confidence);
    hw_str(o, "unverified_fields", e->unverified, sizeof e->unverified);
    e->price_usd = hw_num(o, "launch_price_usd");
    hw_str(o, "price_source", e->price_source, sizeof e->price_source);
    hw_str(o, "llama_backend", e->llama_backend, sizeof e->llama_backend);
    e->bandwidth_gbs = hw_num(o, "bandwidth_gbs");
    e->fp16_tflops = hw_num(o, "fp16_tensor_tflops");
    e->bf16_tflops = hw_num(o, "bf16_fp32acc_tflops");
    e->fp32_tflops = hw_num(o, "fp32_tflops");
    e->int8_tops = hw_num(o, "int8_tops");
    e->vulkan_tflops = hw_num(o, "vulkan_tflops");
    const json_t *mem = json_object_get(o, "memory_gb");
    for (size_t k = 0; k < json_array_size(mem) && e->n_memory < PLAN_MAX_MEM_OPTIONS; k++)
        e->memory_gb[e->n_memory++] = json_number_value(json_array_get(mem, k));
    const json_t *share = json_object_get(o, "gpu_mem_share");
    for (size_t k = 0; k < json_array_size(share); k++) {
        const json_t *s = json_array_get(share, k);
        for (int m = 0; m < e->n_memory; m++)
            if (e->memory_gb[m] == hw_num(s, "memory_gb")) e->gpu_share[m] = hw_num(s, "share");
    }
    return FC_OK;
}

int plan_hwcat_list(plan_hw_entry **out, size_t *n, fc_err *err) {
    size_t count = plan_hwcat_count();
    plan_hw_entry *v = calloc(count ? count : 1, sizeof *v);
    if (!v) return fc_err_set(err, FC_ERUNTIME, "out of memory listing the hardware catalog");
    for (size_t i = 0; i < count; i++) {
        int rc = plan_hwcat_get(i, &v[i], err);
        if (rc) {
            free(v);
            return rc;
        }
    }
    *out = v;
    *n = count;
    return FC_OK;
}

bool plan_hwcat_unified(const plan_hw_entry *e) {
    return !strcmp(e->category, "apple_soc") || !strcmp(e->category, "unified_soc");
}

int plan_hwcat_find(const char *id, plan_hw_entry *e, fc_err *err) {
    size_t n = plan_hwcat_count();
    for (size_t i = 0; i < n; i++) {
        int rc = plan_hwcat_get(i, e, err);
        if (rc) return rc;
        if (!strcasecmp(e->id, id)) return FC_OK;
    }
    return fc_err_set(err, FC_EINPUT, "'%s' is not in the hardware catalog ('fitcheck hw' lists it)", id);
}

/* ---- catalog devices ------------------------------------------------------- */

/* The backend a device's llama.cpp runs by default: the entry's own
 * "llama_backend" (with its reason beside it in the catalog), else by vendor.
 * `plan --backend` overrides it. */
int plan_hw_entry_backend(const plan_hw_entry *e) {
    int own = e->llama_backend[0] ? plan_backend_from_name(e->llama_backend) : -1;
    if (own >= 0) return own;
    if (!strcmp(e->category, "apple_soc")) return PLAN_METAL;
    if (!strcmp(e->category, "cpu_platform")) return PLAN_CPU;
    if (!strcasecmp(e->vendor, "NVIDIA")) return PLAN_CUDA;
    if (!strcasecmp(e->vendor, "AMD")) return PLAN_ROCM;
    if (!strcasecmp(e->vendor, "Intel")) return PLAN_SYCL;
    return PLAN_VULKAN;
}

/* A CPU platform has no GPU: the CPU backend alone. */
unsigned plan_hw_entry_backends(const plan_hw_entry *e) {
    if (!strcmp(e->category, "cpu_platform")) return 1u << PLAN_CPU;
    return plan_backends_of_vendor(e->vendor, !strcmp(e->category, "apple_soc"));
}

/* "id" or "id:GiB"; picks the capacity option (default: the first). */
static int hw_pick(const char *tok, plan_hw_entry *e, double *gib, fc_err *err) {
    char id[96];
    const char *colon = strchr(tok, ':');
    size_t n = colon ? (size_t)(colon - tok) : strlen(tok);
    if (n == 0 || n >= sizeof id) return fc_err_set(err, FC_EINPUT, "--hw: '%s' is not a catalog id", tok);
    memcpy(id, tok, n);
    id[n] = '\0';
    int rc = plan_hwcat_find(id, e, err);
    if (rc) return rc;
    if (!e->n_memory) return fc_err_set(err, FC_ERUNTIME, "catalog entry %s has no memory size", e->id);
    *gib = e->memory_gb[0];
    if (!colon) return FC_OK;
    char *end;
    double want = strtod(colon + 1, &end);
    for (int m = 0; m < e->n_memory && !*end; m++) {
        if (e->memory_gb[m] != want) continue;
        *gib = want;
        return FC_OK;
    }
    char opts[128] = "";
    for (int m = 0, used = 0; m < e->n_memory && used < (int)sizeof opts - 16; m++)
        used += snprintf(opts + used, sizeof opts - (size_t)used, "%s%g", m ? ", " : "", e->memory_gb[m]);
    return fc_err_set(err, FC_EINPUT, "--hw %s: capacity '%s' is not an option (GiB: %s)", e->id, colon + 1, opts);
}

static void hw_fill(plan_device *d, const plan_hw_entry *e, double gib) {
    memset(d, 0, sizeof *d);
    snprintf(d->id, sizeof d->id, "%s", e->id);
    snprintf(d->name, sizeof d->name, "%s", e->name);
    d->backend = plan_hw_entry_backend(e);
    d->backends = plan_hw_entry_backends(e);
    d->mem_total = d->mem_free = (uint64_t)(gib * FC_GIB);
    d->bandwidth_gbs = e->bandwidth_gbs;
    d->fp16_tflops = e->fp16_tflops;
    d->fp32_tflops = e->fp32_tflops;
    d->int8_tops = e->int8_tops;
    d->vulkan_tflops = e->vulkan_tflops;
    snprintf(d->source, sizeof d->source, "hardware catalog (%s)", e->confidence);
}

/* A catalog CPU platform row is one socket: a node with its datasheet
 * bandwidth (plan_speed_dev_from_device puts it on the read basis). The
 * catalog has no core counts, so a plan spreads over the sockets
 * (plan_numa_place). */
static void hw_add_socket(plan_device *h, const plan_hw_entry *e, double gib) {
    if (h->n_numa < 1) {
        h->n_numa = 1;
        h->numa_gbs = h->bandwidth_gbs;
        h->numa_mem = h->mem_total;
    }
    h->n_numa++;
    h->mem_total += (uint64_t)(gib * FC_GIB);
    h->mem_free = h->mem_total;
    h->bandwidth_gbs += e->bandwidth_gbs;
    h->fp32_tflops += e->fp32_tflops;
    snprintf(h->source, sizeof h->source, "hardware catalog (%s), %d sockets", e->confidence, h->n_numa);
}

/* The CPU's repack rules: Apple silicon and NVIDIA's Grace-class SoCs are
 * ARM; the x86 platforms are counted at AVX2 (AVX-512 adds only Q2_K). */
static int hw_repack_of(const plan_hw_entry *e) {
    if (!strcmp(e->category, "apple_soc") || (!strcmp(e->category, "unified_soc") && !strcasecmp(e->vendor, "NVIDIA")))
        return PLAN_REPACK_ARM;
    return PLAN_REPACK_X86_AVX2;
}

static double hw_gpu_share(const plan_hw_entry *e, double gib) {
    for (int m = 0; m < e->n_memory; m++)
        if (e->memory_gb[m] == gib && e->gpu_share[m] > 0) return e->gpu_share[m];
    return gib >= HW_SHARE_LARGE_FROM_GIB ? HW_SHARE_LARGE : HW_SHARE_SMALL;
}

int plan_hw_from_catalog(plan_hw *hw, const char *list, fc_err *err) {
    memset(hw, 0, sizeof *hw);
    bool have_host = false, host_platform = false; /* a host named; a CPU platform's */
    char buf[1024], apple[64] = "", discrete[64] = "";
    if (snprintf(buf, sizeof buf, "%s", list) >= (int)sizeof buf) return fc_err_set(err, FC_EINPUT, "--hw list too long");
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        plan_hw_entry e;
        double gib = 0;
        int rc = hw_pick(tok, &e, &gib, err);
        if (rc) return rc;
        bool unified = plan_hwcat_unified(&e);
        if (!strcmp(e.category, "apple_soc")) snprintf(apple, sizeof apple, "%s", e.id);
        else if (!unified && strcmp(e.category, "cpu_platform")) snprintf(discrete, sizeof discrete, "%s", e.id);
        /* macOS on Apple silicon drives no discrete GPU: no CUDA or ROCm
         * driver, no eGPU support — such a machine does not exist. */
        if (apple[0] && discrete[0])
            return fc_err_set(err, FC_EINPUT,
                              "--hw: %s is a Mac (Metal, unified memory) and %s a discrete GPU, which Apple silicon "
                              "Macs cannot drive; plan them separately (--hw %s, --hw %s)",
                              apple, discrete, apple, discrete);
        /* The same CPU platform again is another socket of one host: one more
         * NUMA node, whose memory adds to the host's and whose bandwidth llama.cpp
         * does not add (planner/numa.c). */
        if (have_host && !unified && !strcmp(e.category, "cpu_platform") && !strcmp(e.id, hw->host.id)) {
            hw_add_socket(&hw->host, &e, gib);
            continue;
        }
        if (!strcmp(e.category, "cpu_platform") || unified) {
            if (have_host && host_platform && !unified)
                return fc_err_set(err, FC_EINPUT, "--hw: two CPU platforms (%s, %s); a second socket is the same platform "
                                  "again: '%s,%s'", hw->host.id, e.id, hw->host.id, hw->host.id);
            if (have_host) return fc_err_set(err, FC_EINPUT, "--hw: more than one CPU platform or unified-memory machine");
            have_host = true;
            host_platform = !unified;
            hw_fill(&hw->host, &e, gib);
            hw->host.backend = PLAN_CPU;
            /* a unified machine's FP32 figure is its GPU's: its CPU cores are not in the catalog
             * (the speed model then counts default cores, planner/speed_plan.c) */
            if (unified) hw->host.fp32_tflops = 0;
            hw->host.cpu_repack = hw_repack_of(&e);
            if (!unified) continue;
        }
        if (hw->n_gpu >= PLAN_MAX_DEVICES) return fc_err_set(err, FC_EINPUT, "--hw: more than %d devices", PLAN_MAX_DEVICES);
        plan_device *g = &hw->gpu[hw->n_gpu++];
        hw_fill(g, &e, gib);
        if (unified) {
            /* The GPU may wire only its share of RAM; the rest stays the host's. */
            g->unified = true;
            g->mem_total = g->mem_free = (uint64_t)(gib * hw_gpu_share(&e, gib) * FC_GIB);
            snprintf(g->source, sizeof g->source, "catalog: %.0f%% of %g GiB unified memory", 100 * hw_gpu_share(&e, gib), gib);
        }
    }
    if (!hw->n_gpu && !have_host) return fc_err_set(err, FC_EINPUT, "--hw: no devices named");
    if (!have_host) {
        plan_hw self;
        fc_err ignored = {0};
        if (plan_hw_this_machine(&self, false, &ignored) == FC_OK) {
            hw->host = self.host;
        } else {
            hw->host.mem_total = hw->host.mem_free = (uint64_t)(HW_DEFAULT_HOST_GIB * FC_GIB);
            snprintf(hw->host.source, sizeof hw->host.source, "assumed %g GiB (this machine's RAM unreadable)", HW_DEFAULT_HOST_GIB);
        }
        snprintf(hw->host.id, sizeof hw->host.id, "cpu");
        snprintf(hw->host.name, sizeof hw->host.name, "host RAM (this machine)");
    }
    snprintf(hw->label, sizeof hw->label, "%s", list);
    return FC_OK;
}

/* The machine profile as JSON (docs/profile.md). One table per struct names
 * each field, its JSON key, kind and bounds; a single writer and a single
 * reader walk the tables, so a field added to probe.h is serialized by adding
 * one row here (the GPU probe's fields included).
 *
 * Reading is strict about shape — wrong type, out of range, too many entries:
 * FC_EINPUT naming the field by its path ("caches[2].size_bytes") — and
 * lenient about absence: a missing optional field stays 0 ("not measured";
 * a field whose 0 means something names its own: a GPU's numa_node, -1),
 * and unknown keys are ignored, so additions within a schema version stay
 * readable. A newer schema_version is refused outright. */
#include "probe/probe_internal.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define PF_PATH_MAX 128
#define PF_REAL_DIGITS 10  /* byte counts stored as doubles stay exact; re-saving is stable */
#define PF_COUNT_MAX (1 << 20)  /* bound for core/thread counts: far above any machine */

typedef enum pf_kind {
    PF_INT,      /* int within [min, max] */
    PF_U64,      /* uint64_t, stored as a JSON integer (< 2^63) */
    PF_DBL,      /* double, finite and >= 0 */
    PF_BOOL,
    PF_STR,      /* char[size] */
    PF_OBJ,      /* nested struct described by sub */
    PF_ARR,      /* struct array of size-byte elements; count at count_off */
    PF_INT_ARR,  /* int array, each within [0, PF_COUNT_MAX]; count at count_off */
    PF_U64_ARR,  /* uint64_t array; count at count_off */
    PF_DBL_ARR,  /* double array; count at count_off */
} pf_kind;

typedef struct pf_table pf_table;

typedef struct pf_field {
    const char *name;
    pf_kind kind;
    size_t off;
    size_t size;       /* PF_STR: capacity; PF_ARR: element size */
    size_t count_off;  /* array kinds: where the int count lives in the parent */
    int min, max;      /* PF_INT: bounds; array kinds: max = capacity */
    int absent;        /* PF_INT: what a missing key means (0 unless the field names another) */
    const pf_table *sub;
    bool required;
} pf_field;

struct pf_table {
    const pf_field *fields;
    size_t n;
};

#define F_INT(S, m, lo, hi) {.name = #m, .kind = PF_INT, .off = offsetof(S, m), .min = (lo), .max = (hi)}
#define F_INT_OR(S, m, lo, hi, none)                                                                            \
    {.name = #m, .kind = PF_INT, .off = offsetof(S, m), .min = (lo), .max = (hi), .absent = (none)}
#define F_U64(S, m) {.name = #m, .kind = PF_U64, .off = offsetof(S, m)}
#define F_DBL(S, m) {.name = #m, .kind = PF_DBL, .off = offsetof(S, m)}
#define F_BOOL(S, m) {.name = #m, .kind = PF_BOOL, .off = offsetof(S, m)}
#define F_STR(S, m) {.name = #m, .kind = PF_STR, .off = offsetof(S, m), .size = sizeof(((S *)0)->m)}
#define F_OBJ(S, m, t) {.name = #m, .kind = PF_OBJ, .off = offsetof(S, m), .sub = &(t)}
#define F_ARR(S, key, m, cnt, t)                                                                                \
    {.name = key, .kind = PF_ARR, .off = offsetof(S, m), .size = sizeof(((S *)0)->m[0]),                        \
     .count_off = offsetof(S, cnt), .max = (int)FC_ARRAY_LEN(((S *)0)->m), .sub = &(t)}
#define F_NUM_ARR(S, kd, key, m, cnt)                                                                           \
    {.name = key, .kind = kd, .off = offsetof(S, m), .count_off = offsetof(S, cnt),                             \
     .max = (int)FC_ARRAY_LEN(((S *)0)->m)}
#define TABLE(a) {a, FC_ARRAY_LEN(a)}

static const pf_field cache_fields[] = {
    F_INT(probe_cache, level, 1, 8), F_STR(probe_cache, kind), F_U64(probe_cache, size_bytes),
    F_INT(probe_cache, shared_by_cores, 0, PF_COUNT_MAX), F_STR(probe_cache, source), F_DBL(probe_cache, read_gbs),
    F_DBL(probe_cache, latency_ns),
};
static const pf_table cache_table = TABLE(cache_fields);

static const pf_field sweep_fields[] = {
    {.name = "bytes", .kind = PF_DBL, .off = offsetof(probe_point, x)}, F_DBL(probe_point, gbs),
};
static const pf_table sweep_table = TABLE(sweep_fields);

static const pf_field scaling_fields[] = {
    {.name = "threads", .kind = PF_DBL, .off = offsetof(probe_point, x)}, F_DBL(probe_point, gbs),
};
static const pf_table scaling_table = TABLE(scaling_fields);

#define PCIE_GEN_MAX 16
#define PCIE_WIDTH_MAX 64
static const pf_field link_fields[] = {
    F_INT(probe_link, gen_max, 0, PCIE_GEN_MAX),       F_INT(probe_link, width_max, 0, PCIE_WIDTH_MAX),
    F_INT(probe_link, gen_cur, 0, PCIE_GEN_MAX),       F_INT(probe_link, width_cur, 0, PCIE_WIDTH_MAX),
    F_INT(probe_link, gen_loaded, 0, PCIE_GEN_MAX),    F_INT(probe_link, width_loaded, 0, PCIE_WIDTH_MAX),
    F_DBL(probe_link, theoretical_gbs),                F_STR(probe_link, source),
};
static const pf_table link_table = TABLE(link_fields);

static const pf_field gpu_fields[] = {
    F_STR(probe_gpu, name), F_STR(probe_gpu, api), F_STR(probe_gpu, vendor), F_STR(probe_gpu, pci_bus_id),
    /* a GPU entry without its node (written by hand) is on no node known, not on node 0 */
    F_INT_OR(probe_gpu, numa_node, -1, PROBE_MAX_NUMA, -1), F_INT(probe_gpu, cc_major, 0, 1000),
    F_INT(probe_gpu, cc_minor, 0, 1000), F_INT(probe_gpu, compute_units, 0, PF_COUNT_MAX),
    F_BOOL(probe_gpu, unified_memory), F_U64(probe_gpu, vram_total), F_U64(probe_gpu, vram_free),
    F_U64(probe_gpu, max_alloc), F_U64(probe_gpu, l2_bytes), F_INT(probe_gpu, mem_bus_width_bits, 0, PF_COUNT_MAX),
    F_DBL(probe_gpu, mem_clock_mhz), F_DBL(probe_gpu, theoretical_gbs), F_DBL(probe_gpu, read_gbs),
    F_DBL(probe_gpu, copy_gbs), F_DBL(probe_gpu, h2d_pinned_gbs), F_DBL(probe_gpu, d2h_pinned_gbs),
    F_DBL(probe_gpu, h2d_pageable_gbs), F_DBL(probe_gpu, d2h_pageable_gbs), F_DBL(probe_gpu, launch_us),
    F_DBL(probe_gpu, fp16_tflops), F_DBL(probe_gpu, bf16_tflops), F_DBL(probe_gpu, fp32_tflops),
    F_OBJ(probe_gpu, link, link_table), F_STR(probe_gpu, note),
};
static const pf_table gpu_table = TABLE(gpu_fields);

static const pf_field nvme_fields[] = {
    F_STR(probe_nvme, pci_bus_id), F_STR(probe_nvme, name), F_OBJ(probe_nvme, link, link_table),
};
static const pf_table nvme_table = TABLE(nvme_fields);

static const pf_field net_link_fields[] = {
    F_STR(probe_net_link, peer), F_STR(probe_net_link, created), F_DBL(probe_net_link, rtt_median_us),
    F_DBL(probe_net_link, rtt_p99_us), F_DBL(probe_net_link, rtt_min_us),
    F_INT(probe_net_link, n_pings, 0, PF_COUNT_MAX), F_DBL(probe_net_link, up_gbs), F_DBL(probe_net_link, down_gbs),
    F_U64(probe_net_link, up_bytes), F_U64(probe_net_link, down_bytes),
};
static const pf_table net_link_table = TABLE(net_link_fields);

#define P probe_profile
static const pf_field profile_fields[] = {
    F_STR(P, created), F_STR(P, hostname), F_STR(P, cpu_model), F_STR(P, isa), F_DBL(P, int8_per_fp32), F_BOOL(P, quick),
    F_INT(P, n_packages, 0, PF_COUNT_MAX), {.name = "n_cores", .kind = PF_INT, .off = offsetof(P, n_cores), .min = 1, .max = PROBE_MAX_THREADS, .required = true},
    F_INT(P, n_threads, 0, PF_COUNT_MAX), F_STR(P, topo_source), F_STR(P, topo_note),
    F_ARR(P, "caches", caches, n_caches, cache_table),
    {.name = "ram_total", .kind = PF_U64, .off = offsetof(P, ram_total), .required = true}, F_U64(P, ram_available), F_STR(P, ram_source),
    F_NUM_ARR(P, PF_U64_ARR, "numa_mem_bytes", numa_mem, n_numa),
    F_NUM_ARR(P, PF_DBL_ARR, "numa_read_gbs", numa_read_gbs, n_numa),
    F_NUM_ARR(P, PF_INT_ARR, "numa_cores", numa_cores, n_numa),
    F_NUM_ARR(P, PF_INT_ARR, "numa_ids", numa_ids, n_numa),
    F_U64(P, hugepage_bytes), F_U64(P, hugepages_free), F_BOOL(P, thp_enabled), F_U64(P, cgroup_mem_max),
    F_DBL(P, cgroup_cpus),
    {.name = "read_gbs", .kind = PF_DBL, .off = offsetof(P, read_gbs), .required = true}, F_DBL(P, read_1t_gbs), F_DBL(P, write_gbs), F_DBL(P, copy_gbs),
    F_DBL(P, triad_gbs), F_DBL(P, read_median_gbs), F_DBL(P, write_median_gbs), F_DBL(P, copy_median_gbs),
    F_DBL(P, triad_median_gbs), F_DBL(P, dram_theoretical_gbs), F_STR(P, dram_theoretical_source),
    F_INT(P, threads_used, 0, PROBE_MAX_THREADS),
    F_ARR(P, "sweep", sweep, n_sweep, sweep_table), F_ARR(P, "scaling", scaling, n_scaling, scaling_table),
    F_DBL(P, dram_latency_ns), F_DBL(P, dram_latency_hugepage_ns),
    F_DBL(P, sgemm_gflops_1t), F_DBL(P, sgemm_gflops_all),
    F_STR(P, storage_path), F_DBL(P, storage_read_gbs), F_BOOL(P, storage_direct),
    F_ARR(P, "gpus", gpus, n_gpus, gpu_table), F_ARR(P, "nvme", nvme, n_nvme, nvme_table), F_STR(P, gpu_note),
    F_ARR(P, "net_links", net_links, n_net_links, net_link_table),
    F_DBL(P, load_avg), F_DBL(P, others_cpus), F_DBL(P, steal_frac), F_DBL(P, read_spread), F_STR(P, busy),
};
#undef P
static const pf_table profile_table = TABLE(profile_fields);

/* ---- writing ------------------------------------------------------------ */

#define AT(base, off, type) ((type *)((char *)(base) + (off)))
#define AT_C(base, off, type) ((const type *)((const char *)(base) + (off)))

static json_t *table_to_json(const pf_table *t, const void *base);

static json_t *field_to_json(const pf_field *f, const void *base) {
    switch (f->kind) {
    case PF_INT: return json_integer(*AT_C(base, f->off, int));
    case PF_U64: return json_integer((json_int_t)*AT_C(base, f->off, uint64_t));
    case PF_DBL: return json_real(*AT_C(base, f->off, double));
    case PF_BOOL: return json_boolean(*AT_C(base, f->off, bool));
    case PF_STR: return json_string(AT_C(base, f->off, char));
    case PF_OBJ: return table_to_json(f->sub, AT_C(base, f->off, char));
    case PF_ARR:
    case PF_INT_ARR:
    case PF_U64_ARR:
    case PF_DBL_ARR: {
        json_t *a = json_array();
        int n = *AT_C(base, f->count_off, int);
        for (int i = 0; i < n && i < f->max; i++) {
            json_t *v = f->kind == PF_ARR      ? table_to_json(f->sub, AT_C(base, f->off + (size_t)i * f->size, char))
                        : f->kind == PF_INT_ARR ? json_integer(AT_C(base, f->off, int)[i])
                        : f->kind == PF_U64_ARR ? json_integer((json_int_t)AT_C(base, f->off, uint64_t)[i])
                                                : json_real(AT_C(base, f->off, double)[i]);
            json_array_append_new(a, v);
        }
        return a;
    }
    }
    return json_null();
}

static json_t *table_to_json(const pf_table *t, const void *base) {
    json_t *o = json_object();
    for (size_t i = 0; i < t->n; i++) json_object_set_new(o, t->fields[i].name, field_to_json(&t->fields[i], base));
    return o;
}

int probe_profile_to_json(const probe_profile *p, char **out, fc_err *err) {
    json_t *o = json_object();
    json_object_set_new(o, "schema_version", json_integer(PROBE_SCHEMA_VERSION));
    json_object_update_new(o, table_to_json(&profile_table, p));
    /* ASCII only: a hostname or GPU name from a copied profile may hold C1
     * controls or bidi overrides, written \u009b here (common/fc.h's rule). */
    *out = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(PF_REAL_DIGITS));
    json_decref(o);
    if (!*out) return fc_err_set(err, FC_ERUNTIME, "out of memory writing the profile");
    return FC_OK;
}

/* ---- reading ------------------------------------------------------------ */

static int table_from_json(const pf_table *t, void *base, json_t *o, const char *path, const char *where, fc_err *err);

static int bad(fc_err *err, const char *where, const char *path, const char *what) {
    return fc_err_set(err, FC_EINPUT, "%s: field %s: %s", where, path, what);
}

static int number_from_json(const pf_field *f, json_t *v, void *dst, const char *path, const char *where,
                            fc_err *err) {
    switch (f->kind) {
    case PF_INT:
    case PF_INT_ARR: {
        /* an array's max is its capacity: its elements are counts */
        int lo = f->kind == PF_INT ? f->min : 0, hi = f->kind == PF_INT ? f->max : PF_COUNT_MAX;
        if (!json_is_integer(v)) return bad(err, where, path, "expected an integer");
        json_int_t x = json_integer_value(v);
        if (x < lo || x > hi) {
            char msg[96];
            snprintf(msg, sizeof msg, "%lld is outside %d..%d", (long long)x, lo, hi);
            return bad(err, where, path, msg);
        }
        *(int *)dst = (int)x;
        return FC_OK;
    }
    case PF_U64:
    case PF_U64_ARR:
        if (!json_is_integer(v)) return bad(err, where, path, "expected an integer");
        if (json_integer_value(v) < 0) return bad(err, where, path, "must not be negative");
        *(uint64_t *)dst = (uint64_t)json_integer_value(v);
        return FC_OK;
    default: {
        if (!json_is_number(v)) return bad(err, where, path, "expected a number");
        double x = json_number_value(v);
        if (!isfinite(x) || x < 0) return bad(err, where, path, "must be a finite number >= 0");
        *(double *)dst = x;
        return FC_OK;
    }
    }
}

static int field_from_json(const pf_field *f, void *base, json_t *v, const char *path, const char *where,
                           fc_err *err) {
    char sub[PF_PATH_MAX];
    switch (f->kind) {
    case PF_INT:
    case PF_U64:
    case PF_DBL: return number_from_json(f, v, AT(base, f->off, char), path, where, err);
    case PF_BOOL:
        if (!json_is_boolean(v)) return bad(err, where, path, "expected true or false");
        *AT(base, f->off, bool) = json_is_true(v);
        return FC_OK;
    case PF_STR:
        if (!json_is_string(v)) return bad(err, where, path, "expected a string");
        if (json_string_length(v) >= f->size) return bad(err, where, path, "string too long");
        snprintf(AT(base, f->off, char), f->size, "%s", json_string_value(v));
        return FC_OK;
    case PF_OBJ: return table_from_json(f->sub, AT(base, f->off, char), v, path, where, err);
    case PF_ARR:
    case PF_INT_ARR:
    case PF_U64_ARR:
    case PF_DBL_ARR: {
        if (!json_is_array(v)) return bad(err, where, path, "expected an array");
        size_t n = json_array_size(v);
        if (n > (size_t)f->max) {
            char msg[64];
            snprintf(msg, sizeof msg, "%zu entries, at most %d", n, f->max);
            return bad(err, where, path, msg);
        }
        /* Parallel arrays share a count (numa_mem_bytes, numa_read_gbs, numa_cores, numa_ids): they must agree. */
        int *count = AT(base, f->count_off, int);
        if (*count && (size_t)*count != n && n) return bad(err, where, path, "length differs from its companion array");
        if (n) *count = (int)n;
        for (size_t i = 0; i < n; i++) {
            if (snprintf(sub, sizeof sub, "%s[%zu]", path, i) >= (int)sizeof sub) return bad(err, where, path, "nested too deep");
            json_t *e = json_array_get(v, i);
            int rc = f->kind == PF_ARR ? table_from_json(f->sub, AT(base, f->off + i * f->size, char), e, sub, where, err)
                     : f->kind == PF_INT_ARR ? number_from_json(f, e, AT(base, f->off, int) + i, sub, where, err)
                     : f->kind == PF_U64_ARR ? number_from_json(f, e, AT(base, f->off, uint64_t) + i, sub, where, err)
                                             : number_from_json(f, e, AT(base, f->off, double) + i, sub, where, err);
            if (rc) return rc;
        }
        return FC_OK;
    }
    }
    return FC_OK;
}

static int table_from_json(const pf_table *t, void *base, json_t *o, const char *path, const char *where, fc_err *err) {
    if (!json_is_object(o)) return bad(err, where, path[0] ? path : "(top level)", "expected an object");
    for (size_t i = 0; i < t->n; i++) {
        const pf_field *f = &t->fields[i];
        char sub[PF_PATH_MAX];
        if (snprintf(sub, sizeof sub, "%s%s%s", path, path[0] ? "." : "", f->name) >= (int)sizeof sub)
            return bad(err, where, path, "nested too deep");
        json_t *v = json_object_get(o, f->name);
        if (!v) {
            if (f->required) return bad(err, where, sub, "missing");
            if (f->kind == PF_INT) *AT(base, f->off, int) = f->absent;
            continue;
        }
        int rc = field_from_json(f, base, v, sub, where, err);
        if (rc) return rc;
    }
    return FC_OK;
}

int probe_profile_from_json(probe_profile *p, const char *text, const char *where, fc_err *err) {
    memset(p, 0, sizeof *p);
    json_error_t je;
    json_t *o = json_loads(text, 0, &je);
    if (!o) return fc_err_set(err, FC_EINPUT, "%s: not valid JSON (line %d: %s)", where, je.line, je.text);
    int rc = FC_OK;
    json_t *ver = json_object_get(o, "schema_version");
    if (!json_is_object(o)) {
        rc = bad(err, where, "(top level)", "expected an object");
    } else if (!json_is_integer(ver) || json_integer_value(ver) < 1) {
        rc = bad(err, where, "schema_version", "missing or not a positive integer");
    } else if (json_integer_value(ver) > PROBE_SCHEMA_VERSION) {
        rc = fc_err_set(err, FC_EINPUT,
                        "%s: profile schema version %lld is newer than this fitcheck understands (%d); "
                        "update fitcheck or run 'fitcheck probe' again",
                        where, (long long)json_integer_value(ver), PROBE_SCHEMA_VERSION);
    } else {
        p->schema_version = (int)json_integer_value(ver);
        rc = table_from_json(&profile_table, p, o, "", where, err);
    }
    json_decref(o);
    return rc;
}

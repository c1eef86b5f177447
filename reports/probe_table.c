/* The machine profile as one flat table (fitcheck probe -o md|csv|json|jsonl):
 * a row per figure, so a spreadsheet or a jq filter reads every
 * measurement the same way. */
#include "reports/table_impl.h"

#include <string.h>

enum { P_HOST, P_CPU, P_TEST, P_PARAM, P_VALUE, P_UNIT, P_THEORY, P_SOURCE, P_SCHEMA, P_COUNT };
static const rep_col probe_cols[P_COUNT] = {
    [P_HOST] = {"host", NULL, REP_LEFT, false},
    [P_CPU] = {"cpu_info", NULL, REP_LEFT, false},
    [P_TEST] = {"test", "test", REP_LEFT, false},
    [P_PARAM] = {"param", "at", REP_RIGHT, false},
    [P_VALUE] = {"value", "measured", REP_RIGHT, false},
    [P_UNIT] = {"unit", NULL, REP_LEFT, false},
    [P_THEORY] = {"theoretical", "theoretical", REP_RIGHT, false},
    [P_SOURCE] = {"source", "source", REP_LEFT, false},
    [P_SCHEMA] = {"schema", NULL, REP_LEFT, false},
};

/* Units: how a value prints for people, one row per unit. */
enum unit { U_BYTES = 0, U_GBS, U_NS, U_GFLOPS, U_TFLOPS, U_COUNT };
static const struct {
    const char *name, *fmt;
} units[U_COUNT] = {
    [U_BYTES] = {"bytes", NULL}, [U_GBS] = {"GB/s", "%.1f GB/s"}, [U_NS] = {"ns", "%.1f ns"},
    [U_GFLOPS] = {"GFLOP/s", "%.1f GFLOP/s"}, [U_TFLOPS] = {"TFLOPS", "%.1f TFLOPS"},
};

typedef struct probe_rows {
    rep_table *t;
    const probe_profile *p;
} probe_rows;

static void value_cell(rep_table *t, int col, double v, enum unit u) {
    if (!(v > 0)) {
        rep_cell_none(t, col);
        return;
    }
    if (u == U_BYTES) {
        rep_cell_i64(t, col, (int64_t)v);
        char buf[32];
        rep_cell_text(t, col, "%s", v >= FC_GIB ? rep_fmt_gib((uint64_t)v, buf, sizeof buf)
                                                : rep_fmt_size(v, buf, sizeof buf));
        return;
    }
    rep_cell_f64(t, col, v, 3);
    rep_cell_text(t, col, units[u].fmt, v);
}

/* param: the working set (param_bytes) or the thread count of the test; 0 = none. */
static void row(probe_rows *r, const char *test, double param, bool param_bytes, double value, enum unit u,
                double theory, const char *source) {
    if (!(value > 0)) return; /* not measured (a quick probe): no row rather than an empty one */
    rep_table *t = r->t;
    rep_table_add_row(t);
    rep_cell_str(t, P_HOST, r->p->hostname);
    rep_cell_str(t, P_CPU, r->p->cpu_model);
    rep_cell_str(t, P_TEST, test);
    if (!(param > 0)) {
        rep_cell_none(t, P_PARAM);
    } else if (param_bytes) {
        value_cell(t, P_PARAM, param, U_BYTES);
    } else {
        rep_cell_i64(t, P_PARAM, (int64_t)param);
        rep_cell_text(t, P_PARAM, "%lld thread%s", (long long)param, param == 1 ? "" : "s");
    }
    value_cell(t, P_VALUE, value, u);
    rep_cell_str(t, P_UNIT, units[u].name);
    value_cell(t, P_THEORY, theory, u);
    rep_cell_str(t, P_SOURCE, source);
    rep_cell_str(t, P_SCHEMA, REP_SCHEMA_PROBE);
}

static void gpu_rows(probe_rows *r, const probe_gpu *g) {
    char test[200];
#define GPU_ROW(what, v, u, th)                                      \
    do {                                                             \
        snprintf(test, sizeof test, "%s: " what, g->name);           \
        row(r, test, 0, false, v, u, th, g->api);                    \
    } while (0)
    GPU_ROW("memory", (double)g->vram_total, U_BYTES, 0);
    GPU_ROW("memory read", g->read_gbs, U_GBS, g->theoretical_gbs);
    GPU_ROW("host to device, pinned", g->h2d_pinned_gbs, U_GBS, g->link.theoretical_gbs);
    GPU_ROW("device to host, pinned", g->d2h_pinned_gbs, U_GBS, g->link.theoretical_gbs);
    GPU_ROW("fp16", g->fp16_tflops, U_TFLOPS, 0);
#undef GPU_ROW
}

rep_table *rep_probe_table(const probe_profile *p, fc_err *err) {
    rep_table *t = rep_table_new(probe_cols, P_COUNT, "Machine profile", err);
    if (!t) return NULL;
    probe_rows r = {t, p};
    row(&r, "RAM total", 0, false, (double)p->ram_total, U_BYTES, 0, p->ram_source);
    row(&r, "RAM available", 0, false, (double)p->ram_available, U_BYTES, 0, p->ram_source);
    for (int i = 0; i < p->n_caches && i < PROBE_MAX_CACHES; i++) {
        const probe_cache *c = &p->caches[i];
        char test[48];
        snprintf(test, sizeof test, "L%d %s", c->level, c->kind);
        row(&r, test, 0, false, (double)c->size_bytes, U_BYTES, 0, c->source);
        if (c->read_gbs > 0) {
            snprintf(test, sizeof test, "L%d %s read", c->level, c->kind);
            row(&r, test, 0, false, c->read_gbs, U_GBS, 0, "measured");
        }
        if (c->latency_ns > 0) {
            snprintf(test, sizeof test, "L%d %s latency", c->level, c->kind);
            row(&r, test, 0, false, c->latency_ns, U_NS, 0, "measured");
        }
    }
    row(&r, "DRAM read", p->threads_used, false, p->read_gbs, U_GBS, p->dram_theoretical_gbs,
        p->dram_theoretical_source);
    row(&r, "DRAM read", 1, false, p->read_1t_gbs, U_GBS, p->dram_theoretical_gbs, p->dram_theoretical_source);
    row(&r, "DRAM write", p->threads_used, false, p->write_gbs, U_GBS, 0, "");
    row(&r, "DRAM copy", p->threads_used, false, p->copy_gbs, U_GBS, 0, "");
    row(&r, "DRAM triad", p->threads_used, false, p->triad_gbs, U_GBS, 0, "");
    for (int i = 0; i < p->n_scaling && i < PROBE_MAX_THREADS; i++)
        row(&r, "read by threads", p->scaling[i].x, false, p->scaling[i].gbs, U_GBS, 0, "");
    for (int i = 0; i < p->n_sweep && i < PROBE_MAX_SWEEP; i++)
        row(&r, "read by working set", p->sweep[i].x, true, p->sweep[i].gbs, U_GBS, 0, "");
    row(&r, "DRAM latency", 0, false, p->dram_latency_ns, U_NS, 0, "4 KiB pages");
    row(&r, "DRAM latency", 0, false, p->dram_latency_hugepage_ns, U_NS, 0, "huge pages");
    row(&r, "SGEMM f32", 1, false, p->sgemm_gflops_1t, U_GFLOPS, 0, "OpenBLAS");
    row(&r, "SGEMM f32", p->threads_used, false, p->sgemm_gflops_all, U_GFLOPS, 0, "OpenBLAS");
    row(&r, "storage read", 0, false, p->storage_read_gbs, U_GBS, 0, p->storage_path);
    for (int i = 0; i < p->n_gpus && i < PROBE_MAX_GPUS; i++) gpu_rows(&r, &p->gpus[i]);
    return t;
}

/* The machine section (measured beside theoretical) and the bandwidth charts. */
#include "reports/html_impl.h"

#include <string.h>

enum { M_WHAT, M_MEASURED, M_THEORY, M_SOURCE, M_COUNT };
static const rep_col machine_cols[M_COUNT] = {
    {NULL, "", REP_LEFT, false},
    {NULL, "measured", REP_RIGHT, false},
    {NULL, "theoretical / capacity", REP_RIGHT, false},
    {NULL, "source, note", REP_LEFT, false},
};

static void row_gbs(rep_table *t, const char *what, double measured, double theory, const char *source) {
    rep_table_add_row(t);
    rep_cell_str(t, M_WHAT, what);
    rep_cell_gbs(t, M_MEASURED, measured);
    rep_cell_gbs(t, M_THEORY, theory);
    if (measured > 0 && theory > 0)
        rep_cell_text(t, M_SOURCE, "%.0f%% of theoretical%s%s", 100 * measured / theory, source[0] ? "; " : "", source);
    else
        rep_cell_str(t, M_SOURCE, measured > 0 || theory > 0 ? source : "not measured");
}

/* A measured figure with no theoretical counterpart, and a second figure
 * (or `otherwise` when it is absent) in the source column. */
static void row_measured(rep_table *t, const char *what, const char *fmt, double value, const char *extra_fmt,
                         double extra, const char *otherwise) {
    rep_table_add_row(t);
    rep_cell_str(t, M_WHAT, what);
    if (value > 0)
        rep_cell_text(t, M_MEASURED, fmt, value);
    else
        rep_cell_none(t, M_MEASURED);
    rep_cell_none(t, M_THEORY);
    if (extra > 0)
        rep_cell_text(t, M_SOURCE, extra_fmt, extra);
    else
        rep_cell_str(t, M_SOURCE, otherwise);
}

static void row_text(rep_table *t, const char *what, const char *measured, const char *theory, const char *source) {
    rep_table_add_row(t);
    rep_cell_str(t, M_WHAT, what);
    rep_cell_str(t, M_MEASURED, measured);
    rep_cell_str(t, M_THEORY, theory);
    rep_cell_str(t, M_SOURCE, source);
}

static int summary_write(FILE *fp, const probe_profile *p, fc_err *err) {
    rep_table *t = rep_table_new(machine_cols, M_COUNT, "Processor, memory and storage", err);
    if (!t) return err->status;
    char a[64], b[64];
    snprintf(a, sizeof a, "%d cores, %d threads", p->n_cores, p->n_threads);
    snprintf(b, sizeof b, "%d package(s), %d NUMA node(s)", p->n_packages, p->n_numa);
    row_text(t, "CPU", p->cpu_model, a, b);
    row_text(t, "SIMD used", p->isa, "-", "");
    snprintf(a, sizeof a, "%g per FP32 multiply-add", p->int8_per_fp32);
    row_text(t, "int8 dot products", p->int8_per_fp32 > 0 ? a : "-", probe_int8_name(p->int8_per_fp32),
             "what llama.cpp's quantized kernels multiply with (docs/speed-model.md)");
    rep_fmt_gib(p->ram_available, a, sizeof a);
    rep_fmt_gib(p->ram_total, b, sizeof b);
    row_text(t, "RAM (available / total)", a, b, p->ram_source);
    if (p->cgroup_mem_max) row_text(t, "memory limit (cgroup)", "-", rep_fmt_gib(p->cgroup_mem_max, a, sizeof a), "");
    row_gbs(t, "DRAM read, all threads", p->read_gbs, p->dram_theoretical_gbs, p->dram_theoretical_source);
    row_gbs(t, "DRAM read, one thread", p->read_1t_gbs, p->dram_theoretical_gbs, "");
    row_gbs(t, "DRAM write", p->write_gbs, 0, "");
    row_gbs(t, "DRAM copy", p->copy_gbs, 0, "");
    row_gbs(t, "DRAM triad", p->triad_gbs, 0, "");
    row_measured(t, "DRAM latency", "%.0f ns", p->dram_latency_ns, "%.0f ns with huge pages",
                 p->dram_latency_hugepage_ns, p->dram_latency_ns > 0 ? "" : "not measured");
    row_measured(t, "SGEMM (f32)", "%.0f GFLOP/s", p->sgemm_gflops_all, "%.1f GFLOP/s on one thread",
                 p->sgemm_gflops_1t, "not measured");
    row_gbs(t, "storage read", p->storage_read_gbs, 0,
            p->storage_read_gbs > 0 ? (p->storage_direct ? "O_DIRECT, page cache bypassed" : "through the page cache")
                                    : "");
    int rc = rep_table_write(t, fp, REP_FMT_HTML, err);
    rep_table_free(t);
    return rc;
}

enum { K_LEVEL, K_SIZE, K_SHARED, K_READ, K_LAT, K_SOURCE, K_COUNT };
static const rep_col cache_cols[K_COUNT] = {
    {NULL, "cache", REP_LEFT, false},        {NULL, "size (each)", REP_RIGHT, false},
    {NULL, "shared by", REP_RIGHT, false},   {NULL, "read, measured", REP_RIGHT, false},
    {NULL, "latency, measured", REP_RIGHT, false}, {NULL, "source", REP_LEFT, false},
};

static int caches_write(FILE *fp, const probe_profile *p, fc_err *err) {
    if (p->n_caches <= 0) {
        html_missing(fp, "No caches in the profile.", "The probe did not find the cache hierarchy on this machine.");
        return FC_OK;
    }
    rep_table *t = rep_table_new(cache_cols, K_COUNT, "Caches", err);
    if (!t) return err->status;
    for (int i = 0; i < p->n_caches && i < PROBE_MAX_CACHES; i++) {
        const probe_cache *c = &p->caches[i];
        rep_table_add_row(t);
        rep_cell_text(t, K_LEVEL, "L%d %s", c->level, c->kind);
        rep_cell_size(t, K_SIZE, c->size_bytes);
        rep_cell_text(t, K_SHARED, "%d core%s", c->shared_by_cores, c->shared_by_cores == 1 ? "" : "s");
        rep_cell_gbs(t, K_READ, c->read_gbs);
        if (c->latency_ns > 0)
            rep_cell_text(t, K_LAT, "%.1f ns", c->latency_ns);
        else
            rep_cell_none(t, K_LAT);
        rep_cell_str(t, K_SOURCE, c->source);
    }
    int rc = rep_table_write(t, fp, REP_FMT_HTML, err);
    rep_table_free(t);
    return rc;
}

enum { G_NAME, G_VRAM, G_BW, G_TFLOPS, G_LINK, G_H2D, G_COUNT };
static const rep_col gpu_cols[G_COUNT] = {
    {NULL, "GPU", REP_LEFT, false},
    {NULL, "memory free / total", REP_RIGHT, false},
    {NULL, "bandwidth / theoretical", REP_RIGHT, false},
    {NULL, "FP16 TFLOPS", REP_RIGHT, false},
    {NULL, "PCIe now / capable", REP_RIGHT, false},
    {NULL, "host to GPU / link", REP_RIGHT, false},
};

static int gpus_write(FILE *fp, const probe_profile *p, fc_err *err) {
    fputs("<h3>GPUs and links</h3>\n", fp);
    if (p->n_gpus <= 0) {
        html_missing(fp, "No GPU found.", p->gpu_note[0] ? p->gpu_note : "The profile lists no GPU.");
        return FC_OK;
    }
    rep_table *t = rep_table_new(gpu_cols, G_COUNT, "GPUs, measured beside theoretical", err);
    if (!t) return err->status;
    for (int i = 0; i < p->n_gpus && i < PROBE_MAX_GPUS; i++) {
        const probe_gpu *g = &p->gpus[i];
        char a[32], b[32];
        rep_table_add_row(t);
        rep_cell_text(t, G_NAME, "%s (%s)", g->name, g->api);
        rep_cell_text(t, G_VRAM, "%s / %s%s", rep_fmt_gib(g->vram_free, a, sizeof a), rep_fmt_gib(g->vram_total, b, sizeof b),
                      g->unified_memory ? " (host RAM)" : "");
        /* Measured and datasheet side by side; "-" where one is unknown. */
        char m[24] = "-", th[24] = "-";
        if (g->read_gbs > 0) snprintf(m, sizeof m, "%.0f", g->read_gbs);
        if (g->theoretical_gbs > 0) snprintf(th, sizeof th, "%.0f", g->theoretical_gbs);
        rep_cell_text(t, G_BW, "%s / %s GB/s", m, th);
        if (g->fp16_tflops > 0)
            rep_cell_f64(t, G_TFLOPS, g->fp16_tflops, 1);
        else
            rep_cell_none(t, G_TFLOPS);
        if (g->link.gen_max > 0)
            rep_cell_text(t, G_LINK, "Gen%d x%d / Gen%d x%d", g->link.gen_cur, g->link.width_cur, g->link.gen_max,
                          g->link.width_max);
        else
            rep_cell_none(t, G_LINK);
        if (g->h2d_pinned_gbs > 0 || g->link.theoretical_gbs > 0)
            rep_cell_text(t, G_H2D, "%.1f / %.1f GB/s", g->h2d_pinned_gbs, g->link.theoretical_gbs);
        else
            rep_cell_none(t, G_H2D);
    }
    int rc = rep_table_write(t, fp, REP_FMT_HTML, err);
    rep_table_free(t);
    /* Notes are sentences: under the table, not squeezed into a cell. */
    for (int i = 0; !rc && i < p->n_gpus && i < PROBE_MAX_GPUS; i++) {
        if (!p->gpus[i].note[0]) continue;
        fputs("<p class=\"note\">", fp);
        rep_html_escape(fp, p->gpus[i].name);
        fputs(": ", fp);
        rep_html_escape(fp, p->gpus[i].note);
        fputs("</p>\n", fp);
    }
    if (!rc && p->gpu_note[0]) {
        fputs("<p class=\"note\">", fp);
        rep_html_escape(fp, p->gpu_note);
        fputs("</p>\n", fp);
    }
    return rc;
}

enum { N_NAME, N_BUS, N_NOW, N_MAX, N_THEORY, N_COUNT };
static const rep_col nvme_cols[N_COUNT] = {
    {NULL, "drive", REP_LEFT, false},          {NULL, "PCI address", REP_LEFT, false},
    {NULL, "link now", REP_LEFT, false},       {NULL, "link capable", REP_LEFT, false},
    {NULL, "theoretical", REP_RIGHT, false},
};

/* NVMe drives: their links bound how fast a model loads. */
static int nvme_write(FILE *fp, const probe_profile *p, fc_err *err) {
    if (p->n_nvme <= 0) return FC_OK;
    rep_table *t = rep_table_new(nvme_cols, N_COUNT, "NVMe drives and their PCIe links", err);
    if (!t) return err->status;
    for (int i = 0; i < p->n_nvme && i < (int)FC_ARRAY_LEN(p->nvme); i++) {
        const probe_nvme *d = &p->nvme[i];
        rep_table_add_row(t);
        rep_cell_str(t, N_NAME, d->name);
        rep_cell_str(t, N_BUS, d->pci_bus_id);
        rep_cell_text(t, N_NOW, "Gen%d x%d", d->link.gen_cur, d->link.width_cur);
        rep_cell_text(t, N_MAX, "Gen%d x%d", d->link.gen_max, d->link.width_max);
        rep_cell_gbs(t, N_THEORY, d->link.theoretical_gbs);
    }
    int rc = rep_table_write(t, fp, REP_FMT_HTML, err);
    rep_table_free(t);
    return rc;
}

static const char no_profile[] =
    "Run 'fitcheck probe' to measure this machine, or pass --profile FILE.json.";

int html_machine(FILE *fp, const rep_report *r, fc_err *err) {
    const probe_profile *p = r->profile;
    if (!p) {
        html_missing(fp, "No machine profile.", r->profile_note ? r->profile_note : no_profile);
        return FC_OK;
    }
    int rc = summary_write(fp, p, err);
    if (!rc && p->busy[0]) {
        fputs("<p class=\"note\">MEASURED WHILE BUSY: ", fp);
        rep_html_escape(fp, p->busy);
        fputs(" — the figures understate this machine; run 'fitcheck probe' when it is idle.</p>\n", fp);
    }
    if (!rc) rc = caches_write(fp, p, err);
    if (!rc) rc = gpus_write(fp, p, err);
    if (!rc) rc = nvme_write(fp, p, err);
    if (!rc && p->topo_source[0]) {
        fputs("<p class=\"note\">Topology from ", fp);
        rep_html_escape(fp, p->topo_source);
        fputs(p->quick ? "; a quick probe: bandwidth curves and compute were not measured.</p>\n" : ".</p>\n", fp);
    }
    return rc;
}

/* ---- bandwidth charts ------------------------------------------------- */

enum { P_X, P_GBS, P_COUNT };

static int points_table(FILE *fp, const char *caption, const char *x_title, bool bytes, const probe_point *pt, int n,
                        fc_err *err) {
    const rep_col cols[P_COUNT] = {{NULL, x_title, REP_RIGHT, false}, {NULL, "read", REP_RIGHT, false}};
    rep_table *t = rep_table_new(cols, P_COUNT, caption, err);
    if (!t) return err->status;
    for (int i = 0; i < n; i++) {
        rep_table_add_row(t);
        if (bytes)
            rep_cell_size(t, P_X, (uint64_t)pt[i].x);
        else
            rep_cell_f64(t, P_X, pt[i].x, 0);
        rep_cell_gbs(t, P_GBS, pt[i].gbs);
    }
    int rc = html_data_table(fp, t, err);
    rep_table_free(t);
    return rc;
}

static int sweep_chart(FILE *fp, const probe_profile *p, fc_err *err) {
    int n = p->n_sweep < PROBE_MAX_SWEEP ? p->n_sweep : PROBE_MAX_SWEEP;
    if (n <= 0) {
        html_missing(fp, "No bandwidth sweep.",
                     "The profile has no read bandwidth by working-set size (a quick probe skips it); run 'fitcheck probe'.");
        return FC_OK;
    }
    double x[PROBE_MAX_SWEEP], y[PROBE_MAX_SWEEP], best = 0, last = 0;
    for (int i = 0; i < n; i++) {
        x[i] = p->sweep[i].x;
        y[i] = p->sweep[i].gbs;
        best = fmax(best, y[i]);
        last = y[i];
    }
    rep_level marks[PROBE_MAX_CACHES];
    char labels[PROBE_MAX_CACHES][48];
    int nm = 0;
    for (int i = 0; i < p->n_caches && i < PROBE_MAX_CACHES; i++) {
        const probe_cache *c = &p->caches[i];
        if (!strcmp(c->kind, "instruction") || !c->size_bytes) continue;
        char sz[24];
        snprintf(labels[nm], sizeof labels[nm], "L%d %s", c->level, rep_fmt_size((double)c->size_bytes, sz, sizeof sz));
        marks[nm] = (rep_level){(double)c->size_bytes, labels[nm]};
        nm++;
    }
    char theory[64];
    snprintf(theory, sizeof theory, "theoretical DRAM %.1f GB/s", p->dram_theoretical_gbs);
    rep_level ymark = {p->dram_theoretical_gbs, theory};
    char desc[256];
    snprintf(desc, sizeof desc,
             "Read bandwidth is %.1f GB/s at best, inside the caches, and %.1f GB/s at the largest working set "
             "(%.0f MiB), where data comes from DRAM.",
             best, last, x[n - 1] / FC_MIB);
    rep_series s = {"read, all threads", x, y, n, false};
    rep_line_chart c = {
        .id = "chart-bw-sweep", .title = "Read bandwidth against working-set size", .desc = desc,
        .x_label = "working set (log scale)", .y_label = "GB/s", .x_log = true, .x_bytes = true,
        .series = &s, .n_series = 1, .x_marks = marks, .n_x_marks = nm,
        .y_marks = &ymark, .n_y_marks = p->dram_theoretical_gbs > 0,
    };
    html_figure_open(fp);
    int rc = rep_svg_line(fp, &c, err);
    html_figure_close(fp, desc);
    return rc ? rc : points_table(fp, "Read bandwidth by working set", "working set", true, p->sweep, n, err);
}

static int scaling_chart(FILE *fp, const probe_profile *p, fc_err *err) {
    int n = p->n_scaling < PROBE_MAX_THREADS ? p->n_scaling : PROBE_MAX_THREADS;
    if (n <= 0) {
        html_missing(fp, "No thread scaling.", "The profile has no DRAM read bandwidth by thread count; run 'fitcheck probe'.");
        return FC_OK;
    }
    double x[PROBE_MAX_THREADS], y[PROBE_MAX_THREADS];
    double best = 0;
    for (int i = 0; i < n; i++) {
        x[i] = p->scaling[i].x;
        y[i] = p->scaling[i].gbs;
        best = fmax(best, y[i]);
    }
    int knee = 0; /* fewest threads reaching 90% of the best */
    while (knee < n - 1 && y[knee] < 0.9 * best) knee++;
    char theory[64], desc[256];
    snprintf(theory, sizeof theory, "theoretical DRAM %.1f GB/s", p->dram_theoretical_gbs);
    snprintf(desc, sizeof desc,
             "DRAM read bandwidth reaches %.1f GB/s; %.0f thread%s already %s 90%% of it. More threads than that "
             "do not make token generation faster.",
             best, x[knee], x[knee] == 1 ? "" : "s", x[knee] == 1 ? "gives" : "give");
    rep_level ymark = {p->dram_theoretical_gbs, theory};
    rep_series s = {"DRAM read", x, y, n, false};
    rep_line_chart c = {
        .id = "chart-bw-threads", .title = "DRAM read bandwidth against threads", .desc = desc, .x_label = "threads",
        .x_int = true, .y_label = "GB/s", .series = &s, .n_series = 1, .y_marks = &ymark, .n_y_marks = p->dram_theoretical_gbs > 0,
    };
    html_figure_open(fp);
    int rc = rep_svg_line(fp, &c, err);
    html_figure_close(fp, desc);
    return rc ? rc : points_table(fp, "DRAM read bandwidth by threads", "threads", false, p->scaling, n, err);
}

int html_bandwidth(FILE *fp, const rep_report *r, fc_err *err) {
    if (!r->profile) {
        html_missing(fp, "No machine profile.", r->profile_note ? r->profile_note : no_profile);
        return FC_OK;
    }
    int rc = sweep_chart(fp, r->profile, err);
    return rc ? rc : scaling_chart(fp, r->profile, err);
}

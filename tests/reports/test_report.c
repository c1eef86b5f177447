/* The HTML report from fixed inputs: every section present, every chart
 * drawn, hostile strings escaped, missing data said plainly.
 * With an argument, also leaves the page there for the browser test. */
#include "reports/reports.h"
#include "tests/check.h"

#include <string.h>

static void profile_fill(probe_profile *p) {
    memset(p, 0, sizeof *p);
    p->schema_version = PROBE_SCHEMA_VERSION;
    snprintf(p->created, sizeof p->created, "2026-01-01T00:00:00Z");
    snprintf(p->hostname, sizeof p->hostname, "host<b>");
    snprintf(p->cpu_model, sizeof p->cpu_model, "Example CPU 16-Core");
    snprintf(p->isa, sizeof p->isa, "avx2");
    p->n_packages = 1, p->n_cores = 16, p->n_threads = 32, p->n_numa = 1;
    snprintf(p->topo_source, sizeof p->topo_source, "hwloc");
    static const struct { int level; const char *kind; uint64_t size; int shared; } caches[] = {
        {1, "data", 48 << 10, 1}, {1, "instruction", 32 << 10, 1}, {2, "unified", 2 << 20, 1}, {3, "unified", 32 << 20, 16},
    };
    for (size_t i = 0; i < FC_ARRAY_LEN(caches); i++) {
        probe_cache *c = &p->caches[p->n_caches++];
        c->level = caches[i].level;
        snprintf(c->kind, sizeof c->kind, "%s", caches[i].kind);
        c->size_bytes = caches[i].size;
        c->shared_by_cores = caches[i].shared;
        snprintf(c->source, sizeof c->source, "sysfs");
    }
    p->ram_total = 64ull << 30, p->ram_available = 50ull << 30;
    p->read_gbs = 70, p->read_1t_gbs = 18, p->write_gbs = 40, p->copy_gbs = 45, p->triad_gbs = 50;
    p->dram_theoretical_gbs = 89.6;
    snprintf(p->dram_theoretical_source, sizeof p->dram_theoretical_source, "2 x DDR5-5600");
    for (int i = 0; i < 20; i++) {
        double ws = 8192.0 * (1 << i);
        p->sweep[i].x = ws;
        p->sweep[i].gbs = ws <= 48 << 10 ? 900 : ws <= 2 << 20 ? 500 : ws <= 32 << 20 ? 250 : 70;
    }
    p->n_sweep = 20;
    for (int i = 0; i < 16; i++) {
        p->scaling[i].x = i + 1;
        p->scaling[i].gbs = 70 * (1 - exp(-(i + 1) / 3.0));
    }
    p->n_scaling = 16;
    p->dram_latency_ns = 95;
    p->sgemm_gflops_1t = 80, p->sgemm_gflops_all = 1100;
    p->n_gpus = 1;
    probe_gpu *g = &p->gpus[0];
    snprintf(g->name, sizeof g->name, "Example GPU 24GB");
    snprintf(g->api, sizeof g->api, "cuda");
    g->vram_total = 24ull << 30, g->vram_free = 23ull << 30;
    g->theoretical_gbs = 1008, g->read_gbs = 910, g->fp16_tflops = 150;
    g->link = (probe_link){4, 16, 4, 16, 4, 16, 31.5, "libpci"};
    g->h2d_pinned_gbs = 25;
    p->n_nvme = 1;
    snprintf(p->nvme[0].name, sizeof p->nvme[0].name, "Example NVMe");
    snprintf(p->nvme[0].pci_bus_id, sizeof p->nvme[0].pci_bus_id, "0000:01:00.0");
    p->nvme[0].link = (probe_link){4, 4, 3, 4, 0, 0, 7.88, "sysfs"};
}

static void plan_fill(rep_plan_view *v, const char *model, double scale, bool over) {
    memset(v, 0, sizeof *v);
    snprintf(v->model, sizeof v->model, "%s", model);
    snprintf(v->source, sizeof v->source, "catalog");
    snprintf(v->quant, sizeof v->quant, "Q4_K_M");
    v->n_ctx = 8192;
    v->n_dev = 2;
    snprintf(v->dev[0].name, sizeof v->dev[0].name, "Example GPU 24GB");
    v->dev[0].capacity = 23ull << 30;
    v->dev[0].part[REP_MEM_WEIGHTS] = (uint64_t)(scale * (over ? 30 : 14) * FC_GIB);
    v->dev[0].part[REP_MEM_KV] = 1ull << 30;
    v->dev[0].part[REP_MEM_COMPUTE] = 512ull << 20;
    v->dev[0].part[REP_MEM_OVERHEAD] = 300ull << 20;
    snprintf(v->dev[1].name, sizeof v->dev[1].name, "CPU (RAM)");
    v->dev[1].capacity = 50ull << 30;
    v->dev[1].part[REP_MEM_WEIGHTS] = 400ull << 20;
    v->dev[1].part[REP_MEM_OVERHEAD] = 200ull << 20;
    static const char *const q[] = {"Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "Q3_K_M"};
    static const double bpw[] = {8.5, 6.56, 5.69, 4.89, 3.91}, loss[] = {0.1, 0.4, 1.0, 2.5, 7.0};
    for (int i = 0; i < 5; i++) {
        rep_plan_quant *x = &v->quants[v->n_quants++];
        snprintf(x->name, sizeof x->name, "%s", q[i]);
        x->size = (uint64_t)(scale * 25 * FC_GIB * bpw[i] / 8.5);
        x->fits = x->size < (21ull << 30);
        x->pp_ts = 3000 / scale, x->tg_ts = 900 / (scale * bpw[i]);
        x->quality_loss = loss[i];
        x->recommended = !over && i == 2;
    }
    for (int i = 0; i < 8; i++) {
        v->depth[i] = i * 4096;
        v->tg_ts[i] = 120 / scale / (1 + i * 0.08);
        v->pp_ts[i] = 3000 / scale / (1 + i * 0.15);
    }
    v->n_depths = 8;
    snprintf(v->command, sizeof v->command, "llama-server -m %s.gguf -c 8192 -ngl 99 -fa on", model);
}

static int write_page(const rep_report *r, const char *path, char **text) {
    fc_err err = {0};
    size_t len = 0;
    FILE *mem = open_memstream(text, &len);
    int rc = rep_report_write(mem, r, &err);
    fclose(mem);
    CHECK_MSG(rc == FC_OK, "%s", err.msg);
    if (path) CHECK(fc_write_file_atomic(path, *text, strlen(*text), &err) == FC_OK);
    return rc;
}

static int count(const char *s, const char *needle) {
    int n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p++) n++;
    return n;
}

int main(int argc, char **argv) {
    static probe_profile prof;
    static rep_plan_view plans[2];
    profile_fill(&prof);
    plan_fill(&plans[0], "Qwen3-8B", 0.4, false);
    plan_fill(&plans[1], "evil<script>alert(1)</script>", 1.0, true);
    plan_bench_record runs[6];
    memset(runs, 0, sizeof runs);
    for (int i = 0; i < 6; i++) {
        plan_bench_record *b = &runs[i];
        snprintf(b->model_type, sizeof b->model_type, "qwen3 8B Q4_K - Medium");
        snprintf(b->backends, sizeof b->backends, "CUDA");
        b->model_size = 5ull << 30, b->model_n_params = 8190735360ull, b->n_threads = 16;
        b->test.n_depth = (i / 2) * 4096;
        if (i % 2) b->test.n_gen = 128; else b->test.n_prompt = 512;
        b->avg_ts = i % 2 ? 290.0 / (1 + (i / 2) * 0.1) : 7000.0 / (1 + (i / 2) * 0.2);
        b->stddev_ts = b->avg_ts * 0.01;
        b->predicted_ts = b->avg_ts * (i % 2 ? 1.08 : 0.9);
    }
    rep_report r = {.title = "fitcheck report: test", .profile = &prof, .plans = plans, .n_plans = 2, .runs = runs,
                    .n_runs = 6};
    char *page;
    write_page(&r, argc > 1 ? argv[1] : NULL, &page);
    CHECK(strncmp(page, "<!DOCTYPE html>", 15) == 0);
    CHECK_MSG(count(page, "<svg ") == 6, "%d charts", count(page, "<svg "));
    CHECK(count(page, "</svg>") == 6);
    for (const char *id = "chart-bw-sweep\0chart-bw-threads\0chart-fit\0chart-depth-tg\0chart-depth-pp\0chart-accuracy\0"; *id; id += strlen(id) + 1) {
        char want[64];
        snprintf(want, sizeof want, "id=\"%s\"", id);
        CHECK_MSG(strstr(page, want), "chart %s missing", id);
    }
    CHECK_MSG(!strstr(page, "<script"), "unescaped <script> in the page");
    CHECK(strstr(page, "evil&lt;script&gt;") != NULL);
    CHECK(strstr(page, "host&lt;b&gt;") != NULL);
    CHECK(!strstr(page, "class=\"missing\""));
    CHECK(strstr(page, "<tr class=\"best\"><th scope=\"row\">Q5_K_M <strong>(recommended)</strong>") != NULL);
    CHECK(strstr(page, "L2 2 MiB") && strstr(page, "theoretical DRAM 89.6 GB/s"));
    CHECK_MSG(count(page, ", over by ") == 1, "%d bars said over capacity", count(page, ", over by "));
    CHECK(strstr(page, "llama-server -m Qwen3-8B.gguf") != NULL);
    CHECK(strstr(page, "<td>Gen3 x4</td><td>Gen4 x4</td><td class=\"r\">7.88 GB/s</td>") != NULL);
    CHECK(strstr(page, "http://") == NULL || count(page, "http://") == count(page, "xmlns=\"http://www.w3.org/2000/svg\""));
    free(page);

    /* Nothing known: every section says what is missing, no chart is drawn. */
    rep_report empty = {.profile_note = "no profile here"};
    write_page(&empty, NULL, &page);
    CHECK(count(page, "<svg ") == 0);
    CHECK_MSG(count(page, "class=\"missing\"") == 7, "%d missing notes", count(page, "class=\"missing\""));
    CHECK(strstr(page, "no profile here") != NULL);
    free(page);
    return check_done("report");
}

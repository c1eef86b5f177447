/* `plan --bench`: the predicted llama-bench tests of a plan, written as
 * llama-bench writes its own (Markdown table, or -o json/jsonl/csv with its
 * fields), so a user can set a real llama-bench run beside it. avg_ts is the
 * prediction; build_commit says it is fitcheck's. */
#include "reports/reports.h"
#include "planner/planner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* llama-bench's "backends" (test::get_backend): on one machine the backend its
 * GPUs run, CPU when no layer is on one; on several hosts (llama-bench --rpc
 * from the main host) the main host's GPU backend, if it has one, and RPC. */
static void bench_backends(const plan_result *r, char *buf, size_t cap) {
    if (!r->cluster) {
        uint32_t gpu_layers = 0;
        for (int g = 0; g < r->hw.n_gpu; g++) gpu_layers += r->mem.gpu[g].n_layers;
        snprintf(buf, cap, "%s", plan_backend_bench_name(gpu_layers > 0 ? r->hw.gpu[0].backend : PLAN_CPU));
        return;
    }
    const plan_cluster *c = &r->cluster->cluster;
    int be = PLAN_CPU;
    for (int g = 0; g < c->hw.n_gpu && be == PLAN_CPU; g++)
        if (c->dev_host[g] == 0) be = c->hw.gpu[g].backend;
    snprintf(buf, cap, "%s%sRPC", be == PLAN_CPU ? "" : plan_backend_bench_name(be), be == PLAN_CPU ? "" : ",");
}

/* What every test of the plan shares: the build, machine, model and flags, as llama-bench records them. */
static void bench_base(const plan_result *r, plan_bench_record *b) {
    const plan_hw *hw = r->cluster ? &r->cluster->cluster.hw : &r->hw;
    const model_desc *m = r->model;
    const model_ftype_info *ft = model_ftype_by_id(m->hp.file_type);
    memset(b, 0, sizeof *b);
    snprintf(b->build_commit, sizeof b->build_commit, "%s", PLAN_BENCH_PREDICTED);
    snprintf(b->engine, sizeof b->engine, "llama.cpp");
    bench_backends(r, b->backends, sizeof b->backends);
    /* llama-bench's get_gpu_info: every GPU's name, joined by ", " */
    for (int g = 0, used = 0; g < hw->n_gpu && used < (int)sizeof b->gpu_info; g++)
        if (hw->gpu[g].backend != PLAN_CPU)
            used += snprintf(b->gpu_info + used, sizeof b->gpu_info - (size_t)used, "%s%s", used ? ", " : "",
                             hw->gpu[g].name);
    snprintf(b->cpu_info, sizeof b->cpu_info, "%s", hw->host.name);
    model_bench_desc(&m->hp, m->n_params, ft ? ft->name : "?", b->model_type, sizeof b->model_type);
    b->model_size = m->weight_bytes;
    b->model_n_params = m->n_params;
    b->n_batch = (int)r->params.n_batch;
    b->n_ubatch = (int)r->params.n_ubatch;
    /* llama-bench's default -t, a thread per core; a catalog CPU platform's as many as its FP32 peak holds,
     * which its speeds were predicted with (planner/speed_plan.c); unknown beside a catalog GPU */
    b->n_threads = hw->host.n_cores > 0 ? hw->host.n_cores : !hw->n_gpu && r->has_speed ? r->speed.threads : 0;
    /* the -ngl llama-bench would run this placement with: the plan's
     * (PLAN_NGL_ALL is llama-bench's default -1, every layer) */
    b->n_gpu_layers = r->params.n_gpu_layers;
    snprintf(b->type_k, sizeof b->type_k, "%s", ggml_type_get(r->params.type_k)->name);
    snprintf(b->type_v, sizeof b->type_v, "%s", ggml_type_get(r->params.type_v)->name);
    /* on is what -fa auto gives where the backend has the kernel (plan --fa); a build
     * before -fa auto (plan --llama-build) records false/true, as its llama-bench did */
    b->build_number = (int)r->params.llama_build;
    if (plan_build_fa_auto(r->params.llama_build)) b->flash_attn = r->params.flash_attn ? PLAN_BENCH_FA_AUTO : 0;
    else b->flash_attn = r->params.flash_attn;
    plan_bench_tensor_split(r->params.tensor_split, (int)r->params.n_tensor_split, b->tensor_split,
                            sizeof b->tensor_split);
}

int rep_plan_bench_write(const plan_result *r, FILE *fp, enum rep_format fmt, fc_err *err) {
    if (r->n_bench <= 0) return fc_err_set(err, FC_EINPUT, "no --bench tests were predicted (no speed: %s)",
                                           r->speed_note[0] ? r->speed_note : "none asked");
    int fitting = 0;
    for (int i = 0; i < r->n_bench; i++) fitting += r->bench_tps[i] > 0;
    if (!fitting) {
        char name[PLAN_BENCH_NAME_MAX];
        return fc_err_set(err, FC_EINPUT, "no --bench test fits: llama-bench gives %s a context of %u tokens ('fitcheck "
                          "plan --ctx %u' shows where the memory goes)", plan_bench_test_name(&r->bench[0], name,
                          sizeof name), r->bench_ctx[0], r->bench_ctx[0]);
    }
    plan_bench_record *rows = calloc((size_t)r->n_bench, sizeof *rows);
    if (!rows) return fc_err_set(err, FC_ERUNTIME, "out of memory");
    plan_bench_record base;
    bench_base(r, &base);
    int n = 0; /* the tests that fit: one that does not has no record (the caller says so) */
    for (int i = 0; i < r->n_bench; i++) {
        if (!(r->bench_tps[i] > 0)) continue;
        plan_bench_record *b = &rows[n++];
        *b = base;
        b->test = r->bench[i];
        b->avg_ts = r->bench_tps[i];
        b->avg_ns = 1e9 * (b->test.n_prompt + b->test.n_gen) / b->avg_ts;
    }
    int rc = rep_bench_write(rows, n, fp, fmt, err);
    free(rows);
    return rc;
}

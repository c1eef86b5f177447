/* `plan --bench`: the predicted llama-bench tests of a plan, written as
 * llama-bench writes its own (Markdown table, or -o json/jsonl/csv with its
 * fields), so a user can set a real llama-bench run beside it. avg_ts is the
 * prediction; build_commit says it is fitcheck's. */
#include "reports/reports.h"
#include "planner/planner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    const model_desc *m = r->model;
    const model_ftype_info *ft = model_ftype_by_id(m->hp.file_type);
    /* One machine, or several (llama-bench --rpc: the main host's llama-bench, the split the plan shows). */
    const plan_hw *hw = r->cluster ? &r->cluster->cluster.hw : &r->hw;
    const plan_memory *mem = r->cluster ? &plan_cluster_shown(r->cluster)->mem : &r->mem;
    /* llama-bench's "backends" (test::get_backend): the backend the GPUs run, or CPU when no
     * layer is on one; on several hosts the main host's GPU backend, if it has one, and RPC */
    int be = PLAN_CPU;
    uint32_t gpu_layers = 0;
    for (int g = 0; g < hw->n_gpu; g++) {
        gpu_layers += mem->gpu[g].n_layers;
        bool main_host = !r->cluster || r->cluster->cluster.dev_host[g] == 0;
        if (main_host && be == PLAN_CPU) be = hw->gpu[g].backend;
    }
    if (!r->cluster && gpu_layers == 0) be = PLAN_CPU;
    char backends[sizeof rows->backends];
    snprintf(backends, sizeof backends, "%s%s", r->cluster && be == PLAN_CPU ? "" : plan_backend_bench_name(be),
             !r->cluster ? "" : be == PLAN_CPU ? "RPC" : ",RPC");
    int n = 0; /* the tests that fit: one that does not has no record (the caller says so) */
    for (int i = 0; i < r->n_bench; i++) {
        if (!(r->bench_tps[i] > 0)) continue;
        plan_bench_record *b = &rows[n++];
        snprintf(b->build_commit, sizeof b->build_commit, "%s", PLAN_BENCH_PREDICTED);
        snprintf(b->engine, sizeof b->engine, "llama.cpp");
        snprintf(b->backends, sizeof b->backends, "%s", backends);
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
        b->n_threads = hw->host.n_cores > 0 ? hw->host.n_cores : 0;
        /* the -ngl llama-bench would run this placement with: the plan's
         * (PLAN_NGL_ALL is llama-bench's default -1, every layer) */
        b->n_gpu_layers = r->params.n_gpu_layers;
        snprintf(b->type_k, sizeof b->type_k, "%s", ggml_type_get(r->params.type_k)->name);
        snprintf(b->type_v, sizeof b->type_v, "%s", ggml_type_get(r->params.type_v)->name);
        /* on is what -fa auto gives where the backend has the kernel (plan --fa) */
        b->flash_attn = r->params.flash_attn ? PLAN_BENCH_FA_AUTO : 0;
        plan_bench_tensor_split(r->params.tensor_split, (int)r->params.n_tensor_split, b->tensor_split,
                                sizeof b->tensor_split);
        b->test = r->bench[i];
        b->avg_ts = r->bench_tps[i];
        int tokens = b->test.n_prompt + b->test.n_gen;
        if (b->avg_ts > 0) b->avg_ns = 1e9 * tokens / b->avg_ts;
    }
    int rc = rep_bench_write(rows, n, fp, fmt, err);
    free(rows);
    return rc;
}

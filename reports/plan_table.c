/* A memory plan as a table (fitcheck plan -o md|csv|json|jsonl): one row per
 * device, with llama-bench's names for the fields it shares (model_type,
 * model_size, model_n_params, n_ubatch, type_k, type_v, flash_attn,
 * n_gpu_layers). docs/schema-plan.md describes the fields. */
#include "reports/table_impl.h"
#include "planner/planner.h"

enum {
    L_MODEL, L_SIZE, L_PARAMS, L_CTX, L_TYPE_K, L_TYPE_V, L_FA, L_UBATCH, L_NGL, L_DEVICE, L_DEVICE_NAME, L_BACKEND,
    L_LAYERS,
    L_WEIGHTS, L_KV, L_COMPUTE, L_OUTPUT, L_OVERHEAD, L_TOTAL, L_FREE, L_ANON, L_MAPPED, L_PINNED, L_REPACK, L_MARGIN, L_VERDICT, L_SCHEMA, L_COUNT
};
static const rep_col plan_cols[L_COUNT] = {
    [L_MODEL] = {"model_type", "model", REP_LEFT, false},
    [L_SIZE] = {"model_size", "size", REP_RIGHT, false},
    [L_PARAMS] = {"model_n_params", "params", REP_RIGHT, false},
    [L_CTX] = {"n_ctx", "ctx", REP_RIGHT, false},
    [L_TYPE_K] = {"type_k", NULL, REP_LEFT, false},
    [L_TYPE_V] = {"type_v", NULL, REP_LEFT, false},
    [L_FA] = {"flash_attn", NULL, REP_RIGHT, false},
    [L_UBATCH] = {"n_ubatch", NULL, REP_RIGHT, false},
    [L_NGL] = {"n_gpu_layers", NULL, REP_RIGHT, false},
    [L_DEVICE] = {"device", NULL, REP_LEFT, false},
    [L_DEVICE_NAME] = {"device_name", "device", REP_LEFT, false},
    [L_BACKEND] = {"backend", "backend", REP_LEFT, false},
    [L_LAYERS] = {"n_layers", "layers", REP_RIGHT, false},
    [L_WEIGHTS] = {"weights_bytes", "weights", REP_RIGHT, false},
    [L_KV] = {"kv_bytes", "KV cache", REP_RIGHT, false},
    [L_COMPUTE] = {"compute_bytes", "compute", REP_RIGHT, false},
    [L_OUTPUT] = {"output_bytes", "output", REP_RIGHT, false},
    [L_OVERHEAD] = {"overhead_bytes", "overhead", REP_RIGHT, false},
    [L_TOTAL] = {"total_bytes", "total", REP_RIGHT, false},
    [L_FREE] = {"free_bytes", "free", REP_RIGHT, false},
    /* as the OS sees it (docs/planner-memory.md): total = anon + mapped (reclaimable file pages) */
    [L_ANON] = {"anon_bytes", "anon", REP_RIGHT, false},
    [L_MAPPED] = {"mapped_bytes", "mapped (reclaimable)", REP_RIGHT, false},
    [L_PINNED] = {"pinned_bytes", NULL, REP_RIGHT, false},
    [L_REPACK] = {"repack_bytes", NULL, REP_RIGHT, false},
    [L_MARGIN] = {"margin_bytes", NULL, REP_RIGHT, false},
    [L_VERDICT] = {"verdict", "verdict", REP_LEFT, false},
    [L_SCHEMA] = {"schema", NULL, REP_LEFT, false},
};

static void device_row(rep_table *t, const plan_result *r, const plan_device *dev, const plan_dev_mem *dm) {
    const model_desc *d = r->model;
    const plan_params *p = &r->params;
    const model_ftype_info *ft = model_ftype_by_id(d->hp.file_type);
    rep_table_add_row(t);
    rep_row_mark(t, dm->verdict == PLAN_FITS ? REP_MARK_GOOD : dm->verdict == PLAN_TIGHT ? REP_MARK_WARN : REP_MARK_BAD);
    char model[200];
    snprintf(model, sizeof model, "%.120s %s", d->hp.name[0] ? d->hp.name : d->hp.arch, ft ? ft->name : "");
    rep_cell_str(t, L_MODEL, model);
    rep_cell_gib(t, L_SIZE, d->weight_bytes);
    rep_cell_i64(t, L_PARAMS, (int64_t)d->n_params);
    rep_cell_text(t, L_PARAMS, "%.2f B", (double)d->n_params / 1e9);
    rep_cell_i64(t, L_CTX, p->n_ctx);
    rep_cell_str(t, L_TYPE_K, ggml_type_get(p->type_k) ? ggml_type_get(p->type_k)->name : "?");
    rep_cell_str(t, L_TYPE_V, ggml_type_get(p->type_v) ? ggml_type_get(p->type_v)->name : "?");
    rep_cell_i64(t, L_FA, p->flash_attn);
    rep_cell_i64(t, L_UBATCH, p->n_ubatch);
    rep_cell_i64(t, L_NGL, plan_ngl_count(p, &d->hp));
    rep_cell_str(t, L_DEVICE, dev->id);
    rep_cell_str(t, L_DEVICE_NAME, dev->name);
    rep_cell_str(t, L_BACKEND, plan_backend_name(dev->backend));
    rep_cell_i64(t, L_LAYERS, dm->n_layers);
    const uint64_t parts[] = {dm->weights, dm->kv,     dm->compute, dm->output, dm->overhead, dm->total,
                              dm->capacity, dm->anon, dm->mapped,  dm->pinned, dm->repack};
    for (size_t i = 0; i < FC_ARRAY_LEN(parts); i++) rep_cell_gib(t, L_WEIGHTS + (int)i, parts[i]);
    rep_cell_i64(t, L_MARGIN, dm->margin);
    rep_cell_str(t, L_VERDICT, plan_verdict_name(dm->verdict));
    rep_cell_str(t, L_SCHEMA, REP_SCHEMA_PLAN);
}

rep_table *rep_plan_table(const plan_result *r, fc_err *err) {
    rep_table *t = rep_table_new(plan_cols, L_COUNT, "Memory per device", err);
    if (!t) return NULL;
    for (int g = 0; g < r->mem.n_gpu && g < PLAN_MAX_DEVICES; g++) device_row(t, r, &r->hw.gpu[g], &r->mem.gpu[g]);
    device_row(t, r, &r->hw.host, &r->mem.host);
    return t;
}

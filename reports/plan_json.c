/* A plan as one JSON document (fitcheck plan --json, docs/schema-plan.md).
 * Fields it shares with the -o rows (plan_table.c) have the same names and
 * meanings: "device" is the device id, "device_name" its name, and
 * n_gpu_layers is always a number (every layer and the output = n_layer + 1). */
#include "planner/planner.h"
#include "reports/reports.h"

json_t *rep_accuracy_json(const plan_accuracy *a) {
    json_t *j = json_object();
    for (int ph = 0; ph < PLAN_PHASES; ph++)
        if (a->rows[ph])
            json_object_set_new(j, plan_phase_name(ph),
                                json_pack("{s:i,s:f,s:f,s:i,s:f,s:i,s:f,s:i,s:f}", "rows", a->rows[ph],
                                          "median_abs_err", a->median[ph], "family_median_abs_err",
                                          a->family_median[ph], "old_rows", a->old_rows[ph], "old_median_abs_err",
                                          a->old_median[ph], "moe_rows", a->moe_rows[ph], "moe_median_abs_err",
                                          a->moe_median[ph], "deep_rows", a->deep_rows[ph], "deep_median_abs_err",
                                          a->deep_median[ph]));
    if (!json_object_size(j)) {
        json_decref(j);
        return json_null();
    }
    json_object_set_new(j, "set", json_string(plan_eff_set_name(a->set)));
    /* a catalog device: its chip generation, and whether any published result measures it */
    json_object_set_new(j, "family", a->family[0] ? json_string(a->family) : json_null());
    json_object_set_new(j, "family_measured", a->family[0] ? json_boolean(!a->unmeasured) : json_null());
    /* the plan's model is a model of experts: moe_rows and moe_median_abs_err are what to expect */
    json_object_set_new(j, "moe", json_boolean(a->moe));
    /* the plan's full context is PLAN_CV_DEEP or more: deep_rows and deep_median_abs_err are what to expect there */
    json_object_set_new(j, "deep", json_boolean(a->deep));
    return j;
}

static json_t *speed_json(const plan_speed_result *s) {
    json_t *o = json_pack("{s:f,s:f,s:i,s:f,s:f}", "pp512_tps", s->pp512, "tg128_tps", s->tg128, "depth",
                          (json_int_t)s->depth, "pp512_at_depth_tps", s->pp_depth, "tg128_at_depth_tps", s->tg_depth);
    /* a paged host: what each token reads from storage, and at what speed */
    json_object_set_new(o, "paged_bytes_per_token", json_integer((json_int_t)s->paged_bytes));
    json_object_set_new(o, "storage_gbs", s->paged_bytes > 0 ? json_real(s->storage_gbs) : json_null());
    json_object_set_new(o, "storage_assumed", json_boolean(s->storage_assumed));
    json_object_set_new(o, "tg128_bound", json_string(plan_bound_name(s->tg_bound)));
    json_object_set_new(o, "numa", json_string(plan_numa_name(s->numa)));
    /* fewer decode threads than the host's cores, where they decode faster (planner.h) */
    json_object_set_new(o, "decode_threads",
                        s->dec_threads ? json_pack("{s:i,s:i,s:f}", "threads", s->dec_threads, "of", s->threads,
                                                   "tg128_tps", s->tg128_dec_threads)
                                       : json_null());
    return o;
}

static json_t *device_json(const plan_device *dev, const plan_dev_mem *dm) {
    json_t *o = json_object();
    json_object_set_new(o, "device", json_string(dev->id));
    json_object_set_new(o, "device_name", json_string(dev->name));
    json_object_set_new(o, "backend", json_string(plan_backend_name(dev->backend)));
    json_object_set_new(o, "n_layers", json_integer(dm->n_layers));
    json_object_set_new(o, "layer_first", dm->n_layers ? json_integer(dm->layer_first) : json_null());
    json_object_set_new(o, "output", json_boolean(dm->has_output));
    json_object_set_new(o, "token_embd", json_boolean(dm->has_embd));
    const struct { const char *key; uint64_t v; } parts[] = {
        {"weights_bytes", dm->weights}, {"kv_bytes", dm->kv},       {"compute_bytes", dm->compute},
        {"output_bytes", dm->output},   {"overhead_bytes", dm->overhead}, {"total_bytes", dm->total},
        {"free_bytes", dm->capacity},
        /* as the OS sees it (docs/planner-memory.md): total = anon + mapped; pinned is part of anon */
        {"anon_bytes", dm->anon},       {"mapped_bytes", dm->mapped},     {"pinned_bytes", dm->pinned},
        {"repack_bytes", dm->repack},
        /* next to the model (part of total_bytes): --mmproj, --lora, --draft */
        {"mmproj_bytes", dm->mmproj},   {"lora_bytes", dm->lora},         {"draft_bytes", dm->draft},
    };
    for (size_t i = 0; i < FC_ARRAY_LEN(parts); i++) json_object_set_new(o, parts[i].key, json_integer((json_int_t)parts[i].v));
    json_object_set_new(o, "margin_bytes", json_integer((json_int_t)dm->margin));
    json_object_set_new(o, "verdict", json_string(plan_verdict_name(dm->verdict)));
    return o;
}

static json_t *extras_json(const plan_result *r) {
    const plan_extras *x = r->params.extras;
    json_t *o = json_object();
    if (x->mmproj) {
        const model_mmproj *m = x->mmproj;
        const plan_device *dev = r->mem.mmproj_dev >= 0 ? &r->hw.gpu[r->mem.mmproj_dev] : &r->hw.host;
        json_object_set_new(o, "mmproj", json_pack("{s:s,s:s,s:i,s:i,s:i,s:i,s:i,s:i,s:I,s:I,s:s,s:b}", "file", m->path,
                                                   "projector", m->projector, "image_size", (int)m->image_size,
                                                   "patch_size", (int)m->patch_size, "positions",
                                                   (int)r->mem.mmproj_positions, "n_layer", (int)m->n_layer, "n_embd",
                                                   (int)m->n_embd, "n_head", (int)m->n_head, "weight_bytes",
                                                   (json_int_t)m->weight_bytes, "compute_bytes",
                                                   (json_int_t)r->mem.mmproj_compute, "device", dev->id, "offload",
                                                   r->mem.mmproj_dev >= 0));
    }
    json_t *lora = json_array();
    for (int i = 0; i < x->n_lora; i++)
        json_array_append_new(lora, json_pack("{s:s,s:I,s:i,s:i,s:f}", "file", x->lora[i]->path, "bytes",
                                              (json_int_t)x->lora[i]->bytes, "rank", (int)x->lora[i]->rank, "pairs",
                                              (int)x->lora[i]->n_pairs, "alpha", (double)x->lora[i]->alpha));
    json_object_set_new(o, "lora", lora);
    if (x->draft)
        json_object_set_new(o, "draft", json_pack("{s:s,s:s,s:I,s:i}", "file", x->draft_file ? x->draft_file : "",
                                                  "source", x->draft->source, "n_params", (json_int_t)x->draft->n_params,
                                                  "n_gpu_layers", (int)plan_ngl_count(&(plan_params){.n_gpu_layers = x->draft_ngl},
                                                                                       &x->draft->hp)));
    return o;
}

static json_t *spec_json(const plan_spec *s) {
    json_t *rows = json_array();
    for (int a = 0; a < PLAN_SPEC_N_ACCEPT; a++)
        for (int k = 0; k < PLAN_SPEC_N_DRAFT; k++)
            json_array_append_new(rows, json_pack("{s:f,s:i,s:f,s:f,s:f}", "acceptance", s->accept[a], "n_draft",
                                                  (int)s->n_draft[k], "verify_s", s->verify_s[k], "tps", s->tps[a][k],
                                                  "speedup", s->speedup[a][k]));
    return json_pack("{s:f,s:f,s:s,s:o}", "target_tps", 1.0 / s->target_s, "draft_tps", 1.0 / s->draft_s, "formula",
                     "tokens per step (1 - a^(k+1)) / (1 - a) (Leviathan et al. 2023, eq. 1); "
                     "tps = tokens / (k * draft_s + verify_s)", "table", rows);
}

static json_t *choice_json(const plan_result *r) {
    const plan_choice *c = r->choice;
    json_t *rows = json_array();
    for (int i = 0; i < c->n_row; i++) {
        const plan_choice_row *q = &c->row[i];
        json_t *j = json_pack("{s:s,s:I,s:s,s:b}", "quant", q->quant, "file_bytes", (json_int_t)q->file_bytes, "fits",
                              plan_where_name(q->where), "experts_in_ram", q->params.exps_on_host);
        json_object_set_new(j, "n_cpu_moe", json_integer(q->params.exps_on_host ? 0 : q->params.n_cpu_moe));
        json_object_set_new(j, "n_gpu_layers", json_integer(plan_ngl_count(&q->params, &r->model->hp)));
        json_object_set_new(j, "speed", q->has_speed ? speed_json(&q->speed) : json_null());
        json_object_set_new(j, "ppl_increase_pct", q->ppl_pct >= 0 ? json_real(q->ppl_pct) : json_null());
        json_object_set_new(j, "kl_divergence", q->kld >= 0 ? json_real(q->kld) : json_null());
        json_object_set_new(j, "quality_from", json_string(q->quality_from));
        json_object_set_new(j, "quality_borrowed", json_boolean(q->quality_borrowed));
        json_object_set_new(j, "quality_scale", json_real(q->quality_scale));
        json_object_set_new(j, "native", json_boolean(q->native));
        json_object_set_new(j, "why", json_string(q->why));
        json_array_append_new(rows, j);
    }
    return rows;
}

static json_t *recommendation_json(const plan_result *r) {
    const plan_choice *c = r->choice;
    json_t *rec = json_object();
    json_object_set_new(rec, "reason", json_string(c->reason));
    json_object_set_new(rec, "quality_family", json_string(c->quality_family));
    json_object_set_new(rec, "quality_note", c->quality_note[0] ? json_string(c->quality_note) : json_null());
    json_object_set_new(rec, "n_ctx", json_integer(c->n_ctx));
    json_object_set_new(rec, "min_tps", json_real(c->min_tps));
    json_object_set_new(rec, "runner_up", c->runner_up >= 0 ? json_string(c->row[c->runner_up].quant) : json_null());
    if (c->best >= 0) {
        json_object_set_new(rec, "quant", json_string(c->row[c->best].quant));
        json_object_set_new(rec, "file", json_string(r->rec_file));
        json_object_set_new(rec, "file_exists", json_boolean(r->rec_file_exists));
        json_object_set_new(rec, "llama_cpp", json_string(r->rec_llama));
        json_object_set_new(rec, "ollama", json_string(r->rec_ollama));
    }
    return rec;
}

json_t *rep_plan_json(const plan_result *r) {
    const model_desc *d = r->model;
    const plan_params *p = &r->params;
    const model_ftype_info *ft = model_ftype_by_id(d->hp.file_type);
    json_t *root = json_object(), *devs = json_array();
    json_object_set_new(root, "model",
                        json_pack("{s:s,s:s,s:s,s:o,s:I,s:I,s:I,s:i}", "name", d->hp.name, "source", d->source,
                                  "architecture", d->hp.arch, "quant", ft ? json_string(ft->name) : json_null(),
                                  "file_bytes", (json_int_t)d->file_bytes, "weight_bytes",
                                  (json_int_t)d->weight_bytes, "n_params", (json_int_t)d->n_params, "n_layer",
                                  (int)d->hp.n_layer));
    json_t *s = json_object();
    json_object_set_new(s, "n_ctx", json_integer(p->n_ctx));
    json_object_set_new(s, "kv_cells", json_integer(r->mem.kv_cells));
    json_object_set_new(s, "kv_cells_swa", json_integer(r->mem.kv_cells_swa));
    json_object_set_new(s, "type_k", json_string(ggml_type_get(p->type_k)->name));
    json_object_set_new(s, "type_v", json_string(ggml_type_get(p->type_v)->name));
    json_object_set_new(s, "kv_bytes", json_integer((json_int_t)r->mem.kv_bytes));
    json_object_set_new(s, "n_ubatch", json_integer(p->n_ubatch));
    json_object_set_new(s, "n_batch", json_integer(p->n_batch));
    json_object_set_new(s, "flash_attn", json_boolean(p->flash_attn));
    json_object_set_new(s, "n_parallel", json_integer(p->n_parallel));
    json_object_set_new(s, "n_gpu_layers", json_integer(plan_ngl_count(p, &d->hp)));
    /* --llama-build: the build planned for, null = a current one; old: of the era before July 2024 */
    json_object_set_new(s, "llama_build", p->llama_build ? json_integer(p->llama_build) : json_null());
    json_object_set_new(s, "build_era", json_string(plan_build_old(p->llama_build) ? "old" : "current"));
    json_object_set_new(root, "settings", s);
    json_object_set_new(root, "hardware", json_string(r->hw.label));
    for (int g = 0; g < r->hw.n_gpu; g++) {
        json_t *dj = device_json(&r->hw.gpu[g], &r->mem.gpu[g]);
        /* Apple: the iogpu.wired_limit_mb that makes this GPU fit, null when none does or it fits */
        json_object_set_new(dj, "wired_limit_mb", r->wired_limit_mb[g] ? json_integer(r->wired_limit_mb[g]) : json_null());
        json_array_append_new(devs, dj);
    }
    json_array_append_new(devs, device_json(&r->hw.host, &r->mem.host));
    json_object_set_new(root, "devices", devs);
    json_object_set_new(root, "verdict", json_string(plan_verdict_name(r->mem.verdict)));
    json_object_set_new(root, "verdict_advice", r->verdict_advice[0] ? json_string(r->verdict_advice) : json_null());
    json_object_set_new(root, "free_memory_source", json_string(r->hw.host.source));
    json_t *notes = json_array();
    for (int i = 0; i < r->n_note; i++) json_array_append_new(notes, json_string(r->note[i]));
    json_object_set_new(root, "notes", notes);
    json_object_set_new(root, "file", json_string(r->file));
    json_object_set_new(root, "llama_cpp", json_string(r->llama_cmd));
    json_object_set_new(root, "speed", r->has_speed ? speed_json(&r->speed) : json_null());
    if (r->params.extras) json_object_set_new(root, "extras", extras_json(r));
    if (r->has_spec) json_object_set_new(root, "speculative", spec_json(&r->spec));
    if (!r->has_speed) json_object_set_new(root, "speed_note", json_string(r->speed_note));
    json_object_set_new(root, "speed_accuracy", r->has_speed ? rep_accuracy_json(&r->accuracy) : json_null());
    if (r->n_sweep) {
        json_t *sw = json_array();
        for (int i = 0; i < r->n_sweep; i++) json_array_append_new(sw, speed_json(&r->sweep[i]));
        json_object_set_new(root, "ctx_sweep", sw);
    }
    if (r->choice) {
        json_object_set_new(root, "quantizations", choice_json(r));
        json_object_set_new(root, "recommendation", recommendation_json(r));
    }
    return root;
}

json_t *rep_rank_json(const plan_result *r, const plan_rank *rk, double min_tps) {
    const model_ftype_info *ft = model_ftype_by_id(r->model->hp.file_type);
    json_t *arr = json_array();
    for (size_t i = 0; i < rk->n; i++) {
        const plan_rank_row *x = &rk->row[i];
        json_t *j = json_pack("{s:s,s:f,s:s}", "device", x->id, "memory_gib", x->mem_gib, "fits",
                              plan_where_name(x->where));
        json_object_set_new(j, "n_gpu_layers", json_integer(plan_ngl_count(&x->params, &r->model->hp)));
        json_object_set_new(j, "backend", json_string(plan_backend_name(x->backend)));
        json_object_set_new(j, "launch_price_usd", x->price_usd > 0 ? json_real(x->price_usd) : json_null());
        json_object_set_new(j, "below_floor", json_boolean(x->below_floor));
        json_object_set_new(j, "prefill_unvalidated", json_boolean(x->prefill_unvalidated));
        json_object_set_new(j, "speed_accuracy", x->where == PLAN_ON_NONE ? json_null() : rep_accuracy_json(&x->accuracy));
        json_object_set_new(j, "speed", x->where == PLAN_ON_NONE ? json_null() : speed_json(&x->speed));
        json_array_append_new(arr, j);
    }
    json_t *root = json_pack("{s:s,s:s,s:i,s:f}", "model", r->model->source, "quant", ft ? ft->name : "?", "n_ctx",
                             (json_int_t)r->params.n_ctx, "min_tps", min_tps);
    /* as the plan's settings: the build ranked for (--llama-build), null = a current one */
    json_object_set_new(root, "llama_build", r->params.llama_build ? json_integer(r->params.llama_build) : json_null());
    json_object_set_new(root, "build_era", json_string(plan_build_old(r->params.llama_build) ? "old" : "current"));
    json_object_set_new(root, "hardware", arr);
    return root;
}

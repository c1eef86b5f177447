/* `fitcheck models`: the built-in model catalog, as a table and as JSON
 * (docs/schema-models.md). */
#include "reports/reports.h"

void rep_models_text(FILE *out, const model_catalog_summary *v, size_t n) {
    fprintf(out, "%-18s %-10s %6s %9s %9s %10s %9s  %s\n", "name", "arch", "layers", "params", "active", "KV/token",
            MODEL_DEFAULT_QUANT, "train ctx");
    for (size_t i = 0; i < n; i++) {
        const model_catalog_summary *s = &v[i];
        char kb[24], fb[24], act[24] = "-";
        if (s->info.active_params_reference)
            snprintf(act, sizeof act, "%.1f B", (double)s->info.active_params_reference / 1e9);
        fprintf(out, "%-18s %-10s %6u %7.1f B %9s %10s %9s  %u\n", s->info.name, s->arch, s->n_layer,
                (double)s->n_params / 1e9, act, fc_fmt_bytes(s->kv_bytes_per_token_f16, kb, sizeof kb),
                fc_fmt_bytes(s->file_bytes, fb, sizeof fb), s->n_ctx_train);
    }
    fprintf(out, "\n%zu models. Sources: 'fitcheck models --json' (each entry's \"source\").\n", n);
}

json_t *rep_models_json(const model_catalog_summary *v, size_t n) {
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) {
        const model_catalog_summary *s = &v[i];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(s->info.name));
        json_object_set_new(o, "display", json_string(s->info.display));
        json_object_set_new(o, "hf_repo", json_string(s->info.hf_repo));
        json_object_set_new(o, "architecture", json_string(s->arch));
        json_object_set_new(o, "n_layer", json_integer(s->n_layer));
        json_object_set_new(o, "n_params", json_integer((json_int_t)s->n_params));
        json_object_set_new(o, "n_params_reference", json_integer((json_int_t)s->info.params_reference));
        json_object_set_new(o, "n_params_active_reference", json_integer((json_int_t)s->info.active_params_reference));
        json_object_set_new(o, "n_expert", json_integer(s->n_expert));
        json_object_set_new(o, "kv_bytes_per_token_f16", json_integer((json_int_t)s->kv_bytes_per_token_f16));
        json_object_set_new(o, "file_bytes_" MODEL_DEFAULT_QUANT, json_integer((json_int_t)s->file_bytes));
        json_object_set_new(o, "n_ctx_train", json_integer(s->n_ctx_train));
        json_object_set_new(o, "confidence", json_string(s->info.confidence));
        json_object_set_new(o, "source", json_string(s->info.source));
        json_array_append_new(arr, o);
    }
    return arr;
}

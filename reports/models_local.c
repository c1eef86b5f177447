/* `fitcheck models --local`: the models on this machine with their plan's
 * verdict and decode speed (planner/local.c), as a table and as JSON
 * (docs/schema-models.md). */
#include "reports/reports.h"

#include <stdlib.h>

void rep_models_local_text(FILE *out, const plan_local_model *v, size_t n) {
    fprintf(out, "%-9s %-44s %10s %-12s %10s  %s\n", "store", "model", "size", "verdict", "tg128",
            "spec (for fitcheck plan)");
    for (size_t i = 0; i < n; i++) {
        const plan_local_model *m = &v[i];
        char size[24], tps[24] = "-";
        if (m->planned && m->tg128 > 0) snprintf(tps, sizeof tps, "%.1f t/s", m->tg128);
        fprintf(out, "%-9s %-44s %10s %-12s %10s  %s%s\n", model_store_name(m->found.store), fc_safe(m->found.name),
                fc_fmt_bytes(m->found.bytes, size, sizeof size), m->planned ? plan_verdict_name(m->verdict) : "-", tps,
                m->planned ? "" : "error: ", fc_safe(m->planned ? m->found.spec : m->error));
    }
    fprintf(out, "\n%zu model%s found on disk.\n", n, n == 1 ? "" : "s");
    plan_accuracy *acc = malloc(sizeof *acc * (n + 1));
    size_t n_acc = 0;
    for (size_t i = 0; acc && i < n; i++)
        if (v[i].planned && v[i].tg128 > 0) acc[n_acc++] = v[i].accuracy;
    if (acc) rep_accuracy_line(out, acc, n_acc);
    free(acc);
}

json_t *rep_models_local_json(const plan_local_model *v, size_t n) {
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) {
        const plan_local_model *m = &v[i];
        json_t *o = json_object();
        json_object_set_new(o, "store", json_string(model_store_name(m->found.store)));
        json_object_set_new(o, "name", json_string(m->found.name));
        json_object_set_new(o, "spec", json_string(m->found.spec));
        json_object_set_new(o, "path", json_string(m->found.path));
        json_object_set_new(o, "bytes", json_integer((json_int_t)m->found.bytes));
        json_object_set_new(o, "verdict", m->planned ? json_string(plan_verdict_name(m->verdict)) : json_null());
        json_object_set_new(o, "error", m->planned ? json_null() : json_string(m->error));
        json_object_set_new(o, "tg128_tps", m->planned && m->tg128 > 0 ? json_real(m->tg128) : json_null());
        json_object_set_new(o, "speed_accuracy", m->planned && m->tg128 > 0 ? rep_accuracy_json(&m->accuracy) : json_null());
        json_array_append_new(arr, o);
    }
    return arr;
}

/* `fitcheck hw`: the built-in hardware catalog, as a table and as JSON
 * (docs/schema-hw.md). */
#include "reports/reports.h"

void rep_hw_text(FILE *out, const plan_hw_entry *v, size_t n) {
    fprintf(out, "%-32s %-15s %-7s %-22s %9s %10s %10s  %s\n", "id", "category", "backend", "memory (GiB)", "GB/s",
            "FP16 TF", "FP32 TF", "confidence");
    for (size_t i = 0; i < n; i++) {
        const plan_hw_entry *e = &v[i];
        char mem[64] = "", family[64], id[sizeof e->id + 2];
        /* 8: room for one more "/NNN.N" */
        for (int m = 0, used = 0; m < e->n_memory && used < (int)sizeof mem - 8; m++)
            used += snprintf(mem + used, sizeof mem - (size_t)used, "%s%g", m ? "/" : "", e->memory_gb[m]);
        snprintf(id, sizeof id, "%s%s", e->id, plan_corpus_device_measured(e->id, family, sizeof family) ? "" : " ~");
        fprintf(out, "%-32s %-15s %-7s %-22s %9.0f %10.1f %10.1f  %s\n", id, e->category,
                plan_backend_name(plan_hw_entry_backend(e)), mem, e->bandwidth_gbs, e->fp16_tflops, e->fp32_tflops,
                e->confidence);
    }
    fprintf(out, "\n%zu entries. backend: what llama.cpp runs there by default ('plan --backend' picks another; the ones "
                 "each device can run and the sources per row: 'fitcheck hw --json'). ~: no published result measures "
                 "its chip generation, so its speeds are as sure as a whole device family held out (docs/speed-model.md).\n",
            n);
}

static json_t *num_array(const double *v, int n) {
    json_t *a = json_array();
    for (int i = 0; i < n; i++) json_array_append_new(a, json_real(v[i]));
    return a;
}

json_t *rep_hw_json(const plan_hw_entry *v, size_t n) {
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) {
        const plan_hw_entry *e = &v[i];
        json_t *o = json_object();
        json_object_set_new(o, "id", json_string(e->id));
        json_object_set_new(o, "vendor", json_string(e->vendor));
        json_object_set_new(o, "name", json_string(e->name));
        json_object_set_new(o, "category", json_string(e->category));
        json_object_set_new(o, "backend", json_string(plan_backend_name(plan_hw_entry_backend(e))));
        json_t *can = json_array();
        unsigned mask = plan_hw_entry_backends(e);
        for (int b = 0; b < PLAN_BACKEND_COUNT; b++)
            if (mask & (1u << b)) json_array_append_new(can, json_string(plan_backend_name(b)));
        json_object_set_new(o, "backends", can);
        json_object_set_new(o, "memory_gib", num_array(e->memory_gb, e->n_memory));
        json_object_set_new(o, "gpu_mem_share", num_array(e->gpu_share, e->n_memory));
        json_object_set_new(o, "memory_type", json_string(e->memory_type));
        json_object_set_new(o, "bandwidth_gbs", json_real(e->bandwidth_gbs));
        json_object_set_new(o, "fp16_tensor_tflops", json_real(e->fp16_tflops));
        json_object_set_new(o, "bf16_fp32acc_tflops", json_real(e->bf16_tflops));
        json_object_set_new(o, "fp32_tflops", json_real(e->fp32_tflops));
        json_object_set_new(o, "int8_tops", json_real(e->int8_tops));
        json_object_set_new(o, "host_interface", json_string(e->host_interface));
        json_object_set_new(o, "launch_price_usd", e->price_usd > 0 ? json_real(e->price_usd) : json_null());
        json_object_set_new(o, "price_source", e->price_usd > 0 ? json_string(e->price_source) : json_null());
        json_object_set_new(o, "unverified_fields", json_string(e->unverified));
        json_object_set_new(o, "confidence", json_string(e->confidence));
        char family[64];
        bool measured = plan_corpus_device_measured(e->id, family, sizeof family);
        json_object_set_new(o, "family", json_string(family));
        json_object_set_new(o, "family_measured", json_boolean(measured));
        json_object_set_new(o, "source", json_string(e->source));
        json_array_append_new(arr, o);
    }
    return arr;
}

/* Fills a rep_plan_view from the planner: memory per device for the model
 * as given, and the quantization ladder (size and fit of each). */
#include "reports/table_impl.h"
#include "planner/planner.h"

#include <string.h>

/* Highest quality first, as the recommendation walks it. */
static const char *const quant_ladder[] = {"Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "IQ4_XS", "Q3_K_M", "Q2_K", "IQ2_XXS"};

static void device_fill(rep_plan_device *out, const char *name, const plan_dev_mem *dm) {
    snprintf(out->name, sizeof out->name, "%s", name);
    out->capacity = dm->capacity;
    out->part[REP_MEM_WEIGHTS] = dm->weights;
    out->part[REP_MEM_KV] = dm->kv;
    /* The output (logits) buffer is a compute-side buffer: drawn with them. */
    out->part[REP_MEM_COMPUTE] = dm->compute + dm->output;
    out->part[REP_MEM_OVERHEAD] = dm->overhead;
    out->part[REP_MEM_FREE] = dm->total < dm->capacity ? dm->capacity - dm->total : 0;
}

static int ladder_fill(rep_plan_view *v, const model_hparams *hp, const plan_hw *hw, const plan_params *p,
                       fc_err *err) {
    plan_memory m;
    int best = -1;
    for (size_t q = 0; q < FC_ARRAY_LEN(quant_ladder) && v->n_quants < REP_MAX_QUANTS; q++) {
        model_desc d;
        int rc = model_desc_synthesize(&d, hp, quant_ladder[q], err);
        if (rc) return rc;
        rc = plan_memory_compute(&m, &d, hw, p, err);
        uint64_t size = d.weight_bytes;
        model_desc_free(&d);
        if (rc) return rc;
        rep_plan_quant *x = &v->quants[v->n_quants];
        snprintf(x->name, sizeof x->name, "%s", quant_ladder[q]);
        x->size = size;
        x->fits = m.verdict != PLAN_NO_FIT;
        x->quality_loss = -1;
        if (best < 0 && m.verdict == PLAN_FITS) best = v->n_quants;
        v->n_quants++;
    }
    if (best >= 0) v->quants[best].recommended = true;
    return FC_OK;
}

int rep_plan_view_build(rep_plan_view *v, const char *spec, const plan_hw *hw, const plan_params *p, fc_err *err) {
    memset(v, 0, sizeof *v);
    model_desc d;
    int rc = model_load(&d, spec, NULL, err);
    if (rc) return rc;
    const model_ftype_info *ft = model_ftype_by_id(d.hp.file_type);
    snprintf(v->model, sizeof v->model, "%s", d.hp.name[0] ? d.hp.name : spec);
    snprintf(v->source, sizeof v->source, "%.63s", d.source);
    snprintf(v->quant, sizeof v->quant, "%s", ft ? ft->name : "mixed");
    v->n_ctx = (int)p->n_ctx;
    plan_memory m;
    rc = plan_memory_compute(&m, &d, hw, p, err);
    if (!rc) {
        for (int g = 0; g < m.n_gpu && v->n_dev < REP_MAX_DEVICES; g++)
            device_fill(&v->dev[v->n_dev++], hw->gpu[g].name, &m.gpu[g]);
        char host[64];
        snprintf(host, sizeof host, "CPU RAM (%.50s)", hw->host.name);
        device_fill(&v->dev[v->n_dev++], host, &m.host);
        rc = ladder_fill(v, &d.hp, hw, p, err);
    }
    model_desc_free(&d);
    if (rc) return fc_err_prefix(err, "planning %s: ", spec);
    snprintf(v->note, sizeof v->note, "%.60s at %s, context %u, on %.150s.", v->model, v->quant, p->n_ctx, hw->label);
    return FC_OK;
}

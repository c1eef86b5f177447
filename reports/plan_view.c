/* Fills a rep_plan_view from the planner: memory per device for the model
 * as given, speed against context depth, and the planner's choice of
 * quantization with its llama.cpp command. */
#include "reports/table_impl.h"
#include "planner/planner.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

/* llama-bench's depths (-d): 0, 512, 1024, ... up to the context. */
static int depths_fill(rep_plan_view *v, const model_desc *d, const plan_hw *hw, const plan_memory *m,
                       const plan_params *p, const plan_efficiency *e, fc_err *err) {
    for (uint32_t depth = 0; v->n_depths < REP_MAX_DEPTHS && depth <= p->n_ctx; depth = depth ? depth * 2 : 512) {
        plan_speed_result r;
        int rc = plan_speed_predict(d, hw, m, p, e, depth, &r, err);
        if (rc) return rc;
        v->depth[v->n_depths] = depth;
        v->pp_ts[v->n_depths] = r.pp_depth;
        v->tg_ts[v->n_depths] = r.tg_depth;
        v->n_depths++;
    }
    return FC_OK;
}

/* The file llama.cpp would load: the GGUF given, else "<model>-<QUANT>.gguf". */
static void model_file(const char *spec, const char *quant, char *buf, size_t cap) {
    size_t n = strlen(spec);
    if (n > 5 && !strcasecmp(spec + n - 5, ".gguf"))
        snprintf(buf, cap, "%s", spec);
    else
        snprintf(buf, cap, "%s-%s.gguf", spec, quant);
}

static int choice_fill(rep_plan_view *v, const char *spec, const plan_hw *hw, const plan_params *p,
                       const plan_efficiency *e, fc_err *err) {
    plan_choice *c = fc_calloc(1, sizeof *c, err);
    if (!c) return FC_ERUNTIME;
    int rc = plan_choose(c, spec, hw, p, 0, e, err);
    for (int i = 0; !rc && i < c->n_row && v->n_quants < REP_MAX_QUANTS; i++) {
        const plan_choice_row *r = &c->row[i];
        rep_plan_quant *x = &v->quants[v->n_quants++];
        snprintf(x->name, sizeof x->name, "%s", r->quant);
        snprintf(x->where, sizeof x->where, "%s", plan_where_name(r->where));
        x->size = r->file_bytes;
        x->fits = r->where != PLAN_ON_NONE;
        x->pp_ts = x->fits ? r->speed.pp512 : 0;
        x->tg_ts = x->fits ? r->speed.tg128 : 0;
        x->quality_loss = r->ppl_pct;
        x->recommended = i == c->best;
    }
    if (!rc && c->best >= 0) {
        char file[1200], ollama[256];
        model_file(spec, c->row[c->best].quant, file, sizeof file);
        plan_choice_commands(c, file, v->command, sizeof v->command, ollama, sizeof ollama);
        snprintf(v->note, sizeof v->note, "Recommended: %s at context %u, %.150s.", c->row[c->best].quant, c->n_ctx,
                 c->reason);
    } else if (!rc) {
        snprintf(v->note, sizeof v->note, "Nothing recommended: %.200s.", c->reason);
    }
    free(c);
    return rc;
}

int rep_plan_view_build(rep_plan_view *v, const char *spec, const plan_hw *hw, const plan_params *p, fc_err *err) {
    memset(v, 0, sizeof *v);
    model_desc d;
    int rc = model_load(&d, spec, NULL, err);
    if (rc) return fc_err_prefix(err, "planning %s: ", spec);
    const model_ftype_info *ft = model_ftype_by_id(d.hp.file_type);
    snprintf(v->model, sizeof v->model, "%s", d.hp.name[0] ? d.hp.name : spec);
    snprintf(v->source, sizeof v->source, "%.63s", d.source);
    snprintf(v->quant, sizeof v->quant, "%s", ft ? ft->name : "mixed");
    v->n_ctx = (int)p->n_ctx;
    plan_memory *m = fc_calloc(1, sizeof *m, err);
    plan_efficiency *e = fc_calloc(1, sizeof *e, err);
    rc = m && e ? plan_memory_compute(m, &d, hw, p, err) : FC_ERUNTIME;
    if (!rc) {
        for (int g = 0; g < m->n_gpu && v->n_dev < REP_MAX_DEVICES; g++)
            device_fill(&v->dev[v->n_dev++], hw->gpu[g].name, &m->gpu[g]);
        char host[64];
        snprintf(host, sizeof host, "CPU RAM (%.50s)", hw->host.name);
        device_fill(&v->dev[v->n_dev++], host, &m->host);
        rc = plan_efficiency_load(e, NULL, err);
    }
    if (!rc) {
        /* No speed is not fatal: a machine without measured bandwidth still
         * gets its memory plan, and the note says why speed is missing. */
        fc_err serr = {0};
        if (depths_fill(v, &d, hw, m, p, e, &serr) == FC_OK) {
            rc = choice_fill(v, spec, hw, p, e, err);
        } else {
            v->n_depths = 0;
            snprintf(v->note, sizeof v->note, "Speed not predicted: %.220s", serr.msg);
        }
    }
    model_desc_free(&d);
    free(m);
    free(e);
    return rc ? fc_err_prefix(err, "planning %s: ", spec) : FC_OK;
}

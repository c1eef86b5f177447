/* The HTML report's view of a plan: copies what the page draws out of a
 * plan_result (memory per device, speed against depth, the quantization
 * table, the recommended command), so the page never plans anything itself
 * and prints the same command as `fitcheck plan`. */
#include "reports/table_impl.h"
#include "planner/planner.h"

#include <string.h>

_Static_assert(sizeof(((rep_plan_view *)0)->command) >= PLAN_CMD_MAX, "the page holds the planner's whole command");

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

static void choice_fill(rep_plan_view *v, const plan_result *r) {
    const plan_choice *c = r->choice;
    for (int i = 0; i < c->n_row && v->n_quants < REP_MAX_QUANTS; i++) {
        const plan_choice_row *q = &c->row[i];
        rep_plan_quant *x = &v->quants[v->n_quants++];
        snprintf(x->name, sizeof x->name, "%s", q->quant);
        snprintf(x->where, sizeof x->where, "%s", plan_where_name(q->where));
        x->size = q->file_bytes;
        x->fits = q->where != PLAN_ON_NONE;
        x->pp_ts = q->has_speed ? q->speed.pp512 : 0;
        x->tg_ts = q->has_speed ? q->speed.tg128 : 0;
        snprintf(x->tg_bound, sizeof x->tg_bound, "%s", x->fits && q->has_speed ? plan_bound_name(q->speed.tg_bound) : "");
        x->quality_loss = q->ppl_pct;
        x->recommended = i == c->best;
    }
    if (c->best >= 0) {
        snprintf(v->command, sizeof v->command, "%s", r->rec_llama);
        snprintf(v->note, sizeof v->note, "Recommended: %s at context %u, %.150s.", c->row[c->best].quant, c->n_ctx,
                 c->reason);
    } else {
        snprintf(v->note, sizeof v->note, "Nothing recommended: %.200s.", c->reason);
    }
}

/* Whether a set has results of a phase, decode or prefill. */
static bool any_rows(const int *n) { return n[PLAN_PHASE_DECODE] || n[PLAN_PHASE_PREFILL]; }

/* " 5% on decode (94 published results) and 11% on prefill (185)": the phases with results. */
static size_t medians_say(char *buf, size_t cap, const int *n, const double *med) {
    size_t len = 0;
    const char *sep = "", *unit = " published results";
    for (int ph = 0; ph < PLAN_PHASES && len < cap; ph++)
        if (n[ph]) {
            len += (size_t)snprintf(buf + len, cap - len, "%s %.0f%% on %s (%d%s)", sep, 100 * med[ph],
                                    plan_phase_name(ph), n[ph], unit);
            sep = " and", unit = "";
        }
    return len;
}

/* The held-out error a user should expect: one source held out, or, on a
 * device whose chip generation no published result measures, one whole
 * device family held out (what a buyer asks about is a device nobody measured);
 * for a build before July 2024 (plan --llama-build), that of the results of
 * such builds, where there are some; for a model of experts, that of such
 * models, or, where the backend has none, a word that none measures it (their
 * routing and expert kernels are each backend's own: SYCL's batched
 * mul_mat_id, for one, runs a GEMM per expert after a wait on the host); and
 * for a plan whose full context is PLAN_CV_DEEP deep or more, the error of the
 * results that deep, or a word that none is. */
void rep_accuracy_sentence(const plan_accuracy *a, char *buf, size_t cap) {
    bool old = !a->unmeasured && a->old_build && any_rows(a->old_rows);
    bool moe_rows = any_rows(a->moe_rows);
    bool moe = !a->unmeasured && !old && a->moe && moe_rows;
    const int *n = old ? a->old_rows : moe ? a->moe_rows : a->rows;
    buf[0] = '\0';
    if (!any_rows(n)) return;
    size_t len = a->moe && !moe_rows ? (size_t)snprintf(buf, cap, "no published result measures a model of experts on %s; ",
                                                        plan_eff_set_name(a->set))
                                     : 0;
    if (len >= cap) return;
    len += a->unmeasured ? (size_t)snprintf(buf + len, cap - len, "no published result measures its chip generation (%s); "
                                            "held out one device family at a time, %s predictions were off by a median",
                                            a->family, plan_eff_set_name(a->set))
                         : (size_t)snprintf(buf + len, cap - len, "%sheld out one source at a time, %s predictions%s were "
                                            "off by a median", old ? "on builds before July 2024, " : "",
                                            plan_eff_set_name(a->set), moe ? " of models of experts" : "");
    const double *med = a->unmeasured ? a->family_median : old ? a->old_median : moe ? a->moe_median : a->median;
    if (len < cap) len += medians_say(buf + len, cap - len, n, med);
    if (!a->deep || len >= cap) return;
    if (any_rows(a->deep_rows)) {
        len += (size_t)snprintf(buf + len, cap - len, "; at %dk tokens of context or more,", PLAN_CV_DEEP / 1024);
        if (len < cap) medians_say(buf + len, cap - len, a->deep_rows, a->deep_median);
    } else {
        snprintf(buf + len, cap - len, "; no published result measures %s at %dk tokens of context or more",
                 plan_eff_set_name(a->set), PLAN_CV_DEEP / 1024);
    }
}

/* One set's decode / prefill medians: " 5% / 11%". */
static void medians_put(FILE *out, const int *rows, const double *med) {
    for (int ph = 0; ph < PLAN_PHASES; ph++) {
        fprintf(out, "%s", ph ? " /" : "");
        if (rows[ph]) fprintf(out, " %.0f%%", 100 * med[ph]);
        else fprintf(out, " -");
    }
}

/* The sets' held-out medians, one source held out (for a model of experts,
 * those of such models, and of all where a set has none: it says so); and,
 * for the sets of rows on a chip generation nobody measured, one whole device
 * family held out. */
void rep_accuracy_line(FILE *out, const plan_accuracy *a, size_t n) {
    bool unmeasured[PLAN_EFF_SETS] = {false}, any = false, any_un = false;
    const plan_accuracy *of_set[PLAN_EFF_SETS] = {NULL}; /* the first row of each set, the one shown */
    for (size_t i = 0; i < n; i++) {
        if (a[i].set < 0 || a[i].set >= PLAN_EFF_SETS || !any_rows(a[i].rows))
            continue;
        unmeasured[a[i].set] |= a[i].unmeasured;
        if (of_set[a[i].set]) continue;
        of_set[a[i].set] = &a[i];
        bool moe = a[i].moe && any_rows(a[i].moe_rows);
        fprintf(out, "%s %s%s", any ? "," : a[i].moe ? "accuracy: held out one source at a time, the median error on "
                                                        "decode / prefill of models of experts was"
                                                      : "accuracy: held out one source at a time, the median error on "
                                                        "decode / prefill was",
                plan_eff_set_name(a[i].set), a[i].moe && !moe ? " (none measured; all models)" : "");
        medians_put(out, moe ? a[i].moe_rows : a[i].rows, moe ? a[i].moe_median : a[i].median);
        any = true;
    }
    for (int s = 0; s < PLAN_EFF_SETS; s++) {
        if (!unmeasured[s]) continue;
        fprintf(out, "%s %s", any_un ? "," : "; one device family held out", plan_eff_set_name(s));
        medians_put(out, of_set[s]->rows, of_set[s]->family_median);
        any_un = true;
    }
    if (any) fprintf(out, " (data/speed_accuracy.csv)\n");
}

void rep_plan_view_fill(rep_plan_view *v, const plan_result *r) {
    memset(v, 0, sizeof *v);
    const model_desc *d = r->model;
    const model_ftype_info *ft = model_ftype_by_id(d->hp.file_type);
    snprintf(v->model, sizeof v->model, "%.127s", d->hp.name[0] ? d->hp.name : d->source);
    snprintf(v->source, sizeof v->source, "%.63s", d->source);
    snprintf(v->quant, sizeof v->quant, "%s", ft ? ft->name : "mixed");
    v->n_ctx = (int)r->params.n_ctx;
    for (int g = 0; g < r->mem.n_gpu && v->n_dev < REP_MAX_DEVICES; g++)
        device_fill(&v->dev[v->n_dev++], r->hw.gpu[g].name, &r->mem.gpu[g]);
    char host[64];
    snprintf(host, sizeof host, "CPU RAM (%.50s)", r->hw.host.name);
    device_fill(&v->dev[v->n_dev++], host, &r->mem.host);
    for (int i = 0; i < r->n_note; i++) memcpy(v->warning[v->n_warning++], r->note[i], PLAN_NOTE_LEN);
    if (!r->has_speed) {
        snprintf(v->note, sizeof v->note, "Speed not predicted: %.220s", r->speed_note);
        return;
    }
    for (int i = 0; i < r->n_sweep && v->n_depths < REP_MAX_DEPTHS; i++, v->n_depths++) {
        v->depth[v->n_depths] = r->sweep[i].depth;
        v->pp_ts[v->n_depths] = r->sweep[i].pp_depth;
        v->tg_ts[v->n_depths] = r->sweep[i].tg_depth;
    }
    rep_accuracy_sentence(&r->accuracy, v->accuracy, sizeof v->accuracy);
    if (r->choice) choice_fill(v, r);
}

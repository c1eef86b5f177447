/* The choice: for every quantization, where it fits (place.c), how fast,
 * how much quality it loses — and which one to run, with a reason for every
 * row. The objective is in planner.h (plan_choose). */
#include "planner/planner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const where_names[] = {"GPU", "GPU+experts in RAM", "split", "CPU", "does not fit"};
const char *plan_where_name(int w) { return w >= PLAN_ON_GPU && w <= PLAN_ON_NONE ? where_names[w] : "?"; }

/* The model at file type ft: the model itself when it is a GGUF of that
 * type (its exact tensor table), else llama-quantize's mix rebuilt from its
 * hyperparameters. *own says which (the caller frees only a rebuilt one). */
static int model_at(const model_desc *model, const model_ftype_info *ft, model_desc *out, bool *own, fc_err *err) {
    *own = model->hp.file_type == ft->id;
    if (*own) {
        *out = *model;
        return FC_OK;
    }
    return model_desc_synthesize(out, &model->hp, ft->name, err);
}

/* Rows: the model's native format when it has one (the quality reference:
 * it is what was released), then every file type whose quality loss is
 * published; each row's model description is built once (the context
 * halvings reuse them). */
static int row_add(plan_choice *c, const model_desc *model, const model_ftype_info *ft, model_desc *descs, bool *own,
                   fc_err *err) {
    const char *native = model_native_quant(&model->hp);
    bool is_native = native && !strcasecmp(native, ft->name);
    plan_quality_info q;
    if (!is_native && plan_quality(&model->hp, ft->name, &q) != FC_OK) return FC_OK;
    int rc = model_at(model, ft, &descs[c->n_row], &own[c->n_row], err);
    /* A type that cannot hold this model (MXFP4_MOE without experts) is no row. */
    if (rc == FC_EINPUT) return FC_OK;
    if (rc) return rc;
    plan_choice_row *r = &c->row[c->n_row++];
    memset(r, 0, sizeof *r);
    snprintf(r->quant, sizeof r->quant, "%s", ft->name);
    r->file_bytes = descs[c->n_row - 1].file_bytes;
    r->native = is_native;
    r->requant = native && !is_native;
    r->quality_scale = 1;
    if (is_native) {
        r->ppl_pct = r->kld = 0;
        snprintf(r->quality_from, sizeof r->quality_from, "the release itself");
    } else {
        r->ppl_pct = q.ppl_pct;
        r->kld = q.kld;
        snprintf(r->quality_from, sizeof r->quality_from, "%s", q.family);
        r->quality_borrowed = q.borrowed;
        r->quality_scale = q.scale;
        snprintf(c->quality_family, sizeof c->quality_family, "%s", q.model_family);
    }
    return FC_OK;
}

/* One line on where the quality figures come from when any row's are not
 * the model's family's own: per family lent, the types and the scale. */
static void quality_explain(plan_choice *c) {
    c->quality_note[0] = '\0';
    size_t n = 0, cap = sizeof c->quality_note;
    int n_own = 0;
    for (int i = 0; i < c->n_row; i++) n_own += !c->row[i].native && !c->row[i].quality_borrowed;
    for (int i = 0; i < c->n_row && n < cap; i++) {
        const plan_choice_row *r = &c->row[i];
        bool first = true;
        if (!r->quality_borrowed) continue;
        for (int j = 0; j < i && first; j++)
            first = !(c->row[j].quality_borrowed && !strcmp(c->row[j].quality_from, r->quality_from));
        if (!first) continue;
        int k = 0;
        for (int j = i; j < c->n_row; j++)
            k += c->row[j].quality_borrowed && !strcmp(c->row[j].quality_from, r->quality_from);
        n += (size_t)snprintf(c->quality_note + n, cap - n, "%s%d type%s borrowed from %s", n ? "; " : "", k,
                              k == 1 ? "" : "s", r->quality_from);
        if (n < cap && fabs(r->quality_scale - 1) > 0.005)
            n += (size_t)snprintf(c->quality_note + n, cap - n, " scaled x%.2f to %s's own figures", r->quality_scale,
                                  c->quality_family);
    }
    if (n && n < cap && n_own)
        snprintf(c->quality_note + n, cap - n, "; %d measured on %s", n_own, c->quality_family);
    else if (n && n < cap)
        snprintf(c->quality_note + n, cap - n, ": none are published for %s", c->quality_family);
}

static int rows_init(plan_choice *c, const model_desc *model, model_desc *descs, bool *own, fc_err *err) {
    c->n_row = 0;
    const char *native = model_native_quant(&model->hp);
    if (native) {
        int rc = row_add(c, model, model_ftype_find(native), descs, own, err);
        if (rc) return rc;
    }
    for (size_t i = 0; c->n_row < PLAN_CHOICE_MAX; i++) {
        const model_ftype_info *ft = model_ftype_at(i);
        if (!ft) break;
        if (native && !strcasecmp(native, ft->name)) continue;
        int rc = row_add(c, model, ft, descs, own, err);
        if (rc) return rc;
    }
    return FC_OK;
}

static void rows_place(plan_choice *c, const model_desc *descs, const plan_hw *hw, const plan_params *base,
                       const plan_efficiency *e, plan_memory *m) {
    for (int i = 0; i < c->n_row; i++) {
        plan_choice_row *r = &c->row[i];
        r->params = *base;
        memset(&r->speed, 0, sizeof r->speed);
        r->where = plan_place(&descs[i], hw, &r->params, m);
        r->n_gpu = hw->n_gpu;
        for (int g = 0; g < hw->n_gpu; g++) r->gpu_layers[g] = r->where != PLAN_ON_NONE ? m->gpu[g].n_layers : 0;
        r->has_speed = false;
        if (r->where == PLAN_ON_NONE) continue;
        /* A placement that uses an unmeasured device (this machine's RAM,
         * never probed) still fits; its speed is unknown, not an error. */
        fc_err serr = {0};
        r->has_speed = plan_speed_predict(&descs[i], hw, m, &r->params, e, plan_full_depth(base), &r->speed, &serr) ==
                       FC_OK;
        if (!r->has_speed) memset(&r->speed, 0, sizeof r->speed);
    }
}

/* Lower perplexity increase = higher quality; unpublished sorts last. */
static double loss_key(const plan_choice_row *r) { return r->ppl_pct >= 0 ? r->ppl_pct : INFINITY; }

/* Perplexity increases below this are lost in run-to-run noise (Q8_0 is
 * +0.03% on Llama-3-70B): F16, BF16 and Q8_0 are the same quality to a user,
 * so among them the faster wins — nobody wants F16 at half Q8_0's speed. */
#define PLAN_NEGLIGIBLE_PPL_PCT 0.1

/* A figure scaled from another family is an estimate: it counts as
 * negligible only when the measured figure it came from was, so a scale
 * never promotes a type into the lossless group on its own. */
static bool negligible(const plan_choice_row *r) {
    return loss_key(r) <= PLAN_NEGLIGIBLE_PPL_PCT * (r->quality_scale < 1 ? r->quality_scale : 1);
}

static bool same_quality(const plan_choice_row *a, const plan_choice_row *b) { return negligible(a) && negligible(b); }

static bool better(const plan_choice_row *a, const plan_choice_row *b) {
    if (same_quality(a, b)) return a->speed.tg128 > b->speed.tg128;
    return loss_key(a) < loss_key(b);
}

static bool fits_row(const plan_choice_row *r) { return r->where != PLAN_ON_NONE; }

/* A row the objective may choose: it fits, is not a re-quantization of a
 * native release, and its decode is known to reach the floor. */
static bool eligible(const plan_choice_row *r, double min_tps) {
    if (!fits_row(r) || r->requant) return false;
    return min_tps <= 0 || (r->has_speed && r->speed.tg128 >= min_tps);
}

static int pick_best(const plan_choice *c, int skip) {
    int best = -1;
    for (int i = 0; i < c->n_row; i++)
        if (i != skip && eligible(&c->row[i], c->min_tps) && (best < 0 || better(&c->row[i], &c->row[best])))
            best = i;
    return best;
}

/* The fastest row that fits, among the re-quantizations of a native release or among the rest. */
static int pick_fastest(const plan_choice *c, bool requant) {
    int f = -1;
    for (int i = 0; i < c->n_row; i++) {
        const plan_choice_row *r = &c->row[i];
        if (fits_row(r) && r->requant == requant && r->has_speed && (f < 0 || r->speed.tg128 > c->row[f].speed.tg128))
            f = i;
    }
    return f;
}

/* One line per row: why it is, or is not, the recommendation. */
static void rows_explain(plan_choice *c) {
    const plan_choice_row *b = c->best >= 0 ? &c->row[c->best] : NULL;
    for (int i = 0; i < c->n_row; i++) {
        plan_choice_row *r = &c->row[i];
        char *w = r->why;
        if (i == c->best)
            snprintf(w, PLAN_WHY_LEN, "recommended: %.140s", c->reason);
        else if (!fits_row(r))
            snprintf(w, PLAN_WHY_LEN, "does not fit at context %u", c->n_ctx);
        else if (r->requant)
            snprintf(w, PLAN_WHY_LEN, "re-quantized from the %s release: larger or lossier, never better",
                     c->row[0].quant);
        else if (c->min_tps > 0 && !r->has_speed)
            snprintf(w, PLAN_WHY_LEN, "speed unknown (no measured bandwidth: run 'fitcheck probe')");
        else if (c->min_tps > 0 && r->speed.tg128 < c->min_tps)
            snprintf(w, PLAN_WHY_LEN, "%.1f t/s < %g t/s floor (%s)", r->speed.tg128, c->min_tps,
                     plan_where_name(r->where));
        else if (b && same_quality(r, b))
            snprintf(w, PLAN_WHY_LEN, "%sas good as %s, slower (%.1f vs %.1f t/s)", i == c->runner_up ? "runner-up: " : "",
                     b->quant, r->speed.tg128, b->speed.tg128);
        else if (b)
            snprintf(w, PLAN_WHY_LEN, "%slower quality than %s (+%.2f%% vs +%.2f%% perplexity)",
                     i == c->runner_up ? "runner-up: " : "", b->quant, r->ppl_pct, b->ppl_pct);
        else
            snprintf(w, PLAN_WHY_LEN, "fits");
    }
}

/* Picks among the rows placed at c->n_ctx; false when nothing fits. */
static bool rows_pick(plan_choice *c, const plan_hw *hw) {
    c->fastest = pick_fastest(c, false);
    int requant = pick_fastest(c, true);
    c->best = pick_best(c, -1);
    c->runner_up = c->best >= 0 ? pick_best(c, c->best) : -1;
    bool any_fit = false;
    for (int i = 0; i < c->n_row; i++) any_fit |= fits_row(&c->row[i]);
    if (c->best >= 0) {
        const plan_choice_row *b = &c->row[c->best];
        int n = snprintf(c->reason, sizeof c->reason, "%s", b->native ? "the format the model is released in, " : "");
        if (c->min_tps > 0)
            snprintf(c->reason + n, sizeof c->reason - (size_t)n, "best quality decoding at least %g t/s (%.1f t/s, %s)",
                     c->min_tps, b->speed.tg128, plan_where_name(b->where));
        else
            snprintf(c->reason + n, sizeof c->reason - (size_t)n, "best quality that fits (%s; no speed floor)",
                     plan_where_name(b->where));
        /* Why not better: the best-quality row the floor ruled out. */
        for (int i = 0; i < c->n_row; i++) {
            const plan_choice_row *r = &c->row[i];
            if (!fits_row(r) || r->requant || eligible(r, c->min_tps) || !better(r, b) || same_quality(r, b)) continue;
            size_t len = strlen(c->reason);
            snprintf(c->reason + len, sizeof c->reason - len, "; %s would be better but decodes at %.1f t/s", r->quant,
                     r->speed.tg128);
            break;
        }
    } else if (any_fit && (c->fastest >= 0 || requant >= 0)) {
        int n = c->fastest >= 0 ? snprintf(c->reason, sizeof c->reason,
                                           "nothing decodes at %g t/s here: the fastest that fits is %s at %.1f t/s "
                                           "(--min-tps 0 to choose anyway)",
                                           c->min_tps, c->row[c->fastest].quant, c->row[c->fastest].speed.tg128)
                                : snprintf(c->reason, sizeof c->reason, "only re-quantizations of the %s release fit here",
                                           c->row[0].quant);
        /* A re-quantization is never chosen (it loses quality the release has), but where only it reaches the
         * floor, that is the trade a user may want to make: say what it costs. */
        const plan_choice_row *q = requant >= 0 ? &c->row[requant] : NULL;
        if (q && q->speed.tg128 >= c->min_tps && n > 0 && (size_t)n < sizeof c->reason)
            snprintf(c->reason + n, sizeof c->reason - (size_t)n,
                     "; re-quantized from the release, %s would decode at %.1f t/s at +%.2f%% perplexity (--quant %s)",
                     q->quant, q->speed.tg128, q->ppl_pct, q->quant);
    } else if (any_fit) {
        /* the label of a machine without a profile already says what to run */
        snprintf(c->reason, sizeof c->reason, "speed unknown on %.120s%s, so no type is known to reach %g t/s",
                 hw->label, strstr(hw->label, "fitcheck probe") ? "" : " (run 'fitcheck probe')", c->min_tps);
    }
    rows_explain(c);
    return any_fit;
}

int plan_choose(plan_choice *c, const model_desc *model, const plan_hw *hw, const plan_params *p, double min_tps,
                const plan_efficiency *e, fc_err *err) {
    memset(c, 0, sizeof *c);
    c->best = c->runner_up = c->fastest = -1;
    c->min_tps = min_tps;
    model_desc *descs = calloc(PLAN_CHOICE_MAX, sizeof *descs);
    bool own[PLAN_CHOICE_MAX] = {0};
    plan_memory *m = calloc(1, sizeof *m);
    int rc = descs && m ? rows_init(c, model, descs, own, err) : fc_err_set(err, FC_ERUNTIME, "out of memory");
    if (!rc) quality_explain(c);
    plan_params base = *p;
    bool any_fit = false;
    while (!rc) {
        c->n_ctx = base.n_ctx;
        rows_place(c, descs, hw, &base, e, m);
        /* Only a context that fits nothing is shortened: a shorter context
         * barely changes decode speed, so it never buys the floor. */
        if ((any_fit = rows_pick(c, hw))) break;
        if (base.n_ctx / 2 < PLAN_MIN_CTX) break;
        base.n_ctx /= 2; /* less KV cache and compute buffer */
    }
    if (!rc && !any_fit) {
        snprintf(c->reason, sizeof c->reason, "no quantization fits, even at context %u", c->n_ctx);
        rows_explain(c);
    }
    for (int i = 0; descs && i < c->n_row; i++)
        if (!own[i]) model_desc_free(&descs[i]);
    free(descs);
    free(m);
    return rc;
}

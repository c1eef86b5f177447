/* The choice: for every quantization, where it fits (GPU / GPU with MoE
 * experts in RAM / split / CPU), how fast, how much quality it loses — and
 * which one to run, with the llama.cpp and ollama settings that do it. */
#include "planner/planner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define QUALITY_LINE_MAX 512
#define QUALITY_FIELDS 5

static const char *const where_names[] = {"GPU", "GPU+experts in RAM", "split", "CPU", "does not fit"};
const char *plan_where_name(int w) { return w >= PLAN_ON_GPU && w <= PLAN_ON_NONE ? where_names[w] : "?"; }

int plan_quality(const char *ftype, double *ppl_pct, double *kld) {
    *ppl_pct = *kld = -1;
    const char *cur = plan_speed_data("quality.csv");
    char line[QUALITY_LINE_MAX];
    bool header = false;
    int got;
    while (cur && (got = plan_csv_line(&cur, line, sizeof line)) != 0) {
        if (got < 0 || !line[0] || line[0] == '#') continue;
        if (!header) {
            header = true;
            continue;
        }
        char *f[QUALITY_FIELDS]; /* quant,ppl_pct,kld,top_pct,source; empty = not published */
        if (plan_csv_fields(line, f, QUALITY_FIELDS) < 3 || strcasecmp(f[0], ftype)) continue;
        if (f[1][0]) *ppl_pct = strtod(f[1], NULL);
        if (f[2][0]) *kld = strtod(f[2], NULL);
        return FC_OK;
    }
    return FC_EINPUT;
}

static bool fits(const plan_memory *m) { return m->verdict != PLAN_NO_FIT; }

/* Memory for one placement; false when it does not fit (or cannot be computed). */
static bool try_place(const model_desc *d, const plan_hw *hw, const plan_params *p, plan_memory *m) {
    fc_err ignored = {0};
    return plan_memory_compute(m, d, hw, p, &ignored) == FC_OK && fits(m);
}

static bool gpus_fit(const model_desc *d, const plan_hw *hw, const plan_params *p, plan_memory *m) {
    fc_err ignored = {0};
    if (plan_memory_compute(m, d, hw, p, &ignored) != FC_OK) return false;
    for (int g = 0; g < m->n_gpu; g++)
        if (m->gpu[g].verdict == PLAN_NO_FIT) return false;
    return true;
}

/* The most layers the GPUs take: memory per GPU grows with the layer count
 * (host memory shrinks), so a binary search on the GPUs alone finds the edge;
 * then the host must hold the rest. */
static bool best_partial(const model_desc *d, const plan_hw *hw, plan_params *p, plan_memory *m) {
    int32_t lo = 1, hi = (int32_t)d->hp.n_layer, found = -1;
    while (lo <= hi) {
        int32_t mid = lo + (hi - lo) / 2;
        p->n_gpu_layers = mid;
        if (gpus_fit(d, hw, p, m)) {
            found = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    if (found < 0) return false;
    p->n_gpu_layers = found;
    return try_place(d, hw, p, m);
}

static bool model_is_moe(const model_desc *d) { return d->hp.n_expert > 1; }

/* MoE: the fewest layers whose experts must stay in RAM for the rest to fit
 * on the GPUs (--n-cpu-moe N; all layers = -ot exps=CPU). GPU memory falls as
 * N grows, so a binary search finds it; the host must then hold the experts. */
static bool fewest_cpu_moe(const model_desc *d, const plan_hw *hw, plan_params *p, plan_memory *m) {
    p->n_gpu_layers = PLAN_NGL_ALL;
    uint32_t lo = 1, hi = d->hp.n_layer, found = 0;
    while (lo <= hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        p->n_cpu_moe = mid;
        if (gpus_fit(d, hw, p, m)) {
            found = mid;
            hi = mid - 1;
        } else {
            lo = mid + 1;
        }
    }
    p->n_cpu_moe = 0;
    if (!found) return false;
    if (found == d->hp.n_layer) p->exps_on_host = true;
    else p->n_cpu_moe = found;
    if (try_place(d, hw, p, m)) return true;
    p->exps_on_host = false;
    p->n_cpu_moe = 0;
    return false;
}

int plan_place(const model_desc *d, const plan_hw *hw, plan_params *p, plan_memory *m) {
    p->exps_on_host = false;
    p->n_cpu_moe = 0;
    if (hw->n_gpu > 0) {
        p->n_gpu_layers = PLAN_NGL_ALL;
        if (try_place(d, hw, p, m)) return PLAN_ON_GPU;
        if (model_is_moe(d) && fewest_cpu_moe(d, hw, p, m)) return PLAN_ON_GPU_EXPS_CPU;
        if (best_partial(d, hw, p, m)) return PLAN_ON_SPLIT;
    }
    p->n_gpu_layers = 0;
    if (try_place(d, hw, p, m)) return PLAN_ON_CPU;
    return PLAN_ON_NONE;
}

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

/* One row per file type whose quality loss is published; each row's model
 * description is built once (the context halvings reuse them). */
static int rows_init(plan_choice *c, const model_desc *model, model_desc *descs, bool *own, fc_err *err) {
    c->n_row = 0;
    for (size_t i = 0; c->n_row < PLAN_CHOICE_MAX; i++) {
        const model_ftype_info *ft = model_ftype_at(i);
        if (!ft) break;
        double ppl, kld;
        if (plan_quality(ft->name, &ppl, &kld) != FC_OK) continue;
        int rc = model_at(model, ft, &descs[c->n_row], &own[c->n_row], err);
        if (rc) return rc;
        plan_choice_row *r = &c->row[c->n_row++];
        memset(r, 0, sizeof *r);
        snprintf(r->quant, sizeof r->quant, "%s", ft->name);
        r->file_bytes = descs[c->n_row - 1].file_bytes;
        r->ppl_pct = ppl;
        r->kld = kld;
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

static bool better(const plan_choice_row *a, const plan_choice_row *b) {
    double ka = loss_key(a), kb = loss_key(b);
    if (ka <= PLAN_NEGLIGIBLE_PPL_PCT && kb <= PLAN_NEGLIGIBLE_PPL_PCT) return a->speed.tg128 > b->speed.tg128;
    return ka < kb;
}

static int pick(const plan_choice *c, bool (*ok)(const plan_choice_row *, const plan_hw *), const plan_hw *hw,
                double min_tps) {
    int best = -1;
    for (int i = 0; i < c->n_row; i++) {
        const plan_choice_row *r = &c->row[i];
        if (!ok(r, hw) || (min_tps > 0 && (!r->has_speed || r->speed.tg128 < min_tps))) continue;
        if (best < 0 || better(r, &c->row[best])) best = i;
    }
    return best;
}

/* The fastest memory: the GPUs when there are any, else RAM. */
static bool in_fastest(const plan_choice_row *r, const plan_hw *hw) {
    return hw->n_gpu ? r->where == PLAN_ON_GPU : r->where == PLAN_ON_CPU;
}
static bool anywhere(const plan_choice_row *r, const plan_hw *hw) {
    (void)hw;
    return r->where != PLAN_ON_NONE;
}

/* Picks among the rows placed at c->n_ctx; false when nothing fits. */
static bool rows_pick(plan_choice *c, const plan_hw *hw, double min_tps) {
    c->best = pick(c, in_fastest, hw, min_tps);
    if (c->best >= 0) {
        snprintf(c->reason, sizeof c->reason, "highest quality that fits wholly in %s%s",
                 hw->n_gpu ? "GPU memory" : "RAM", min_tps > 0 ? " and reaches --min-tps" : "");
        return true;
    }
    c->best = pick(c, anywhere, hw, min_tps);
    if (c->best >= 0) {
        snprintf(c->reason, sizeof c->reason, "nothing fits wholly in GPU memory%s: best split by quality",
                 min_tps > 0 ? " at --min-tps" : "");
        return true;
    }
    for (int i = 0; i < c->n_row; i++)
        if (c->row[i].where != PLAN_ON_NONE && (c->best < 0 || c->row[i].speed.tg128 > c->row[c->best].speed.tg128))
            c->best = i;
    if (c->best >= 0) {
        snprintf(c->reason, sizeof c->reason, "nothing reaches --min-tps %.1f: the fastest that fits", min_tps);
        return true;
    }
    return false;
}

int plan_choose(plan_choice *c, const model_desc *model, const plan_hw *hw, const plan_params *p, double min_tps,
                const plan_efficiency *e, fc_err *err) {
    memset(c, 0, sizeof *c);
    c->best = -1;
    model_desc *descs = calloc(PLAN_CHOICE_MAX, sizeof *descs);
    bool own[PLAN_CHOICE_MAX] = {0};
    plan_memory *m = calloc(1, sizeof *m);
    int rc = descs && m ? rows_init(c, model, descs, own, err) : fc_err_set(err, FC_ERUNTIME, "out of memory");
    plan_params base = *p;
    bool found = false;
    while (!rc) {
        c->n_ctx = base.n_ctx;
        rows_place(c, descs, hw, &base, e, m);
        if ((found = rows_pick(c, hw, min_tps))) break;
        if (base.n_ctx / 2 < PLAN_MIN_CTX) break;
        base.n_ctx /= 2; /* a shorter context: less KV cache and compute buffer */
    }
    if (!rc && !found) snprintf(c->reason, sizeof c->reason, "no quantization fits, even at context %u", c->n_ctx);
    for (int i = 0; descs && i < c->n_row; i++)
        if (!own[i]) model_desc_free(&descs[i]);
    free(descs);
    free(m);
    return rc;
}

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

static int fill_rows(plan_choice *c, const char *model, const plan_hw *hw, const plan_params *base,
                     const plan_efficiency *e, fc_err *err) {
    c->n_row = 0;
    plan_memory *m = calloc(1, sizeof *m);
    if (!m) return fc_err_set(err, FC_ERUNTIME, "out of memory");
    int rc = FC_OK;
    for (size_t i = 0; !rc && c->n_row < PLAN_CHOICE_MAX; i++) {
        const model_ftype_info *ft = model_ftype_at(i);
        if (!ft) break;
        double ppl, kld;
        /* The table lists the types whose quality loss is published. */
        if (plan_quality(ft->name, &ppl, &kld) != FC_OK) continue;
        model_desc d;
        memset(&d, 0, sizeof d);
        rc = model_load(&d, model, ft->name, err);
        if (rc) break;
        plan_choice_row *r = &c->row[c->n_row++];
        memset(r, 0, sizeof *r);
        snprintf(r->quant, sizeof r->quant, "%s", ft->name);
        r->file_bytes = d.file_bytes;
        r->ppl_pct = ppl;
        r->kld = kld;
        r->params = *base;
        r->where = plan_place(&d, hw, &r->params, m);
        if (r->where != PLAN_ON_NONE) {
            r->n_gpu = hw->n_gpu;
            for (int g = 0; g < hw->n_gpu; g++) r->gpu_layers[g] = m->gpu[g].n_layers;
            uint32_t depth = base->n_ctx > PLAN_TEST_TG ? base->n_ctx - PLAN_TEST_TG : 0;
            rc = plan_speed_predict(&d, hw, m, &r->params, e, depth, &r->speed, err);
        }
        model_desc_free(&d);
    }
    free(m);
    return rc;
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
        if (!ok(r, hw) || r->speed.tg128 < min_tps) continue;
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

int plan_choose(plan_choice *c, const char *model, const plan_hw *hw, const plan_params *p, double min_tps,
                const plan_efficiency *e, fc_err *err) {
    memset(c, 0, sizeof *c);
    c->best = -1;
    plan_params base = *p;
    for (;;) {
        c->n_ctx = base.n_ctx;
        int rc = fill_rows(c, model, hw, &base, e, err);
        if (rc) return rc;
        c->best = pick(c, in_fastest, hw, min_tps);
        if (c->best >= 0) {
            snprintf(c->reason, sizeof c->reason, "highest quality that fits wholly in %s%s",
                     hw->n_gpu ? "GPU memory" : "RAM", min_tps > 0 ? " and reaches --min-tps" : "");
            return FC_OK;
        }
        c->best = pick(c, anywhere, hw, min_tps);
        if (c->best >= 0) {
            snprintf(c->reason, sizeof c->reason, "nothing fits wholly in GPU memory%s: best split by quality",
                     min_tps > 0 ? " at --min-tps" : "");
            return FC_OK;
        }
        for (int i = 0; i < c->n_row; i++)
            if (c->row[i].where != PLAN_ON_NONE &&
                (c->best < 0 || c->row[i].speed.tg128 > c->row[c->best].speed.tg128))
                c->best = i;
        if (c->best >= 0) {
            snprintf(c->reason, sizeof c->reason, "nothing reaches --min-tps %.1f: the fastest that fits", min_tps);
            return FC_OK;
        }
        if (base.n_ctx / 2 < PLAN_MIN_CTX) break;
        base.n_ctx /= 2; /* a shorter context: less KV cache and compute buffer */
    }
    snprintf(c->reason, sizeof c->reason, "no quantization fits, even at context %u", c->n_ctx);
    return FC_OK;
}

void plan_choice_commands(const plan_choice *c, const char *model_file, char *llama, size_t llama_cap, char *ollama,
                          size_t ollama_cap) {
    llama[0] = ollama[0] = '\0';
    if (c->best < 0) return;
    const plan_choice_row *r = &c->row[c->best];
    const plan_params *p = &r->params;
    int ngl = p->n_gpu_layers == PLAN_NGL_ALL ? 999 : p->n_gpu_layers;
    size_t n = (size_t)snprintf(llama, llama_cap, "llama-server -m %s -ngl %d -c %u -ctk %s -ctv %s -fa %s", model_file,
                                ngl, c->n_ctx, ggml_type_get(p->type_k)->name, ggml_type_get(p->type_v)->name,
                                p->flash_attn ? "on" : "off");
    if (n < llama_cap && p->exps_on_host) n += (size_t)snprintf(llama + n, llama_cap - n, " -ot \"exps=CPU\"");
    else if (n < llama_cap && p->n_cpu_moe) n += (size_t)snprintf(llama + n, llama_cap - n, " --n-cpu-moe %u", p->n_cpu_moe);
    int used = 0;
    for (int g = 0; g < r->n_gpu; g++) used += r->gpu_layers[g] > 0;
    if (n < llama_cap && used > 1) {
        n += (size_t)snprintf(llama + n, llama_cap - n, " -ts ");
        for (int g = 0; g < r->n_gpu && n < llama_cap; g++)
            n += (size_t)snprintf(llama + n, llama_cap - n, "%s%u", g ? "," : "", r->gpu_layers[g]);
    }
    /* ollama counts layers the same way and has no expert override. */
    snprintf(ollama, ollama_cap, "num_gpu %d, num_ctx %u%s", ngl, c->n_ctx,
             p->exps_on_host || p->n_cpu_moe ? " (ollama cannot keep only the experts in RAM: use llama-server)" : "");
}

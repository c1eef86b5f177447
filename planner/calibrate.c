/* Refits the efficiency constants to measurements: minimizes the log error of
 * predicted vs measured t/s (squared near zero, a Cauchy loss past
 * FIT_ROBUST_SCALE), with a weak pull towards the built-in constants so that a
 * parameter the data says nothing about stays put. Coordinate descent in log
 * space: every constant is a positive scale factor, the objective is cheap (a
 * few microseconds per point), and there are at most FIT_MAX_PARAMS free
 * constants. */
#include "planner/planner.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Passes over all free constants, at most. The 812-row corpus's 119 constants settle at pass 189 (5 Dec
 * 2026); stopped at 120, as it was, the fit ended short of its optimum and held-out Metal was 7.8%, not 7.6%. */
#define FIT_ROUNDS 400
#define FIT_STEP_GROW 1.5         /* a step that helped is tried longer next time */
#define FIT_STEP0 1.0             /* first log step: x e^1 */
#define FIT_STEP_MIN 0.002        /* stop refining below ~0.2% */
/* Pull towards the prior, per constant: what keeps a constant the data cannot pin down (ROCm's per-layer
 * against per-token decode cost, its rows nearly all one model size per card) near its assumption. Chosen
 * among 0.0005, 0.002 and 0.005 by the held-out error (812 rows, 5 Dec 2026): at 0.0005 ROCm's token_us
 * drifted to 2.4 ms, at 0.005 the corpus's own rows were pulled off (ROCm held out 29%; docs/speed-model.md). */
#define FIT_PRIOR_WEIGHT 0.002
/* Pull of a build-era factor towards 1 (its prior): one (log) unit of departure
 * costs as much as ~5 rows off by 10%, so that old-era rows of one tensor type
 * alone, which cannot tell the era from the type, leave the era near 1. */
#define FIT_ANCHOR_WEIGHT 0.05
/* The loss of a row off by a log ratio r: r^2 near zero, growing only
 * logarithmically past FIT_ROBUST_SCALE (a Cauchy loss), so that a few rows a
 * term does not describe (a build regression, a misread table) cannot drag the
 * constants every other row agrees on. The scale is the spread the model
 * meets across sources (~15%, docs/speed-model.md). */
#define FIT_ROBUST_SCALE 0.15
#define FIT_MAX_PARAMS 256
#define FIT_SUM_ROUNDING 1e-9     /* the objective summed block by block vs row by row: ~1e-15 of ~10 */
#define BW_EFF_MAX 1.0            /* nothing reads memory faster than its peak */
/* Decode attention without flash attention is never faster than with it: the
 * plain path writes and re-reads the score matrix the fused kernel keeps on
 * chip. Prefill's factor has no such cap: that traffic is its own term there
 * (planner/speed.c), and what is left, two GEMMs (KQ, KQV) on the backend's
 * matrix kernels against the fused kernel, may be faster (Metal). */
#define NOFA_MAX 1.0
/* Prefill's factor is measured only by -fa 0 rows whose attention weighs: a
 * prompt plus depth of this many cells or more. Fitted from pp512 rows, where
 * attention is a few % of the time, it became a knob: ROCm 0.05 from the
 * Radeon 8060S's pp512 rows (their GEMMs are what is slow), which made an RX
 * 7900 XTX's -fa 0 pp512 at depth 8192 nine times slower than with -fa 1. */
#define NOFA_PP_MIN_CTX 4096
/* A GPU that shares its package's power with a CPU sustains at most the
 * clock a discrete card of its backend does (planner.h, plan_speed_dev.soc). */
#define SOC_PP_MAX 1.0
#define FIT_TYPE_MIN_SHARE 0.01   /* a tensor type's share of a device's weights for its rates to be fitted */
/* A CPU's per-type rates come from this machine's own runs, a few rows per
 * type: one row in which the type is the main one suffices, but a type that is
 * only ever a minority (Q4_K_M's q6_K output, 6% of TinyLlama's weights) is
 * not measured by them: fitted from such rows, q6_K's decode rate fell from
 * 0.27 to 0.074 and mispredicted Llama-3.2-1B's Q6_K-heavy files by 20%
 * (docs/engine.md), so such a type keeps its constant. */
#define FIT_CPU_TYPE_MIN_ROWS 1
/* A GPU's quantized GEMM runs on int8 tensor cores at most twice its FP16 rate
 * (every catalog GPU; tests/planner_speed/test_physics.c bounds it so). */
#define PP_EFF_GPU_MAX 2.0

void plan_meas_set_free(plan_meas_set *s) {
    free(s->m);
    memset(s, 0, sizeof *s);
}

double plan_meas_predict(const plan_meas *m, const plan_efficiency *e) {
    plan_bench_test t = {m->n_prompt, m->n_gen, m->n_depth};
    return plan_bench_predict(&m->setup, e, &t);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

plan_fit_stats plan_fit_evaluate(const plan_meas_set *s, const plan_efficiency *e) {
    plan_fit_stats st = {0};
    if (s->n <= 0) return st;
    double *err = malloc(sizeof(double) * s->n);
    if (!err) return st;
    for (int i = 0; i < s->n; i++) {
        double p = plan_meas_predict(&s->m[i], e);
        err[i] = s->m[i].tps > 0 ? fabs(p / s->m[i].tps - 1.0) : 0;
        if (err[i] > st.max_abs_err) st.max_abs_err = err[i];
    }
    qsort(err, s->n, sizeof(double), cmp_double);
    st.n = s->n;
    st.median_abs_err = s->n % 2 ? err[s->n / 2] : 0.5 * (err[s->n / 2 - 1] + err[s->n / 2]);
    free(err);
    return st;
}

/* A free constant: a pointer into the table, the prior value it is pulled
 * towards and how hard. */
typedef struct fit_param {
    double *v;
    double prior;
    double weight;
    double max;
    double *same[PLAN_EFF_SETS];   /* the same constant in other sets: it moves with v */
    int n_same;
} fit_param;

static void param_set(const fit_param *p, double v) {
    *p->v = v;
    for (int k = 0; k < p->n_same; k++) *p->same[k] = v;
}

/* A row's loss: 0 for a row with nothing to compare. */
static double row_loss(const plan_meas *m, const plan_efficiency *e) {
    double pred = plan_meas_predict(m, e);
    if (!(pred > 0) || !(m->tps > 0)) return 0;
    double r = log(pred / m->tps) / FIT_ROBUST_SCALE;
    return FIT_ROBUST_SCALE * FIT_ROBUST_SCALE * log1p(r * r);
}

static double prior_loss(const fit_param *p) {
    double r = log(*p->v / p->prior);
    return p->weight * r * r;
}

static double objective(const plan_meas_set *s, const plan_efficiency *e, const fit_param *p, int np) {
    double sum = 0;
    for (int i = 0; i < s->n; i++) sum += row_loss(&s->m[i], e);
    for (int k = 0; k < np; k++) sum += prior_loss(&p[k]);
    return sum;
}

static void add_param(fit_param *p, int *np, double *v, double weight, double max) {
    if (*np >= FIT_MAX_PARAMS || !(*v > 0)) return; /* 0: a term the set does not have (attn_dec or attn_kv) */
    for (int k = 0; k < *np; k++) {
        if (p[k].v == v) return;
        for (int j = 0; j < p[k].n_same; j++)
            if (p[k].same[j] == v) return;
    }
    p[*np] = (fit_param){v, *v, weight, max, {0}, 0};
    (*np)++;
}

/* soc_pp is one constant for every GPU backend that also runs discrete cards
 * (the package's power limit, not a kernel's): the first such backend's copy
 * is fitted, whichever set the SoC rows are of, and every other such set's
 * follows it: with Strix Halo held out, no Vulkan row is left to fit it. */
static void add_soc_param(plan_efficiency *e, fit_param *p, int *np, int engine) {
    int before = *np;
    for (int b = 0; b < PLAN_BACKEND_COUNT; b++) {
        if (b == PLAN_CPU || b == PLAN_METAL) continue;
        double *v = &e->set[b][engine].scalar[PLAN_EFF_SOC_PP];
        if (*np == before) {
            add_param(p, np, v, FIT_PRIOR_WEIGHT, SOC_PP_MAX);
            if (*np == before) return; /* fitted already */
        } else {
            p[before].same[p[before].n_same++] = v;
        }
    }
    param_set(&p[before], *p[before].v);
}

/* Whether device d of a row dequantizes its quantized weights for the prefill's
 * GEMMs (plan_speed_dev.dequant_gemm; planner/speed.c): then no quantized GEMM
 * kernel ran there to fit a rate to. */
static bool dequant_prefill(const plan_meas *m, int d) {
    uint32_t ub = m->setup.n_ubatch ? m->setup.n_ubatch : PLAN_DEFAULT_UBATCH;
    return plan_speed_dequantizes(&m->setup.dev[d], m->n_prompt < (int)ub ? m->n_prompt : (int)ub);
}

/* Whether another type of t's kernel family has enough rows of its own for a prefill rate. */
static bool family_owns(const int *rows, uint32_t t) {
    for (uint32_t u = 0; u < GGML_TYPE_COUNT; u++)
        if (u != t && rows[u] >= PLAN_FIT_TYPE_MIN_ROWS && plan_kernel_family(u) == plan_kernel_family(t)) return true;
    return false;
}

/* Whether tensor type t is a sizeable part of what device d of a row multiplies. */
static bool type_weighs(const plan_speed_load *l, uint32_t t) {
    double total = l->out_elems;
    for (uint32_t k = 0; k < GGML_TYPE_COUNT; k++) total += l->elems[k];
    double el = l->elems[t] + (l->out_type == t ? l->out_elems : 0);
    return el >= FIT_TYPE_MIN_SHARE * total && el > 0;
}

/* The constants the measurements can inform: those of the backends and
 * engines present, and the per-type ones for the tensor types present in
 * enough rows. */
static int collect_params(plan_efficiency *e, const plan_meas_set *s, fit_param *p) {
    /* per typed parameter (its phase's rows), set, engine and main type; decode's per kernel family too */
    int rows[PLAN_EFF_TYPED_COUNT][PLAN_EFF_SETS][PLAN_ENG_COUNT][GGML_TYPE_COUNT],
        fam_rows[PLAN_EFF_SETS][PLAN_ENG_COUNT][GGML_TYPE_COUNT];
    memset(rows, 0, sizeof rows);
    memset(fam_rows, 0, sizeof fam_rows);
    for (int i = 0; i < s->n; i++) {
        const plan_speed_setup *su = &s->m[i].setup;
        for (int d = 0; d < su->n_dev; d++) {
            int be = su->dev[d].backend;
            if (be < 0 || be >= PLAN_BACKEND_COUNT || su->engine < 0 || su->engine >= PLAN_ENG_COUNT) continue;
            int set = plan_eff_set_of(&su->dev[d], su->engine);
            const plan_speed_load *l = &su->load[d];
            uint32_t main_t = plan_speed_load_main_type(l);
            bool unused = dequant_prefill(&s->m[i], d) && plan_kernel_family(main_t) != GGML_TYPE_F16;
            if (!(l->elems[main_t] > 0)) continue;
            if (s->m[i].n_prompt > 0 && !unused) rows[PLAN_EFF_PP][set][su->engine][main_t]++;
            if (s->m[i].n_gen > 0) {
                rows[PLAN_EFF_DEC_RATE][set][su->engine][main_t]++;
                fam_rows[set][su->engine][plan_kernel_family(main_t)]++;
            }
        }
    }
    int np = 0;
    for (int i = 0; i < s->n; i++) {
        const plan_speed_setup *su = &s->m[i].setup;
        for (int d = 0; d < su->n_dev; d++) {
            int be = su->dev[d].backend;
            if (be < 0 || be >= PLAN_BACKEND_COUNT || su->engine < 0 || su->engine >= PLAN_ENG_COUNT) continue;
            int set = plan_eff_set_of(&su->dev[d], su->engine);
            plan_eff_set *f = &e->set[set][su->engine];
            for (int k = 0; k < PLAN_EFF_SCALAR_COUNT; k++) {
                bool era = k == PLAN_EFF_ERA_DEC || k == PLAN_EFF_ERA_PP;
                bool nofa = k == PLAN_EFF_NOFA_DEC;
                bool nofa_pp = k == PLAN_EFF_NOFA_PP;
                if ((era && !su->old_build) || (nofa && !su->no_fa)) continue;
                /* A set with both attention terms runs its plain path at attn_dec itself (speed.c). */
                if (nofa && plan_eff_two_attn_paths(f)) continue;
                if (nofa_pp && (!su->no_fa || s->m[i].n_prompt + s->m[i].n_depth < NOFA_PP_MIN_CTX)) continue;
                if (k == PLAN_EFF_SOC_PP) {
                    if (su->dev[d].soc && s->m[i].n_prompt) add_soc_param(e, p, &np, su->engine);
                    continue;
                }
                /* The datasheet CPU set keeps its fixed cost per layer and ubatch: fitted to the
                 * corpus's CPUs (4 to 64 threads, 14 CPUs) it became a knob, 25 ms per layer,
                 * standing in for the EPYC 7702's slow prefill at 64 threads, and cost a 48-layer
                 * model 1.2 s per ubatch on any CPU; at its prior, held out, the CPU rows went
                 * 32.1% -> 30.8% (3 Dec 2026). A measured set is fitted to one machine's runs,
                 * where that cost is what they measure (fitcheck's engine: 907 us). */
                if (k == PLAN_EFF_UBATCH_US && set == PLAN_EFF_SET_CPU_DATASHEET) continue;
                add_param(p, &np, &f->scalar[k], era || nofa ? FIT_ANCHOR_WEIGHT : FIT_PRIOR_WEIGHT,
                          k == PLAN_EFF_BW ? BW_EFF_MAX : nofa ? NOFA_MAX : INFINITY);
            }
            const plan_speed_load *l = &su->load[d];
            uint32_t main_t = plan_speed_load_main_type(l);
            for (uint32_t t = 0; t < GGML_TYPE_COUNT; t++) {
                /* A type with a sliver of the weights would be a free knob, not a measured rate. */
                if (!type_weighs(l, t)) continue;
                for (int k = 0; k < PLAN_EFF_TYPED_COUNT; k++) {
                    /* A card that dequantizes for cuBLAS runs no quantized GEMM kernel to fit a rate to. */
                    if (k == PLAN_EFF_PP && dequant_prefill(&s->m[i], d) && plan_kernel_family(t) != GGML_TYPE_F16)
                        continue;
                    /* A bandwidth-bound set (its prior says so) has no decode rate to fit: Metal's,
                     * whose per-family rates each one source measured (#4167 alone Q4_0, XiongjieDai
                     * alone the 2024 Q4_K); fitted, they took what the fixed costs explain for the
                     * rest (bw_eff at its cap, the legacy-quant rate set by 2026 builds' Q8_0 and MoE
                     * rows), and #4167's Q4_0 rows, held out, came out 7-38% too slow. Without them,
                     * 812 rows (4 Dec 2026): Metal in sample 4.6% -> 4.2%, decode held out by source
                     * 10.0% -> 8.2%. The other GPU sets keep theirs: dropped there too, CUDA's decode
                     * held out by family went 8.4% -> 10.8%, depth >= 16k 16.9% -> 18.0% (docs/speed-model.md). */
                    if (k == PLAN_EFF_DEC_RATE && be != PLAN_CPU && f->typed_default[k] >= PLAN_DEC_RATE_UNBOUND)
                        continue;
                    /* A GPU's decode runs at one rate per kernel family, its main type's (planner/speed.c):
                     * per-type rates fitted to a few rows each made files with fewer bytes decode slower
                     * than bigger ones of the same family (tests/planner_speed/test_physics.c). */
                    bool gpu_dec = k == PLAN_EFF_DEC_RATE && be != PLAN_CPU;
                    if (gpu_dec && t != main_t) continue;
                    uint32_t slot = gpu_dec ? plan_kernel_family(t) : t;
                    int n_rows = gpu_dec ? fam_rows[set][su->engine][slot] : rows[k][set][su->engine][t];
                    bool own = n_rows >= (be == PLAN_CPU ? FIT_CPU_TYPE_MIN_ROWS : PLAN_FIT_TYPE_MIN_ROWS);
                    double max = k == PLAN_EFF_PP && be != PLAN_CPU ? PP_EFF_GPU_MAX : INFINITY;
                    /* A CPU type never measured as the main one keeps its constant; a GPU's
                     * falls to the set's shared default, fitted with the others. */
                    if (!own && be == PLAN_CPU) continue;
                    if (!own) {
                        /* The default is what every type without rates of its own runs at, and only rows
                         * whose main type is one of them measure it: fitted to the F16 attention weights
                         * of gpt-oss (2.5% of them) and the F32 routers of MoE files, Vulkan's default
                         * prefill rate became a knob for MoE prefill, 0.0028 of peak, at which an F16
                         * model would plan a hundredth of its speed. */
                        if (t != main_t) continue;
                        /* its family's own rates are fitted already, and they are what it runs at */
                        if (k == PLAN_EFF_PP && plan_pp_pools_family(be) && family_owns(rows[k][set][su->engine], t))
                            continue;
                        add_param(p, &np, &f->typed_default[k], FIT_PRIOR_WEIGHT, max);
                        continue;
                    }
                    if (!(f->typed[k][slot] > 0)) f->typed[k][slot] = f->typed_default[k];
                    add_param(p, &np, &f->typed[k][slot], FIT_PRIOR_WEIGHT, max);
                }
            }
        }
    }
    return np;
}

/* One coordinate descent from the constants as they are; returns the objective where it stops. Each
 * constant keeps its own log step: it grows after a move that helped and halves after one that did not,
 * so constants the data pins down converge while the others still explore. */
static double descend(const plan_meas_set *s, plan_efficiency *e, const fit_param *p, int np) {
    double best = objective(s, e, p, np);
    double step[FIT_MAX_PARAMS];
    for (int k = 0; k < np; k++) step[k] = FIT_STEP0;
    for (int round = 0; round < FIT_ROUNDS; round++) {
        bool active = false;
        for (int k = 0; k < np; k++) {
            if (step[k] < FIT_STEP_MIN) continue;
            active = true;
            bool moved = false;
            for (int dir = -1; dir <= 1 && !moved; dir += 2) {
                double old = *p[k].v, cand = old * exp(dir * step[k]);
                if (cand > p[k].max) cand = p[k].max;
                if (cand == old) continue;
                param_set(&p[k], cand);
                double obj = objective(s, e, p, np);
                if (obj < best - 1e-12) {
                    best = obj;
                    moved = true;
                } else {
                    param_set(&p[k], old);
                }
            }
            step[k] *= moved ? FIT_STEP_GROW : 0.5;
        }
        if (!active) break;
    }
    return best;
}

/* The order the constants are visited in: where each lives in the table (backend, engine, then the
 * scalars before the per-type rates), not the order of the rows that first named one. The loss has a
 * local minimum for every way of setting rows aside as outliers, and descent ends in the one its path
 * leads to: visited in row order, the same rows shuffled gave other constants (held out by source,
 * ROCm 13.3-17.0% over four orders; docs/speed-model.md, "The order of the corpus's rows"). */
static int cmp_param_place(const void *a, const void *b) {
    uintptr_t x = (uintptr_t)((const fit_param *)a)->v, y = (uintptr_t)((const fit_param *)b)->v;
    return (x > y) - (x < y);
}
static int cmp_param_place_back(const void *a, const void *b) { return cmp_param_place(b, a); }

/* Constants fall into blocks that share no row: a row moves with some constants and not others
 * (a CUDA row with no CPU constant), and constants no row ties together are independent problems in
 * one objective. Found by moving each constant by descent's first step and by three of them, both
 * ways, and seeing which rows' predictions change, from each table the fit passes through: a rate
 * behind a max() moves no row until a step takes it past the other term. block[k] ends as the root
 * of k's block (one of its constants), row_block[i] as a row's, -1 where no constant moves it. */
static int block_root(int *block, int k) {
    while (block[k] != k) k = block[k] = block[block[k]];
    return k;
}

static void blocks_link(const plan_meas_set *s, plan_efficiency *e, const fit_param *p, int np, double *pred0,
                        int *block, int *row_block) {
    static const double log_nudge[] = {FIT_STEP0, -FIT_STEP0, 3 * FIT_STEP0, -3 * FIT_STEP0};
    for (int i = 0; i < s->n; i++) pred0[i] = plan_meas_predict(&s->m[i], e);
    for (int k = 0; k < np; k++) {
        double old = *p[k].v;
        for (size_t j = 0; j < sizeof log_nudge / sizeof *log_nudge; j++) {
            param_set(&p[k], old * exp(log_nudge[j]));
            for (int i = 0; i < s->n; i++) {
                if (plan_meas_predict(&s->m[i], e) == pred0[i]) continue;
                if (row_block[i] < 0) row_block[i] = k;
                else block[block_root(block, row_block[i])] = block_root(block, k);
            }
        }
        param_set(&p[k], old);
    }
}

static void blocks_finish(const plan_meas_set *s, int np, int *block, int *row_block) {
    for (int k = 0; k < np; k++) block[k] = block_root(block, k);
    for (int i = 0; i < s->n; i++)
        if (row_block[i] >= 0) row_block[i] = block[row_block[i]];
}

/* The objective block by block: obj[b] for each block's root b. */
static void block_objectives(const plan_meas_set *s, const plan_efficiency *e, const fit_param *p, int np,
                             const int *block, const int *row_block, double *obj) {
    for (int k = 0; k < np; k++) obj[k] = 0;
    for (int i = 0; i < s->n; i++)
        if (row_block[i] >= 0) obj[row_block[i]] += row_loss(&s->m[i], e);
    for (int k = 0; k < np; k++) obj[block[k]] += prior_loss(&p[k]);
}

/* A constant's value in another copy of the table e's constants point into. */
static double value_in(const plan_efficiency *copy, const plan_efficiency *e, const double *v) {
    return *(const double *)((const char *)copy + ((const char *)v - (const char *)e));
}

int plan_calibrate(plan_efficiency *e, const plan_meas_set *s, plan_fit_stats *before, plan_fit_stats *after,
                   fc_err *err) {
    if (s->n <= 0) return fc_err_set(err, FC_EINPUT, "no measurements to calibrate from");
    if (before) *before = plan_fit_evaluate(s, e);
    fit_param *p = calloc(FIT_MAX_PARAMS, sizeof *p);
    plan_efficiency *start = malloc(sizeof *start), *forward = malloc(sizeof *forward),
                    *backward = malloc(sizeof *backward);
    int *block = calloc(FIT_MAX_PARAMS, sizeof(int)), *row_block = calloc(s->n, sizeof(int));
    double *pred0 = malloc(sizeof(double) * s->n), *fwd_obj = malloc(sizeof(double) * FIT_MAX_PARAMS),
           *back_obj = malloc(sizeof(double) * FIT_MAX_PARAMS);
    int rc = FC_OK;
    if (!p || !start || !forward || !backward || !block || !row_block || !pred0 || !fwd_obj || !back_obj) {
        rc = fc_err_set(err, FC_ERUNTIME, "out of memory");
        goto out;
    }
    int np = collect_params(e, s, p);
    qsort(p, np, sizeof *p, cmp_param_place);
    for (int k = 0; k < np; k++) block[k] = k;
    for (int i = 0; i < s->n; i++) row_block[i] = -1;
    blocks_link(s, e, p, np, pred0, block, row_block);
    /* Two descents, the table forwards and backwards, and the lower end kept block by block: one
     * order's end is one draw of the local minima, and of two draws the fit keeps the better one by its
     * own measure, the objective, never by a held-out error. Kept whole, the choice coupled constants
     * that share no row: with #15396 held out, the CPU rows' end tipped it to the descent whose CUDA
     * constants predict gpt-oss 5-19% faster (CUDA held out 8.9% -> 9.5%, 7 Dec 2026). */
    *start = *e;
    double fwd_total = descend(s, e, p, np);
    *forward = *e;
    *e = *start;
    qsort(p, np, sizeof *p, cmp_param_place_back);
    double back_total = descend(s, e, p, np);
    *backward = *e;
    qsort(p, np, sizeof *p, cmp_param_place);
    blocks_link(s, e, p, np, pred0, block, row_block);
    *e = *forward;
    blocks_link(s, e, p, np, pred0, block, row_block);
    *e = *backward;
    blocks_finish(s, np, block, row_block);
    block_objectives(s, e, p, np, block, row_block, back_obj);
    *e = *forward;
    block_objectives(s, e, p, np, block, row_block, fwd_obj);
    *e = *backward;
    for (int k = 0; k < np; k++)
        if (fwd_obj[block[k]] <= back_obj[block[k]]) param_set(&p[k], value_in(forward, e, p[k].v));
    /* Blocks found by four moves per constant could miss a tie another move makes; the mix is kept only
     * where it is no worse than both whole descents, as it always is when the blocks are independent. */
    double best_whole = fwd_total <= back_total ? fwd_total : back_total;
    if (objective(s, e, p, np) > best_whole + FIT_SUM_ROUNDING) *e = fwd_total <= back_total ? *forward : *backward;
out:
    free(back_obj);
    free(fwd_obj);
    free(pred0);
    free(row_block);
    free(block);
    free(backward);
    free(forward);
    free(start);
    free(p);
    if (rc == FC_OK && after) *after = plan_fit_evaluate(s, e);
    return rc;
}

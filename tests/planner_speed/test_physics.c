/* Physics over the whole catalog: every catalog model x every catalog GPU or
 * unified-memory device x every quantization llama.cpp writes, all layers on
 * the device, built-in constants. No decode faster than the spec bandwidth
 * over the bytes a token reads; no prefill faster than the device's peak
 * (int8 tensor rate for quantized GEMMs, FP16 for float ones); within one
 * kernel family, a file that reads fewer bytes per token never decodes
 * slower; speed never rises with KV depth. */
#include "planner/planner.h"
#include "tests/check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEPTHS 4
static const int depths[DEPTHS] = {0, 4096, 16384, 65536};
#define REL_EPS 1e-9   /* floating-point slack in the comparisons */

/* llama.cpp's kernel families: one dequantize+dot design each. */
static int family_of(const char *ftype) {
    if (!strncmp(ftype, "IQ", 2)) return 3;
    if (strstr(ftype, "_K")) return 2;
    if (ftype[0] == 'Q') return 1;
    if (!strcmp(ftype, "MXFP4_MOE")) return 4;
    return 0; /* F32, F16, BF16 */
}

typedef struct qrow {
    const char *ftype;
    double bytes, tg;   /* weight bytes a token reads; tg1 at depth 0 */
    int bound;          /* what bounds that decode (enum plan_bound) */
} qrow;

static int n_checked, n_bad_bw, n_bad_pp, n_bad_mono, n_bad_depth, n_bad_bound, n_kernel_pairs;

static double token_bytes(const plan_speed_load *l) {
    double b = l->out_bytes;
    for (int t = 0; t < GGML_TYPE_COUNT; t++) b += l->bytes[t];
    return b;
}

static double token_elems(const plan_speed_load *l, bool *all_float) {
    double e = 0;
    *all_float = true;
    for (int t = 0; t < GGML_TYPE_COUNT; t++) {
        if (!(l->elems[t] > 0)) continue;
        e += l->elems[t];
        if (t != GGML_TYPE_F32 && t != GGML_TYPE_F16 && t != GGML_TYPE_BF16) *all_float = false;
    }
    return e;
}

typedef struct pdev {
    char id[64];
    plan_speed_dev dev;
    double spec_gbs;         /* the datasheet bandwidth: nothing reads faster */
    double peak_q, peak_f;   /* FLOP/s: quantized GEMMs (int8 tensor rate), float GEMMs (FP16) */
} pdev;

/* Every catalog GPU and unified-memory device is checked: more than this fails the test. */
#define PHYS_MAX_DEVICES 256

/* The devices checked; *n_gpu: the catalog's devices that are not CPU platforms (each must be one). */
static int devices(pdev *out, int cap, int *n_gpu) {
    fc_err err = {0};
    int n = 0;
    *n_gpu = 0;
    for (size_t i = 0; i < plan_hwcat_count() && n < cap; i++) {
        plan_hw_entry he;
        if (plan_hwcat_get(i, &he, &err)) continue;
        if (!strcmp(he.category, "cpu_platform")) continue; /* no compute figure to bound by */
        ++*n_gpu;
        pdev *d = &out[n];
        int backend = !strcmp(he.category, "apple_soc")  ? PLAN_METAL
                      : !strcasecmp(he.vendor, "NVIDIA") ? PLAN_CUDA
                      : !strcasecmp(he.vendor, "AMD")    ? PLAN_ROCM
                                                         : PLAN_SYCL;
        if (plan_corpus_device(he.id, backend, &d->dev, &err)) continue;
        snprintf(d->id, sizeof d->id, "%s", he.id);
        d->spec_gbs = he.bandwidth_gbs;
        double f16 = he.fp16_tflops > 0 ? he.fp16_tflops : he.fp32_tflops;
        /* a card whose int8 rate is below its FP16 tensor rate dequantizes for FP16 GEMMs (plan_speed_dev.dequant_gemm) */
        d->peak_q = fmax(he.int8_tops > 0 ? he.int8_tops : 2 * f16, f16) * 1e12;
        d->peak_f = f16 * 1e12;
        n++;
    }
    return n;
}

static void check_model(const model_catalog_info *info, const model_hparams *hp, const pdev *dv, int n_dev,
                        const plan_efficiency *eff, plan_speed_setup *s) {
    fc_err err = {0};
    enum { QMAX = 48, DMAX = PHYS_MAX_DEVICES };
    static qrow rows[DMAX][QMAX];
    int n = 0;
    for (size_t q = 0; model_ftype_at(q) && n < QMAX; q++) {
        const char *ft = model_ftype_at(q)->name;
        model_desc d;
        if (model_desc_synthesize(&d, hp, ft, &err)) continue; /* e.g. MXFP4_MOE on a dense model */
        for (int k = 0; k < n_dev && k < DMAX; k++) {
            memset(s, 0, sizeof *s);
            s->n_dev = 1;
            s->engine = PLAN_ENG_LLAMACPP;
            s->n_ubatch = PLAN_DEFAULT_UBATCH;
            s->dev[0] = dv[k].dev;
            plan_speed_place pl;
            memset(&pl, 0, sizeof pl);
            pl.exps_dev = -1;
            pl.kv_type = GGML_TYPE_F16;
            if (plan_speed_loads(s, &d, &pl, &err)) continue;
            const plan_speed_load *l = &s->load[0];
            double bytes = token_bytes(l);
            double bound = dv[k].spec_gbs * 1e9 / bytes; /* depth 0: the weights alone */
            bool all_float;
            double elems = token_elems(l, &all_float);
            double pp_bound = (all_float ? dv[k].peak_f : dv[k].peak_q) / (2 * elems);
            double tg[DEPTHS], pp[DEPTHS];
            /* a current build, then one before PLAN_CURRENT_ERA_BUILD (plan --llama-build): the era factors
             * must keep it within the same bounds; the current build's decode is kept for the pairs below */
            for (int old = 1; old >= 0; old--) {
                s->old_build = old;
                for (int j = 0; j < DEPTHS; j++) {
                    tg[j] = plan_speed_tg_tps(s, eff, 1, depths[j]);
                    pp[j] = plan_speed_pp_tps(s, eff, PLAN_TEST_PP, depths[j]);
                }
                n_checked++;
                const char *era = old ? " (old build)" : "";
                if (tg[0] > bound * (1 + REL_EPS) && n_bad_bw++ < 5)
                    fprintf(stderr, "%s %s %s%s: decode %.1f t/s above bandwidth bound %.1f\n", dv[k].id, info->name,
                            ft, era, tg[0], bound);
                if (pp[0] > pp_bound * (1 + REL_EPS) && n_bad_pp++ < 5)
                    fprintf(stderr, "%s %s %s%s: prefill %.1f t/s above peak-compute bound %.1f\n", dv[k].id,
                            info->name, ft, era, pp[0], pp_bound);
                for (int j = 1; j < DEPTHS; j++)
                    if ((tg[j] > tg[j - 1] * (1 + REL_EPS) || pp[j] > pp[j - 1] * (1 + REL_EPS)) && n_bad_depth++ < 5)
                        fprintf(stderr, "%s %s %s%s: speed rises with depth %d\n", dv[k].id, info->name, ft, era,
                                depths[j]);
            }
            rows[k][n] = (qrow){ft, bytes, tg[0], plan_speed_decode_bound(s, eff, depths[0])};
        }
        model_desc_free(&d);
        n++;
    }
    for (int k = 0; k < n_dev && k < DMAX; k++)
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++) {
                const qrow *ra = &rows[k][a], *rb = &rows[k][b];
                if (family_of(ra->ftype) != family_of(rb->ftype) || !(ra->bytes < rb->bytes)) continue;
                if (rb->bound == PLAN_BOUND_KERNEL) {
                    n_kernel_pairs++;
                    if (ra->tg > rb->tg * (1 + REL_EPS) && n_bad_bound++ < 10)
                        fprintf(stderr, "%s %s: %s is said kernel-bound at %.1f t/s, but %s (%.2f GB) decodes at %.1f\n",
                                dv[k].id, info->name, rb->ftype, rb->tg, ra->ftype, ra->bytes / 1e9, ra->tg);
                }
                if (!(ra->tg < rb->tg * (1 - REL_EPS))) continue;
                if (n_bad_mono++ < 10)
                    fprintf(stderr, "%s %s: %s reads %.2f GB but decodes at %.1f t/s, below %s (%.2f GB, %.1f t/s)\n",
                            dv[k].id, info->name, ra->ftype, ra->bytes / 1e9, ra->tg, rb->ftype, rb->bytes / 1e9, rb->tg);
            }
}

int main(void) {
    fc_err err = {0};
    plan_efficiency eff;
    CHECK_MSG(plan_efficiency_builtin(&eff, &err) == FC_OK, "%s", err.msg);
    plan_speed_setup *s = calloc(1, sizeof *s);
    static pdev dv[PHYS_MAX_DEVICES];
    int n_gpu;
    int n_dev = devices(dv, PHYS_MAX_DEVICES, &n_gpu);
    CHECK_MSG(n_dev == n_gpu, "%d of the catalog's %d GPU and unified devices checked", n_dev, n_gpu);
    CHECK(s != NULL);
    if (!s) return check_done("physics");
    for (size_t i = 0; i < model_catalog_count(); i++) {
        model_catalog_info info;
        model_hparams hp;
        if (model_catalog_get(i, &info, &hp, &err) == FC_OK) check_model(&info, &hp, dv, n_dev, &eff, s);
    }
    free(s);
    printf("physics: %d devices, %d model x device x quantization x build era cases; over bandwidth %d, over peak "
           "compute %d, fewer bytes decoding slower %d, rising with depth %d; of %d smaller files beside a "
           "kernel-bound one, decoding faster %d\n",
           n_dev, n_checked, n_bad_bw, n_bad_pp, n_bad_mono, n_bad_depth, n_kernel_pairs, n_bad_bound);
    CHECK(n_dev >= 40 && n_checked >= 10000);
    CHECK(n_bad_bw == 0);
    CHECK(n_bad_pp == 0);
    CHECK(n_bad_mono == 0);
    CHECK(n_bad_depth == 0);
    CHECK(n_kernel_pairs > 0 && n_bad_bound == 0);
    return check_done("physics");
}

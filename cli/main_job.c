/* fitcheck with no arguments: which catalog models fit on this machine, and
 * at which quantization. Free memory comes from /proc/meminfo until a probe
 * profile is available (the output says which). */
#include "cli/cli.h"
#include "planner/planner.h"

#include <string.h>

/* Highest quality first: the first that fits with margin is the
 * recommendation, else the first that fits tightly. */
static const char *const job_quants[] = {"Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "IQ4_XS", "Q3_K_M", "Q2_K", "IQ2_XXS"};

typedef struct job_fit {
    const char *quant;      /* NULL: none fits */
    plan_memory mem;
    uint64_t file_bytes;
} job_fit;

static int job_best_quant(const model_hparams *hp, const plan_hw *hw, const plan_params *p, job_fit *fit, fc_err *err) {
    memset(fit, 0, sizeof *fit);
    job_fit tight = {0};
    /* A model released quantized (gpt-oss in MXFP4) is tried as released first. */
    const char *native = model_native_quant(hp);
    for (size_t q = native ? 0 : 1; q <= FC_ARRAY_LEN(job_quants); q++) {
        const char *quant = q ? job_quants[q - 1] : native;
        model_desc d;
        int rc = model_desc_synthesize(&d, hp, quant, err);
        if (rc) return rc;
        rc = plan_memory_compute(&fit->mem, &d, hw, p, err);
        fit->file_bytes = d.file_bytes;
        model_desc_free(&d);
        if (rc) return rc;
        fit->quant = quant;
        if (fit->mem.verdict == PLAN_FITS) return FC_OK;
        if (fit->mem.verdict == PLAN_TIGHT && !tight.quant) tight = *fit;
    }
    *fit = tight;
    return FC_OK;
}

int cli_main_job(void) {
    fc_err err = {0};
    plan_hw hw;
    if (plan_hw_this_machine(&hw, true, &err)) return cli_report_error("", &err);
    plan_params p;
    plan_params_default(&p);
    char freebuf[24];
    printf("fitcheck: which catalog models fit on %s\n", hw.label);
    printf("free RAM %s; context %u, KV f16, flash attention on; 'fitcheck plan NAME' for the breakdown.\n\n",
           fc_fmt_bytes(hw.host.mem_free, freebuf, sizeof freebuf), p.n_ctx);
    printf("%-18s %9s  %-8s %10s %10s  %s\n", "model", "params", "quant", "file", "memory", "verdict");
    int n_fit = 0;
    for (size_t i = 0; i < model_catalog_count(); i++) {
        model_catalog_info info;
        model_hparams hp;
        job_fit fit;
        if (model_catalog_get(i, &info, &hp, &err) || job_best_quant(&hp, &hw, &p, &fit, &err))
            return cli_report_error("", &err);
        char fb[24], mb[24];
        uint64_t total = fit.mem.host.total;
        for (int g = 0; g < fit.mem.n_gpu; g++) total += fit.mem.gpu[g].total;
        if (!fit.quant) {
            printf("%-18s %7.1f B  %-8s %10s %10s  does not fit at any quantization\n", info.name,
                   (double)info.params_reference / 1e9, "-", "-", "-");
            continue;
        }
        n_fit++;
        printf("%-18s %7.1f B  %-8s %10s %10s  %s\n", info.name, (double)info.params_reference / 1e9, fit.quant,
               fc_fmt_bytes(fit.file_bytes, fb, sizeof fb), fc_fmt_bytes(total, mb, sizeof mb),
               plan_verdict_name(fit.mem.verdict));
    }
    printf("\n%d of %zu catalog models fit. Free memory: %s.\n", n_fit, model_catalog_count(), hw.host.source);
    return 0;
}

/* fitcheck with no arguments: probe this machine quickly (or reuse its saved
 * profile), then say, for every catalog model, which quantization the
 * planner recommends, where it runs and how fast — the same choice as
 * `fitcheck plan NAME`, one line per model. */
#include "cli/cli.h"
#include "planner/planner.h"

#include <stdlib.h>

int cli_main_job(void) {
    fc_err err = {0};
    plan_hw hw;
    if (plan_hw_this_machine(&hw, true, &err)) return cli_report_error("", &err);
    plan_params p;
    plan_params_default(&p);
    plan_efficiency eff;
    if (plan_efficiency_load(&eff, NULL, &err)) return cli_report_error("", &err);
    plan_choice *c = calloc(1, sizeof *c);
    if (!c) return cli_report_error("", &(fc_err){FC_ERUNTIME, "out of memory"});

    char freebuf[24];
    printf("fitcheck: which catalog models fit, and how fast, on %s\n", hw.label);
    printf("free RAM %s; context %u, KV f16, flash attention on; speeds as llama.cpp would run them.\n"
           "'fitcheck plan NAME' shows every quantization and the memory breakdown.\n\n",
           fc_fmt_bytes(hw.host.mem_free, freebuf, sizeof freebuf), p.n_ctx);
    printf("%-18s %9s  %-9s %10s  %-12s %6s %8s %8s\n", "model", "params", "quant", "file", "runs on", "ctx", "pp512",
           "tg128");
    int n_fit = 0, rc = 0;
    for (size_t i = 0; i < model_catalog_count() && !rc; i++) {
        model_catalog_info info;
        model_hparams hp;
        if ((rc = model_catalog_get(i, &info, &hp, &err)) || (rc = plan_choose(c, info.name, &hw, &p, 0, &eff, &err)))
            break;
        printf("%-18s %7.1f B  ", info.name, (double)info.params_reference / 1e9);
        if (c->best < 0) {
            printf("does not fit at any quantization, even at context %u\n", c->n_ctx);
            continue;
        }
        const plan_choice_row *r = &c->row[c->best];
        char fb[24];
        printf("%-9s %10s  %-12s %6u %8.1f %8.1f\n", r->quant, fc_fmt_bytes(r->file_bytes, fb, sizeof fb),
               plan_where_name(r->where), c->n_ctx, r->speed.pp512, r->speed.tg128);
        n_fit++;
    }
    free(c);
    if (rc) return cli_report_error("", &err);
    printf("\n%d of %zu catalog models fit. Free memory: %s.\n", n_fit, model_catalog_count(), hw.host.source);
    return 0;
}

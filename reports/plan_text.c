/* A plan as people read it on a terminal: the model and settings, memory per
 * device with a verdict, the predicted speed, every quantization and the
 * recommended command. Only renders a plan_result; computes nothing. Names,
 * paths, the hardware label and notes come from files: shown through fc_safe
 * (common/fc.h). */
#include "planner/planner.h"
#include "reports/reports.h"

#include <stdlib.h>
#include <string.h>

static const char *bytes_or_dash(uint64_t b, char *buf, size_t cap) { return b ? fc_fmt_bytes(b, buf, cap) : "-"; }

static void layers_label(const plan_dev_mem *dm, char *buf, size_t cap) {
    int n = 0;
    if (dm->n_layers) n = snprintf(buf, cap, "%u-%u", dm->layer_first, dm->layer_first + dm->n_layers - 1);
    else buf[0] = '\0';
    if (dm->has_output && n >= 0 && (size_t)n < cap) n += snprintf(buf + n, cap - (size_t)n, "%sout", n ? "+" : "");
    if (dm->has_embd && n >= 0 && (size_t)n < cap) snprintf(buf + n, cap - (size_t)n, "%sembd", n ? "+" : "");
}

static void device_line(FILE *out, const char *dev, const plan_dev_mem *dm) {
    char l[32], w[24], k[24], c[24], o[24], ov[24], t[24], f[24], mg[24];
    layers_label(dm, l, sizeof l);
    fc_fmt_bytes(dm->margin < 0 ? (uint64_t)-dm->margin : (uint64_t)dm->margin, mg, sizeof mg);
    fprintf(out, "%-24s %-14s %10s %10s %10s %10s %10s %10s %10s %s%-9s %s\n", fc_safe(dev), l,
            bytes_or_dash(dm->weights, w, sizeof w), bytes_or_dash(dm->kv, k, sizeof k),
            bytes_or_dash(dm->compute, c, sizeof c), bytes_or_dash(dm->output, o, sizeof o),
            bytes_or_dash(dm->overhead, ov, sizeof ov), fc_fmt_bytes(dm->total, t, sizeof t),
            fc_fmt_bytes(dm->capacity, f, sizeof f), dm->margin < 0 ? "-" : " ", mg, plan_verdict_name(dm->verdict));
}

static void gpu_label(const plan_result *r, int g, char *buf, size_t cap) {
    snprintf(buf, cap, "%s%d %.16s", plan_backend_name(r->hw.gpu[g].backend), g, r->hw.gpu[g].id);
}

/* --mmproj, --lora, --draft: what they add to each device (already in its total). */
static void extras_text(FILE *out, const plan_result *r) {
    const plan_extras *x = r->params.extras;
    if (!x) return;
    char a[24], b[24], c[24], dev[64];
    fprintf(out, "\nnext to the model (in each device's total above)\n%-24s %10s %10s %10s\n", "device", "mmproj",
            "LoRA", "draft");
    for (int g = -1; g < r->hw.n_gpu; g++) {
        const plan_dev_mem *dm = g < 0 ? &r->mem.host : &r->mem.gpu[g];
        if (g >= 0) gpu_label(r, g, dev, sizeof dev);
        else snprintf(dev, sizeof dev, "CPU (host RAM)");
        fprintf(out, "%-24s %10s %10s %10s\n", fc_safe(dev), bytes_or_dash(dm->mmproj, a, sizeof a),
                bytes_or_dash(dm->lora, b, sizeof b), bytes_or_dash(dm->draft, c, sizeof c));
    }
    if (x->mmproj) {
        const model_mmproj *m = x->mmproj;
        if (r->mem.mmproj_dev >= 0) gpu_label(r, r->mem.mmproj_dev, dev, sizeof dev);
        else snprintf(dev, sizeof dev, "the CPU");
        fprintf(out, "mmproj    %s (%s, %u layers, %u wide): weights %s + one %ux%u image (%u positions) %s, on %s\n",
                fc_safe(m->path), fc_safe(m->projector), m->n_layer, m->n_embd,
                fc_fmt_bytes(m->weight_bytes, a, sizeof a), m->image_size, m->image_size, r->mem.mmproj_positions,
                fc_fmt_bytes(r->mem.mmproj_compute, b, sizeof b), fc_safe(dev));
    }
    for (int i = 0; i < x->n_lora; i++)
        fprintf(out, "lora      %s: %u tensor pairs, rank %u, %s, with the layers they adapt\n", fc_safe(x->lora[i]->path),
                x->lora[i]->n_pairs, x->lora[i]->rank, fc_fmt_bytes(x->lora[i]->bytes, a, sizeof a));
    if (x->draft)
        fprintf(out, "draft     %s (%s, %.2f B parameters), -ngld %d, context %u, KV f16\n", fc_safe(x->draft->source),
                fc_safe(x->draft->hp.name[0] ? x->draft->hp.name : x->draft->hp.arch), (double)x->draft->n_params / 1e9,
                x->draft_ngl == PLAN_NGL_ALL ? PLAN_NGL_ALL_FLAG : x->draft_ngl, r->params.n_ctx);
}

/* The draft's predicted speed-up against the acceptance rate (plan_spec). */
static void spec_text(FILE *out, const plan_result *r) {
    const plan_spec *s = &r->spec;
    fprintf(out, "\nspeculative decoding: the model %.1f t/s alone, the draft %.1f t/s; decode t/s (speed-up) by "
                 "acceptance rate and draft length (--draft-max)\n%-10s", 1.0 / s->target_s, 1.0 / s->draft_s,
            "accept");
    for (int k = 0; k < PLAN_SPEC_N_DRAFT; k++) fprintf(out, "   draft %-7u", s->n_draft[k]);
    fputc('\n', out);
    for (int a = 0; a < PLAN_SPEC_N_ACCEPT; a++) {
        fprintf(out, "%-10.1f", s->accept[a]);
        for (int k = 0; k < PLAN_SPEC_N_DRAFT; k++) fprintf(out, " %7.1f (%.2fx)", s->tps[a][k], s->speedup[a][k]);
        fputc('\n', out);
    }
    fprintf(out, "tokens per step (1 - a^(k+1)) / (1 - a) (Leviathan et al. 2023); a step costs k draft tokens and the "
                 "model's pass over k+1\n");
}

static void memory_text(FILE *out, const plan_result *r) {
    const model_desc *d = r->model;
    const plan_params *p = &r->params;
    const model_ftype_info *ft = model_ftype_by_id(d->hp.file_type);
    char a[24], b[24];
    fprintf(out, "model     %s (%s), %s, %s file, %.2f B parameters, %s\n",
            fc_safe(d->hp.name[0] ? d->hp.name : d->hp.arch), fc_safe(d->source), ft ? ft->name : "file types",
            fc_fmt_bytes(d->file_bytes, a, sizeof a), (double)d->n_params / 1e9, fc_safe(d->hp.arch));
    fprintf(out, "settings  context %u (KV cells %u", p->n_ctx, r->mem.kv_cells);
    if (d->hp.sliding_window) fprintf(out, ", %u on sliding-window layers", r->mem.kv_cells_swa);
    fprintf(out, "), KV %s/%s %s, ubatch %u, flash attention %s, %u sequence%s\n", ggml_type_get(p->type_k)->name,
            ggml_type_get(p->type_v)->name, fc_fmt_bytes(r->mem.kv_bytes, b, sizeof b), p->n_ubatch,
            p->flash_attn ? "on" : "off", p->n_parallel, p->n_parallel > 1 ? "s" : "");
    fprintf(out, "hardware  %s\n\n", fc_safe(r->hw.label));
    fprintf(out, "%-24s %-14s %10s %10s %10s %10s %10s %10s %10s %-10s %s\n", "device", "layers", "weights",
            "KV cache", "compute", "output", "overhead", "total", "free", "margin", "verdict");
    for (int g = 0; g < r->hw.n_gpu; g++) {
        char dev[64];
        gpu_label(r, g, dev, sizeof dev);
        device_line(out, dev, &r->mem.gpu[g]);
    }
    device_line(out, "CPU (host RAM)", &r->mem.host);
    extras_text(out, r);
    fprintf(out, "\nverdict   %s", plan_verdict_name(r->mem.verdict));
    if (r->verdict_advice[0]) fprintf(out, " — %s", r->verdict_advice);
    fprintf(out, "\nfree memory: %s\n", fc_safe(r->hw.host.source));
    for (int i = 0; i < r->n_note; i++) fprintf(out, "note      %s\n", fc_safe(r->note[i]));
}

/* What bounds a decode, as the sentence a user acts on: whether a smaller quantization would decode faster. */
static const char *bound_sentence(int bound) {
    switch (bound) {
    case PLAN_BOUND_KERNEL:
        return "the kernels' arithmetic per weight, not memory: a smaller type of the same kernel family (K-quants, "
               "IQ-quants, Q4_0...Q8_0) decodes no faster";
    case PLAN_BOUND_FIXED:
        return "per-token fixed costs (kernel launches, synchronization): a smaller quantization hardly decodes faster";
    case PLAN_BOUND_STORAGE: return "reading the paged weights from storage: what fits in RAM decodes far faster";
    default: return "memory bandwidth: a smaller quantization decodes faster";
    }
}

static bool has_tg(const plan_choice_row *q) { return q->where != PLAN_ON_NONE && q->has_speed; }

/* Under the table, the rows whose decode memory does not bound, grouped by what does. */
static void bound_notes(FILE *out, const plan_choice *c) {
    int n_speed = 0;
    for (int i = 0; i < c->n_row; i++) n_speed += has_tg(&c->row[i]);
    for (int b = PLAN_BOUND_KERNEL; b <= PLAN_BOUND_STORAGE; b++) {
        char list[PLAN_CHOICE_MAX * 18] = "";
        size_t used = 0;
        int n_bound = 0;
        for (int i = 0; i < c->n_row; i++) {
            const plan_choice_row *q = &c->row[i];
            if (!has_tg(q) || q->speed.tg_bound != b) continue;
            n_bound++;
            int n = snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", q->quant);
            if (n > 0) used = (size_t)n < sizeof list - used ? used + (size_t)n : sizeof list - 1;
        }
        if (n_bound) fprintf(out, "tg128 of %s is bound by %s\n", n_bound == n_speed ? "every quantization" : list,
                             bound_sentence(b));
    }
}

static void quant_row(FILE *out, const plan_choice *c, int i) {
    const plan_choice_row *q = &c->row[i];
    char size[24], ngl[16] = "-", ppl[16] = "?", kld[16] = "?";
    if (q->where != PLAN_ON_NONE && q->where != PLAN_ON_CPU)
        snprintf(ngl, sizeof ngl, "%d", q->params.n_gpu_layers == PLAN_NGL_ALL ? PLAN_NGL_ALL_FLAG
                                                                                : q->params.n_gpu_layers);
    if (q->ppl_pct >= 0) snprintf(ppl, sizeof ppl, "%.2f", q->ppl_pct);
    if (q->kld >= 0) snprintf(kld, sizeof kld, "%.4f", q->kld);
    fprintf(out, "%-10s %10s  %-20s %5s ", q->quant, fc_fmt_bytes(q->file_bytes, size, sizeof size),
            plan_where_name(q->where), ngl);
    if (q->where == PLAN_ON_NONE) fprintf(out, "%9s %8s %9s", "-", "-", "-");
    else if (!q->has_speed) fprintf(out, "%9s %8s %9s", "?", "?", "?");
    else fprintf(out, "%9.0f %8.1f %9.1f", q->speed.pp512, q->speed.tg128, q->speed.tg_depth);
    fprintf(out, " %8s %8s  %s%s\n", ppl, kld, i == c->best ? "<- " : "", fc_safe(q->why));
}

static void choice_text(FILE *out, const plan_result *r) {
    const plan_choice *c = r->choice;
    fprintf(out, "\nevery quantization at context %u (speed as llama.cpp; quality: perplexity increase vs F16, "
                 "KL divergence)\n", c->n_ctx);
    fprintf(out, "%-10s %10s  %-20s %5s %9s %8s %9s %8s %8s  %s\n", "quant", "file", "fits", "ngl", "pp512", "tg128",
            "tg@ctx", "PPL +%", "KLD", "why");
    for (int i = 0; i < c->n_row; i++) quant_row(out, c, i);
    bound_notes(out, c);
    if (c->quality_note[0]) fprintf(out, "quality: %s\n", fc_safe(c->quality_note));
    if (c->best < 0) {
        fprintf(out, "\nrecommended  nothing: %s\n", fc_safe(c->reason));
        return;
    }
    fprintf(out, "\nrecommended  %s at context %u: %s\n  llama.cpp  %s\n  ollama     %s\n", c->row[c->best].quant,
            c->n_ctx, fc_safe(c->reason), fc_safe(r->rec_llama), fc_safe(r->rec_ollama));
    if (!r->rec_file_exists)
        fprintf(out, "  file       %s is not here yet: download it, or make it with llama-quantize\n", fc_safe(r->rec_file));
}

static void sweep_text(FILE *out, const plan_result *r) {
    fprintf(out, "\ncontext sweep (llama-bench -d DEPTH)\n%8s %10s %10s\n", "depth", "pp512", "tg128");
    for (int i = 0; i < r->n_sweep; i++)
        fprintf(out, "%8u %10.0f %10.1f\n", r->sweep[i].depth, r->sweep[i].pp_depth, r->sweep[i].tg_depth);
}

void rep_plan_text(FILE *out, const plan_result *r) {
    memory_text(out, r);
    if (!r->has_speed) {
        fprintf(out, "speed     not predicted: %s\n", fc_safe(r->speed_note));
    } else {
        fprintf(out,
                "speed     pp512 %.0f t/s, tg128 %.1f t/s; with %u tokens in context: pp512 %.0f t/s, tg128 %.1f t/s\n",
                r->speed.pp512, r->speed.tg128, r->speed.depth, r->speed.pp_depth, r->speed.tg_depth);
        fprintf(out, "bound     tg128 is bound by %s\n", bound_sentence(r->speed.tg_bound));
        if (r->speed.dec_threads)
            fprintf(out,
                    "threads   llama.cpp's %d threads (a thread per core) meet at a barrier per graph node: with -t %d, "
                    "and -tb at every core for prompts, tg128 would decode at %.1f t/s\n",
                    r->speed.threads, r->speed.dec_threads, r->speed.tg128_dec_threads);
        char acc[REP_ACCURACY_LEN];
        rep_accuracy_sentence(&r->accuracy, acc, sizeof acc);
        if (acc[0]) fprintf(out, "accuracy  %s\n", acc);
        fprintf(out, "command   %s\n", fc_safe(r->llama_cmd));
        if (r->has_spec) spec_text(out, r);
    }
    if (r->choice) choice_text(out, r);
    if (r->n_sweep) sweep_text(out, r);
}

void rep_rank_text(FILE *out, const plan_result *r, const plan_rank *rk, double min_tps) {
    const model_ftype_info *ft = model_ftype_by_id(r->model->hp.file_type);
    fprintf(out, "%s %s at context %u on every catalog device (one device each; GPUs with this machine's RAM);\n"
                 "devices decoding at least %g t/s first\n",
            fc_safe(r->model->source), ft ? ft->name : "", r->params.n_ctx, min_tps);
    if (plan_build_old(r->params.llama_build))
        fprintf(out, "speeds of llama.cpp b%u, a build before July 2024 (b%d): at each backend's era factors where "
                     "published results of such builds measured it, else a current build's ('--hw DEVICE' says which)\n",
                r->params.llama_build, PLAN_CURRENT_ERA_BUILD);
    fprintf(out, "%4s %-31s %8s %7s  %-7s %-20s %5s %9s %8s %9s %9s\n", "rank", "device", "memory", "price", "backend",
            "fits", "ngl", "pp512", "tg128", "tg@ctx", "t/s/k$");
    bool any_caveat = false, any_unmeasured = false;
    for (size_t i = 0; i < rk->n; i++) {
        const plan_rank_row *x = &rk->row[i];
        char ngl[16] = "-", price[16] = "-", per[16] = "-", id[sizeof x->id + 2];
        bool unmeasured = x->where != PLAN_ON_NONE && x->accuracy.unmeasured;
        snprintf(id, sizeof id, "%s%s", x->id, unmeasured ? " ~" : "");
        any_unmeasured |= unmeasured;
        if (x->where == PLAN_ON_SPLIT) snprintf(ngl, sizeof ngl, "%d", x->params.n_gpu_layers);
        if (x->price_usd > 0) snprintf(price, sizeof price, "$%.0f", x->price_usd);
        if (x->price_usd > 0 && x->where != PLAN_ON_NONE)
            snprintf(per, sizeof per, "%.1f", x->speed.tg128 / (x->price_usd / 1000));
        fprintf(out, "%4zu %-31s %6.0f G %7s  %-7s %-20s", i + 1, id, x->mem_gib, price, plan_backend_name(x->backend),
                plan_where_name(x->where));
        if (x->where != PLAN_ON_NONE)
            fprintf(out, " %5s %8.0f%c %8.1f %9.1f %9s%s", ngl, x->speed.pp512, x->prefill_unvalidated ? '*' : ' ',
                    x->speed.tg128, x->speed.tg_depth, per, x->below_floor ? "  below the floor" : "");
        fputc('\n', out);
        any_caveat |= x->where != PLAN_ON_NONE && x->prefill_unvalidated;
    }
    fprintf(out, "prices: launch list prices in US dollars where published ('fitcheck hw --json' cites each)\n");
    if (any_caveat)
        fprintf(out, "*: likely too high: a data-center CUDA card's CUDA cores, which unpack quantized weights, run far "
                     "below the share of the cards the model was fitted on (docs/speed-model.md)\n");
    if (any_unmeasured)
        fprintf(out, "~: no published result measures its chip generation: expect the error of a whole device family "
                     "held out (below)\n");
    /* the ranking's speeds are llama.cpp's default threads, as its command runs; fewer can decode faster */
    const char *sep = "threads: llama.cpp's default of a thread per core meets at a barrier per graph node; fewer decode "
                      "threads would decode tg128 faster on ";
    for (size_t i = 0; i < rk->n; i++) {
        const plan_rank_row *x = &rk->row[i];
        if (x->where == PLAN_ON_NONE || !x->speed.dec_threads) continue;
        fprintf(out, "%s%s (%.1f t/s with -t %d)", sep, x->id, x->speed.tg128_dec_threads, x->speed.dec_threads);
        sep = ", ";
    }
    if (sep[0] == ',') fprintf(out, "\n");
    plan_accuracy *acc = malloc(sizeof *acc * (rk->n + 1));
    size_t n_acc = 0;
    for (size_t i = 0; acc && i < rk->n; i++)
        if (rk->row[i].where != PLAN_ON_NONE) acc[n_acc++] = rk->row[i].accuracy;
    if (acc) rep_accuracy_line(out, acc, n_acc);
    free(acc);
}

void rep_fits_head(FILE *out, const plan_result *r) {
    char fb[24];
    fprintf(out, "fitcheck: which catalog models fit, and how fast, on %s\n", fc_safe(r->hw.label));
    fprintf(out, "free RAM %s; context %u, KV %s, flash attention %s; speeds as llama.cpp would run them;\n"
                 "recommended: the best quality decoding at least %g t/s ('fitcheck plan NAME --min-tps X' to change).\n"
                 "'fitcheck plan NAME' shows every quantization and the memory breakdown.\n\n",
            fc_fmt_bytes(r->hw.host.mem_free, fb, sizeof fb), r->params.n_ctx, ggml_type_get(r->params.type_k)->name,
            r->params.flash_attn ? "on" : "off", r->choice ? r->choice->min_tps : 0);
    fprintf(out, "%-18s %9s  %-9s %10s  %-12s %6s %8s %8s\n", "model", "params", "quant", "file", "runs on", "ctx",
            "pp512", "tg128");
}

void rep_fits_row(FILE *out, const char *name, double params_b, const plan_result *r) {
    fprintf(out, "%-18s %7.1f B  ", name, params_b);
    const plan_choice *c = r->choice;
    if (!c) {
        fprintf(out, "speed not predicted: %s\n", fc_safe(r->speed_note));
        return;
    }
    if (c->best < 0 && c->fastest >= 0) {
        /* It fits, but nothing it may choose decodes at the floor: say how fast it would be. */
        fprintf(out, "too slow here: the fastest, %s, decodes %.1f t/s < %g\n", c->row[c->fastest].quant,
                c->row[c->fastest].speed.tg128, c->min_tps);
        return;
    }
    if (c->best < 0) {
        fprintf(out, "%s\n", fc_safe(c->reason));
        return;
    }
    const plan_choice_row *q = &c->row[c->best];
    char fb[24];
    fprintf(out, "%-9s %10s  %-12s %6u %8.1f %8.1f\n", q->quant, fc_fmt_bytes(q->file_bytes, fb, sizeof fb),
            plan_where_name(q->where), c->n_ctx, q->speed.pp512, q->speed.tg128);
}

void rep_fits_tail(FILE *out, int n_fit, int n_models, const plan_result *r, const plan_accuracy *acc, size_t n_acc) {
    fprintf(out, "\n%d of %d catalog models have a recommendation here. Free memory: %s.\n", n_fit, n_models,
            fc_safe(r->hw.host.source));
    rep_accuracy_line(out, acc, n_acc);
}

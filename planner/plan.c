/* plan_make: one request -> one result that every verb renders.
 *
 *   request (model, hardware, flags)
 *     -> memory of the requested placement            (memory.c)
 *     -> its speed, and against depth when asked      (speed*.c)
 *     -> every quantization and the recommendation    (choose.c)
 *     -> the commands for both                        (command.c)
 *
 * Nothing here prints: reports/ renders the result as text, JSON, tables or
 * HTML, so two verbs never disagree about the same plan. */
#include "planner/planner.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int32_t plan_ngl_count(const plan_params *p, const model_hparams *hp) {
    return p->n_gpu_layers == PLAN_NGL_ALL ? (int32_t)hp->n_layer + 1 : p->n_gpu_layers;
}

uint32_t plan_full_depth(const plan_params *p) { return p->n_ctx > PLAN_TEST_TG ? p->n_ctx - PLAN_TEST_TG : 0; }

static void note_add(plan_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note_add(plan_result *r, const char *fmt, ...) {
    if (r->n_note >= PLAN_NOTES_MAX) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->note[r->n_note++], PLAN_NOTE_LEN, fmt, ap);
    va_end(ap);
}

/* What the hardware cannot take is the user's to fix: FC_EINPUT. */
static int request_check(const plan_request *rq, fc_err *err) {
    const plan_params *p = &rq->params;
    if (p->n_tensor_split > (uint32_t)rq->hw->n_gpu)
        return fc_err_set(err, FC_EINPUT, "--tensor-split gives %u values for %d GPU%s (%s)", p->n_tensor_split,
                          rq->hw->n_gpu, rq->hw->n_gpu == 1 ? "" : "s", rq->hw->label);
    return FC_OK;
}

int plan_hw_use_backend(plan_hw *hw, int backend, bool cpu_way_out, fc_err *err) {
    if (backend < 0 || backend >= PLAN_BACKEND_COUNT) return fc_err_set(err, FC_EINPUT, "backend %d unknown", backend);
    const char *name = plan_backend_name(backend);
    if (backend != PLAN_CPU && !hw->n_gpu)
        return fc_err_set(err, FC_EINPUT, "--backend %s: no GPU to run it on (%s); --backend cpu plans the CPU", name,
                          hw->label[0] ? hw->label : "this machine");
    for (int g = 0; g < hw->n_gpu; g++) {
        unsigned can = hw->gpu[g].backends;
        if (backend == PLAN_CPU || !can || (can & (1u << backend))) continue;
        unsigned gpu_only = can & ~(1u << PLAN_CPU);
        char list[96] = ""; /* at most the five GPU backends' names */
        size_t used = 0;
        for (int b = 0, k = 0, n = __builtin_popcount(gpu_only); b < PLAN_BACKEND_COUNT; b++) {
            if (!(gpu_only & (1u << b))) continue;
            const char *sep = k == 0 ? "" : k == n - 1 ? " or " : ", ";
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", sep, plan_backend_name(b));
            k++;
        }
        return fc_err_set(err, FC_EINPUT, "--backend %s: llama.cpp cannot run %s on the %s; it runs %s there%s", name,
                          name, hw->gpu[g].name, list, cpu_way_out ? " (or --backend cpu)" : "");
    }
    for (int g = 0; g < hw->n_gpu; g++) hw->gpu[g].backend = backend;
    return FC_OK;
}

/* pp512/tg128 at llama-bench's depths 0, 512, 1024, ... up to the context. */
static int sweep_fill(const plan_request *rq, plan_result *r, const plan_efficiency *e, fc_err *err) {
    for (uint32_t d = 0; r->n_sweep < PLAN_SWEEP_MAX && d <= r->params.n_ctx; d = d ? d * 2 : 512) {
        int rc = plan_speed_predict(rq->model, &r->hw, &r->mem, &r->params, e, d, &r->sweep[r->n_sweep], err);
        if (rc) return rc;
        r->n_sweep++;
    }
    return FC_OK;
}

static void commands_fill(const plan_request *rq, plan_result *r) {
    const model_ftype_info *ft = model_ftype_by_id(rq->model->hp.file_type);
    char ollama[256];
    uint32_t layers[PLAN_MAX_DEVICES];
    for (int g = 0; g < r->hw.n_gpu; g++) layers[g] = r->mem.gpu[g].n_layers;
    plan_model_file(rq->model, rq->model_spec, ft ? ft->name : "", r->file, sizeof r->file, &r->file_exists);
    plan_command_line(&r->params, layers, r->hw.n_gpu, &r->hw.host, r->has_speed ? r->speed.numa : PLAN_NUMA_ONE,
                      r->file, r->llama_cmd, sizeof r->llama_cmd, ollama, sizeof ollama);
    const plan_choice *c = r->choice;
    if (!c || c->best < 0) return;
    const plan_choice_row *b = &c->row[c->best];
    plan_params p = b->params;
    p.n_ctx = c->n_ctx;
    plan_model_file(rq->model, rq->model_spec, b->quant, r->rec_file, sizeof r->rec_file, &r->rec_file_exists);
    plan_command_line(&p, b->gpu_layers, b->n_gpu, &r->hw.host, b->has_speed ? b->speed.numa : PLAN_NUMA_ONE,
                      r->rec_file, r->rec_llama, sizeof r->rec_llama, r->rec_ollama, sizeof r->rec_ollama);
}

/* llama-bench's tests on the requested placement, as llama-bench would report them. Each
 * runs at the context llama-bench gives it, n_prompt + n_gen + n_depth (tools/llama-bench,
 * its cparams.n_ctx), not --ctx: pp512 at depth 65536 needs the KV cache of 66048 cells,
 * which may not fit where --ctx 4096 does (and tg128 may fit where --ctx does not). A
 * test that does not fit has no speed (bench_tps 0): llama-bench would fail to load it. */
static int bench_fill(const plan_request *rq, plan_result *r, const plan_efficiency *e, fc_err *err) {
    if (rq->n_bench < 0 || rq->n_bench > PLAN_BENCH_MAX)
        return fc_err_set(err, FC_EINPUT, "--bench: %d tests (at most %d)", rq->n_bench, PLAN_BENCH_MAX);
    plan_memory *mem = fc_malloc(sizeof *mem, err);
    plan_speed_setup *s = mem ? fc_malloc(sizeof *s, err) : NULL;
    int rc = s ? FC_OK : FC_ERUNTIME;
    for (int i = 0; !rc && i < rq->n_bench; i++) {
        const plan_bench_test *t = &rq->bench[i];
        plan_params q = r->params;
        q.n_ctx = (uint32_t)(t->n_prompt + t->n_gen + t->n_depth);
        r->bench[i] = *t;
        r->bench_ctx[i] = q.n_ctx;
        r->bench_tps[i] = 0;
        r->n_bench++;
        if ((rc = plan_memory_compute(mem, rq->model, &r->hw, &q, err)) || mem->verdict == PLAN_NO_FIT ||
            (rc = plan_speed_from_plan(s, rq->model, &r->hw, mem, &q, err)))
            continue;
        plan_speed_result paged;
        plan_speed_paged_read(s, &r->hw, mem, &paged);
        r->bench_tps[i] = plan_speed_paged_tps(&paged, mem, q.n_ubatch, t->n_prompt, t->n_gen, plan_bench_predict(s, e, t));
    }
    free(s);
    free(mem);
    return rc;
}

/* Several hosts: the cluster's own plan (planner/cluster_plan.c). */
static int cluster_fill(const plan_request *rq, plan_result *r, fc_err *err) {
    r->params = rq->params;
    if (!(r->cluster = fc_malloc(sizeof *r->cluster, err))) return FC_ERUNTIME;
    int rc = plan_cluster_make(rq, r->cluster, err);
    if (!rc && rq->n_bench > 0 && (rc = plan_cluster_bench(r->cluster, rq, r, err))) plan_cluster_plan_free(r->cluster);
    if (rc) {
        free(r->cluster);
        r->cluster = NULL;
    }
    return rc;
}

/* What a named llama.cpp build from before PLAN_CURRENT_ERA_BUILD changes
 * (plan --llama-build), on the device that runs most of the plan
 * (plan_main_device, whose constants r->accuracy.set names), and how many
 * published results of such builds its era factors rest on: none, and the
 * prediction is a current build's. */
static void build_note(plan_result *r, const plan_efficiency *e) {
    uint32_t b = r->params.llama_build;
    if (!plan_build_old(b)) return;
    const plan_device *dev = plan_main_device(&r->hw, &r->mem);
    int be = dev == &r->hw.host ? PLAN_CPU : dev->backend, n_src;
    int rows = plan_corpus_old_rows(be, &n_src);
    if (!rows) {
        note_add(r, "speed: llama.cpp b%u predates July 2024 (b%d), and no published result measures %s on a build "
                 "that old: predicted as a current build", b, PLAN_CURRENT_ERA_BUILD, plan_backend_name(be));
        return;
    }
    const double *k = e->set[r->accuracy.set][PLAN_ENG_LLAMACPP].scalar;
    note_add(r, "speed: llama.cpp b%u predates July 2024 (b%d): %s prefilled quantized weights at %.2fx and paid "
             "%.2fx the fixed decode costs of a current build (fitted to %d results of such builds, %d sources); "
             "memory as a current build's", b, PLAN_CURRENT_ERA_BUILD, plan_backend_name(be), k[PLAN_EFF_ERA_PP],
             1.0 / k[PLAN_EFF_ERA_DEC], rows, n_src);
}

int plan_make(const plan_request *rq, plan_result *r, fc_err *err) {
    memset(r, 0, sizeof *r);
    r->model = rq->model;
    if (rq->cluster) return cluster_fill(rq, r, err);
    r->hw = *rq->hw;
    r->params = rq->params;
    if (rq->set_backend) {
        int rc = plan_hw_use_backend(&r->hw, rq->backend, true, err);
        if (rc) return rc;
        if (rq->backend == PLAN_CPU) r->params.n_gpu_layers = 0; /* the CPU backend: no layers on the GPUs */
    }
    int rc = request_check(rq, err);
    if (!rc) rc = plan_memory_compute(&r->mem, rq->model, &r->hw, &r->params, err);
    if (rc) return rc;
    for (int i = 0; i < r->mem.n_note; i++) note_add(r, "%s", r->mem.note[i]);
    /* fewer layers on the GPUs only helps where there are GPUs */
    if (r->mem.verdict == PLAN_NO_FIT)
        snprintf(r->verdict_advice, sizeof r->verdict_advice, "try a smaller --quant, a shorter --ctx, --kv q8_0%s",
                 r->hw.n_gpu ? " or fewer --ngl" : "");
    if (r->params.n_ctx > rq->model->hp.n_ctx_train && rq->model->hp.n_ctx_train)
        note_add(r, "context %u is beyond the %u tokens the model was trained on: quality past that is not assured",
                 r->params.n_ctx, rq->model->hp.n_ctx_train);

    plan_efficiency *own_eff;
    const plan_efficiency *e;
    if ((rc = plan_efficiency_resolve(rq->eff, &own_eff, &e, err))) goto out;
    /* No speed is not fatal: a machine without a measured bandwidth still
     * gets its memory plan, and speed_note says why. A placement that does
     * not fit has no speed: it would not run. */
    fc_err serr = {0};
    if (r->mem.verdict == PLAN_NO_FIT)
        snprintf(r->speed_note, sizeof r->speed_note, "the requested placement does not fit, so it has no speed");
    else if (plan_speed_predict(rq->model, &r->hw, &r->mem, &r->params, e, plan_full_depth(&r->params), &r->speed,
                                &serr) == FC_OK)
        r->has_speed = true;
    else
        snprintf(r->speed_note, sizeof r->speed_note, "%s", serr.msg);
    if (r->has_speed && (rc = plan_accuracy_of_plan(&r->hw, &r->mem, rq->model, &r->params, &r->accuracy, err)))
        goto out;
    if (r->has_speed && r->speed.numa != PLAN_NUMA_ONE) {
        char line[PLAN_NOTE_LEN];
        plan_numa_note(&r->hw.host, &r->mem.host, r->speed.numa, line, sizeof line);
        note_add(r, "%s", line);
    }
    if (r->has_speed && r->params.extras && r->params.extras->draft) {
        fc_err sp = {0};
        if (plan_spec_predict(rq->model, &r->hw, &r->mem, &r->params, e, &r->spec, &sp) == FC_OK) r->has_spec = true;
        else note_add(r, "speculative decoding: no speed-up predicted: %s", sp.msg);
    }
    for (int g = 0; g < r->hw.n_gpu; g++) {
        uint32_t n = r->wired_limit_mb[g] = plan_wired_limit_mb(&r->hw, &r->mem, g);
        uint32_t need = (uint32_t)((r->mem.gpu[g].total + (1u << 20) - 1) >> 20);
        if (n)
            note_add(r, "%s fits with a higher GPU wired limit: sudo sysctl iogpu.wired_limit_mb=%u (the GPU needs "
                     "%u MiB, plus %u MiB so it is not tight; RAM keeps %llu GiB for macOS and the host part of the "
                     "plan beside it; the setting lasts until reboot)", r->hw.gpu[g].id, n, need, n - need,
                     (unsigned long long)(PLAN_MACOS_RESERVE >> 30));
    }
    if (r->has_speed && r->speed.paged_bytes > 0) {
        char b[24];
        note_add(r, "speed: each token waits for %s of weights read again from storage at %.1f GB/s (%s)",
                 fc_fmt_bytes((uint64_t)r->speed.paged_bytes, b, sizeof b), r->speed.storage_gbs,
                 r->speed.storage_assumed ? "assumed: no measured disk, 'fitcheck probe' measures it"
                                          : "the probe's sequential read");
    }
    if (r->has_speed) build_note(r, e);
    for (int g = 0; r->has_speed && g < r->hw.n_gpu; g++) {
        double share;
        if (plan_prefill_unvalidated(&r->hw.gpu[g], &share))
            note_add(r, "speed: prefill on %s is likely too high: its CUDA cores run %.0f%% of its tensor rate, the cards "
                     "the CUDA constants were fitted on %.0f%%, and a published A100 and H100 prefilled at ~0.4x of this "
                     "model (docs/speed-model.md)", r->hw.gpu[g].id, 100 * share, 100 * PLAN_CUDA_CORE_SHARE_FITTED);
    }
    if (r->has_speed && (rq->want & PLAN_WANT_SWEEP) && (rc = sweep_fill(rq, r, e, err))) goto out;
    /* each test has its own context: one may fit where the requested placement does not */
    if (rq->n_bench > 0 && (r->has_speed || r->mem.verdict == PLAN_NO_FIT) && (rc = bench_fill(rq, r, e, err))) goto out;
    if (rq->want & PLAN_WANT_CHOICE) {
        r->choice = calloc(1, sizeof *r->choice);
        if (!r->choice) rc = fc_err_set(err, FC_ERUNTIME, "out of memory");
        else rc = plan_choose(r->choice, rq->model, &r->hw, &r->params, rq->min_tps, e, err);
        if (rc) goto out;
    }
    commands_fill(rq, r);
out:
    free(own_eff);
    if (rc) plan_result_free(r);
    return rc;
}

void plan_result_free(plan_result *r) {
    free(r->choice);
    r->choice = NULL;
    if (r->cluster) plan_cluster_plan_free(r->cluster);
    free(r->cluster);
    r->cluster = NULL;
}

/* What llama-server loads next to the model, per device: a vision projector
 * (--mmproj), LoRA adapters (--lora) and a draft model (-md), and the speed a
 * draft gives. docs/planner-memory.md ("Next to the model") has the
 * derivations and the llama.cpp logs each figure was checked against; source
 * references are to llama.cpp as in ~/.cache/fitcheck/llama.cpp. */
#include "planner/planner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define F32_BYTES 4
#define MIB (1ull << 20)

/* ---- the vision projector ---------------------------------------------------
 * clip.cpp (clip_ctx) runs the projector on one backend: the first GPU
 * (ggml_backend_init_by_type(GPU)) unless --no-mmproj-offload, else the CPU;
 * its weights are read into that backend's buffer (not mapped: "model size"
 * in its log) and its compute buffer is reserved for one image of
 * image_size (reserve_compute_meta, warmup). The ViT's peak is the bigger of
 * two phases, in f32 rows of n_embd per position:
 *   FFN: the up-projection (n_ff wide) next to the block input, the residual
 *        and the normed input (3 rows);
 *   attention: without flash attention the scores [positions^2 x heads]
 *        beside 6 rows (Q, K, V, the input and what the allocator keeps
 *        around them); with it Q, K, V, the input and the output (5 rows).
 * Checked with llama.cpp's reserve_compute_meta on the CPU: SmolVLM-256M
 * (1024 positions, 768 wide, 12 heads, n_ff 3072) 21.00 MiB with flash
 * attention (ours 21.00), 60.00 without (ours 66.00); Gemma 3 4B (4096
 * positions, 1152 wide, 16 heads, n_ff 4304) 121.25 (121.25) and 1132.00
 * (1132.00). 6 rows is the fewest that never under-counts either. */
#define VIT_FFN_ROWS 3
#define VIT_ATTN_ROWS 6
#define VIT_ATTN_FA_ROWS 5

uint64_t plan_mmproj_compute(const model_mmproj *mm, bool flash_attn, uint32_t *positions) {
    uint64_t side = mm->patch_size ? mm->image_size / mm->patch_size : 0;
    uint64_t n = side * side + (mm->class_token ? 1 : 0);
    if (positions) *positions = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
    uint64_t row = n * mm->n_embd * F32_BYTES;
    uint64_t ffn = n * mm->n_ff * F32_BYTES + VIT_FFN_ROWS * row;
    uint64_t attn = flash_attn ? VIT_ATTN_FA_ROWS * row : n * n * mm->n_head * F32_BYTES + VIT_ATTN_ROWS * row;
    return ffn > attn ? ffn : attn;
}

static plan_dev_mem *dev_of(plan_memory *m, int dev) { return dev < 0 ? &m->host : &m->gpu[dev]; }

void plan_draft_params(const plan_params *p, plan_params *dp) {
    *dp = *p;
    dp->extras = NULL;
    dp->n_gpu_layers = p->extras ? p->extras->draft_ngl : PLAN_NGL_ALL;
    dp->type_k = dp->type_v = GGML_TYPE_F16;
    dp->exps_on_host = false;
    dp->n_cpu_moe = 0;
    dp->n_outputs_max = p->n_parallel;
}

/* The draft is a second llama_model and llama_context in the same process:
 * its own weights, KV cache, compute and output buffers on its devices; the
 * backends (and their fixed overhead) are the target's. */
static int draft_memory(plan_memory *m, const plan_hw *hw, const plan_params *p, fc_err *err) {
    const plan_extras *x = p->extras;
    plan_params dp;
    plan_draft_params(p, &dp);
    plan_memory *dm = fc_calloc(1, sizeof *dm, err);
    if (!dm) return FC_ERUNTIME;
    int rc = plan_memory_base(dm, x->draft, hw, &dp, err);
    if (rc) {
        free(dm);
        return fc_err_set(err, rc, "draft model %s: %s", fc_safe(x->draft->source), err->msg);
    }
    for (int g = -1; g < hw->n_gpu; g++) {
        const plan_dev_mem *s = g < 0 ? &dm->host : &dm->gpu[g];
        plan_dev_mem *t = dev_of(m, g);
        t->draft += s->weights + s->kv + s->compute + s->output;
        t->mapped += s->mapped;
        t->pinned += s->pinned;
    }
    free(dm);
    return FC_OK;
}

int plan_extras_memory(plan_memory *m, const model_desc *d, const plan_hw *hw, const plan_params *p, fc_err *err) {
    const plan_extras *x = p->extras;
    if (x->mmproj) {
        m->mmproj_dev = hw->n_gpu > 0 && !x->mmproj_on_cpu ? 0 : -1;
        m->mmproj_compute = plan_mmproj_compute(x->mmproj, p->flash_attn, &m->mmproj_positions);
        dev_of(m, m->mmproj_dev)->mmproj += x->mmproj->weight_bytes + m->mmproj_compute;
    }
    /* LoRA tensors go to the buffer type of the tensor they adapt
     * (llama_adapter_lora_init_impl: ctx_for_buft(model_tensor->buffer)),
     * the CPU's when that is a repack type; token_embd is the host's. */
    for (int i = 0; i < x->n_lora; i++) {
        const model_lora *l = x->lora[i];
        for (uint32_t il = 0; il < d->hp.n_layer && il < MODEL_MAX_LAYERS; il++)
            if (l->layer_bytes[il]) dev_of(m, plan_memory_layer_device(m, il))->lora += l->layer_bytes[il];
        m->host.lora += l->embd_bytes;
        dev_of(m, plan_memory_output_device(m))->lora += l->out_bytes;
    }
    return x->draft ? draft_memory(m, hw, p, err) : FC_OK;
}

/* ---- the draft's speed-up ------------------------------------------------ */

static const uint32_t spec_n_draft[PLAN_SPEC_N_DRAFT] = {1, 2, 3, 4, 8};
#define SPEC_ACCEPT_FIRST 0.5
#define SPEC_ACCEPT_STEP 0.1

int plan_spec_predict(const model_desc *target, const plan_hw *hw, const plan_memory *mem, const plan_params *p,
                      const plan_efficiency *e, plan_spec *out, fc_err *err) {
    memset(out, 0, sizeof *out);
    if (!p->extras || !p->extras->draft) return fc_err_set(err, FC_EINPUT, "no draft model");
    const model_desc *draft = p->extras->draft;
    plan_params dp;
    plan_draft_params(p, &dp);
    plan_memory *dm = fc_calloc(1, sizeof *dm, err);
    plan_speed_setup *s = fc_calloc(1, sizeof *s, err);
    int rc = dm && s ? FC_OK : FC_ERUNTIME;
    plan_speed_result ts = {0}, ds = {0};
    if (!rc) rc = plan_memory_base(dm, draft, hw, &dp, err);
    if (!rc) rc = plan_speed_predict(draft, hw, dm, &dp, e, 0, &ds, err);
    if (!rc) rc = plan_speed_predict(target, hw, mem, p, e, 0, &ts, err);
    if (!rc) rc = plan_speed_from_plan(s, target, hw, mem, p, err);
    if (!rc && (!(ts.tg128 > 0) || !(ds.tg128 > 0)))
        rc = fc_err_set(err, FC_EINPUT, "no decode speed for the target or the draft");
    if (!rc) {
        out->target_s = 1.0 / ts.tg128;
        out->draft_s = 1.0 / ds.tg128;
        /* The verification is one llama_decode like a decoded token's, with
         * its fixed costs (graph, sampling, launches), plus what k more
         * tokens add: the batched cost of k+1 tokens less that of one. */
        double one = plan_speed_pp_tps(s, e, 1, 0);
        for (int k = 0; k < PLAN_SPEC_N_DRAFT; k++) {
            uint32_t n = spec_n_draft[k] + 1;
            double tps = plan_speed_pp_tps(s, e, (int)n, 0);
            double extra = tps > 0 && one > 0 ? n / tps - 1.0 / one : out->target_s * (n - 1);
            out->n_draft[k] = spec_n_draft[k];
            out->verify_s[k] = out->target_s + (extra > 0 ? extra : 0);
        }
        for (int a = 0; a < PLAN_SPEC_N_ACCEPT; a++) {
            double acc = SPEC_ACCEPT_FIRST + SPEC_ACCEPT_STEP * a;
            out->accept[a] = acc;
            for (int k = 0; k < PLAN_SPEC_N_DRAFT; k++) {
                double kk = out->n_draft[k];
                double tokens = (1.0 - pow(acc, kk + 1)) / (1.0 - acc); /* Leviathan et al. 2023, eq. 1 */
                double step = kk * out->draft_s + out->verify_s[k];
                out->tps[a][k] = tokens / step;
                out->speedup[a][k] = out->tps[a][k] * out->target_s;
            }
        }
    }
    free(dm);
    free(s);
    return rc;
}

/* ---- Apple's wired limit ------------------------------------------------- */

uint32_t plan_wired_limit_mb(const plan_hw *hw, const plan_memory *m, int gpu) {
    const plan_device *g = &hw->gpu[gpu];
    const plan_dev_mem *dm = &m->gpu[gpu];
    if (!g->unified || g->backend != PLAN_METAL || g->rpc || dm->verdict != PLAN_NO_FIT) return 0;
    uint64_t ram = hw->host.mem_total;
    uint64_t need = dm->total + PLAN_TIGHT_MARGIN_MAX; /* "fits", not "tight" */
    uint64_t host_resident = m->host.anon;
    if (ram <= PLAN_MACOS_RESERVE + host_resident || need > ram - PLAN_MACOS_RESERVE - host_resident) return 0;
    uint64_t mb = (need + MIB - 1) / MIB;
    return mb > UINT32_MAX ? 0 : (uint32_t)mb;
}

/* Where a model fits on given hardware, fastest placement first: all on the
 * GPUs; MoE experts of the fewest layers in RAM; the most layers the GPUs
 * hold (each card within its own VRAM); the CPU. */
#include "planner/planner.h"

/* A placement counts when it fits without paging: "fits, pages from disk"
 * re-reads the weights from storage every token (mapped pages evicted), so
 * its speed is the disk's, not the memory's — never a placement to offer. */
static bool fits(const plan_memory *m) { return m->verdict == PLAN_FITS || m->verdict == PLAN_TIGHT; }

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

bool plan_model_moe(const model_desc *d) { return d->hp.n_expert > 1; }

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
        if (plan_model_moe(d) && fewest_cpu_moe(d, hw, p, m)) return PLAN_ON_GPU_EXPS_CPU;
        if (best_partial(d, hw, p, m)) return PLAN_ON_SPLIT;
    }
    p->n_gpu_layers = 0;
    if (try_place(d, hw, p, m)) return PLAN_ON_CPU;
    return PLAN_ON_NONE;
}


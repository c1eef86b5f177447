/* Fuzz target: the Hugging Face config.json reader (model/config_json.c) and
 * the hyperparameter checks every source goes through. */
#include "fuzz/fuzz.h"
#include "model/model.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* The hyperparameter struct holds per-layer tables (~10 KiB): heap, not stack. */
    model_hparams *hp = malloc(sizeof *hp);
    if (!hp) return 0;
    fc_err err = {0};
    if (model_hparams_from_config_json(hp, (const char *)data, size, "fuzz.json", &err) == FC_OK) {
        /* What plan and inspect compute from an accepted config must not overflow. */
        for (uint32_t il = 0; il < hp->n_layer && il < MODEL_MAX_LAYERS; il++) {
            (void)model_hparams_kv_k_elems(hp, il);
            (void)model_hparams_kv_v_elems(hp, il);
        }
    }
    free(hp);
    return 0;
}

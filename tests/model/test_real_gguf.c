/* The real models fetched from PyPI by scripts/fetch-models.sh: facts
 * established from the files themselves (and their model cards). */
#include "model/model.h"
#include "tests/check.h"

#include <string.h>

static int open_model(const char *file, gguf_file **f, model_desc *d) {
    const char *dir = getenv("FITCHECK_MODELS");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir ? dir : ".", file);
    fc_err err = {0};
    if (gguf_open(f, path, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    if (model_desc_from_gguf(d, *f, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        gguf_close(*f);
        return 1;
    }
    return 0;
}

int main(void) {
    if (!getenv("FITCHECK_MODELS")) {
        fprintf(stderr, "FITCHECK_MODELS not set: run scripts/fetch-models.sh (make test does)\n");
        return 77;
    }
    gguf_file *f;
    model_desc d;
    int rc = open_model("SmolLM2-135M-Instruct.Q4_1.gguf", &f, &d);
    CHECK(rc == 0);
    if (rc == 0) {
        const model_hparams *hp = &d.hp;
        CHECK(!strcmp(hp->arch, "llama"));
        CHECK(hp->n_layer == 30 && hp->n_embd == 576 && hp->n_head == 9 && hp->n_head_kv[0] == 3);
        CHECK(hp->n_vocab == 49152 && hp->n_ff[0] == 1536 && hp->head_dim_k == 64);
        CHECK(hp->tokenizer == MODEL_TOK_BPE && hp->n_ctx_train == 8192 && hp->tied_embeddings);
        CHECK(d.n_tensors == 272 && f->version == 3);
        CHECK(d.n_params == 134515008ull);
        /* KV per token at f16: 30 layers x 2 x 3 heads x 64 x 2 bytes */
        CHECK(model_hparams_kv_k_elems(hp, 0) * 2 * 2 * 30 == 23040);
        const gguf_tensor *t = gguf_find_tensor(f, "blk.0.ffn_down.weight");
        CHECK(t && t->type == GGML_TYPE_Q4_1 && t->ne[0] == 1536 && t->ne[1] == 576);
        model_desc_free(&d);
        gguf_close(f);
    }
    rc = open_model("gemma-3-270m-q4_k_m.gguf", &f, &d);
    CHECK(rc == 0);
    if (rc == 0) {
        const model_hparams *hp = &d.hp;
        CHECK(!strcmp(hp->arch, "gemma3"));
        CHECK(hp->n_layer == 18 && hp->n_embd == 640 && hp->n_head == 4 && hp->n_head_kv[0] == 1);
        CHECK(hp->head_dim_k == 256 && hp->n_vocab == 262144 && hp->sliding_window == 512);
        /* Gemma 3: five local layers, then one global */
        CHECK(hp->swa_layer[0] && hp->swa_layer[4] && !hp->swa_layer[5] && !hp->swa_layer[11] && !hp->swa_layer[17]);
        CHECK(hp->rope_type == MODEL_ROPE_NEOX && hp->qk_norm && hp->tokenizer == MODEL_TOK_SPM);
        CHECK(hp->rope_freq_base_swa == 10000.0f);
        model_desc_free(&d);
        gguf_close(f);
    }
    return check_done("test_real_gguf");
}

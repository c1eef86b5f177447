/* Files the engine must refuse with FC_EINPUT and a message naming the
 * problem: an unsupported architecture, an unsupported tensor type, a
 * missing tensor, a wrong shape. Built in memory with the GGUF writer. */
#include "engine/engine.h"
#include "tests/check.h"

#include <string.h>
#include <unistd.h>

#define N_EMBD 32
#define N_VOCAB 8

/* A one-layer llama-shaped file; `bad` selects what is wrong with it. */
enum bad { BAD_ARCH, BAD_TYPE, BAD_MISSING, BAD_SHAPE, BAD_NONE };

static int write_model(const char *path, enum bad bad) {
    static float zeros[N_EMBD * N_VOCAB * 4];
    /* One 84-byte Q2_K block per row of `big` (256 x N_EMBD); was 4 rows short
     * (global-buffer-overflow found by the ASan run, scripts/sanitize.sh). */
    static uint8_t q2k[84 * N_EMBD];
    gguf_writer *w = gguf_writer_new(32);
    const char *arch = bad == BAD_ARCH ? "mamba" : "llama";
    char key[64];
    gguf_writer_str(w, "general.architecture", arch);
#define KEY(s) (snprintf(key, sizeof key, "%s." s, arch), key)
    gguf_writer_u32(w, KEY("block_count"), 1);
    gguf_writer_u32(w, KEY("embedding_length"), N_EMBD);
    gguf_writer_u32(w, KEY("feed_forward_length"), N_EMBD);
    gguf_writer_u32(w, KEY("attention.head_count"), 2);
    gguf_writer_u32(w, KEY("context_length"), 64);
    gguf_writer_f32(w, KEY("attention.layer_norm_rms_epsilon"), 1e-5f);
#undef KEY
    fc_err err = {0};
    int64_t vec[1] = {N_EMBD}, emb[2] = {N_EMBD, N_VOCAB}, sq[2] = {N_EMBD, N_EMBD}, big[2] = {256, N_EMBD};
    gguf_writer_tensor(w, "token_embd.weight", GGML_TYPE_F32, 2, emb, zeros, &err);
    gguf_writer_tensor(w, "output_norm.weight", GGML_TYPE_F32, 1, vec, zeros, &err);
    gguf_writer_tensor(w, "blk.0.attn_norm.weight", GGML_TYPE_F32, 1, vec, zeros, &err);
    gguf_writer_tensor(w, "blk.0.ffn_norm.weight", GGML_TYPE_F32, 1, vec, zeros, &err);
    const char *mats[] = {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"};
    for (size_t i = 0; i < FC_ARRAY_LEN(mats); i++) {
        char name[64];
        snprintf(name, sizeof name, "blk.0.%s.weight", mats[i]);
        if (bad == BAD_MISSING && i == 6) continue;
        if (bad == BAD_TYPE && i == 0) gguf_writer_tensor(w, name, GGML_TYPE_Q2_K, 2, big, q2k, &err);
        else if (bad == BAD_SHAPE && i == 1) gguf_writer_tensor(w, name, GGML_TYPE_F32, 2, emb, zeros, &err);
        else gguf_writer_tensor(w, name, GGML_TYPE_F32, 2, sq, zeros, &err);
    }
    FILE *fp = fopen(path, "wb");
    int rc = fp ? gguf_writer_write(w, fp, NULL, NULL, &err) : FC_ERUNTIME;
    if (fp) fclose(fp);
    gguf_writer_free(w);
    return rc;
}

static void expect(enum bad bad, const char *needle) {
    char path[64];
    snprintf(path, sizeof path, "/tmp/fc_engine_bad_%d_%d.gguf", (int)getpid(), (int)bad);
    CHECK(write_model(path, bad) == FC_OK);
    eng_model *m = NULL;
    fc_err err = {0};
    int rc = eng_model_open(&m, path, &err);
    if (bad == BAD_NONE) {
        CHECK_MSG(rc == FC_OK, "%s", err.msg);
        eng_ctx *c = NULL;
        eng_params p = {.n_ctx = 8, .n_threads = 1};
        CHECK(rc || eng_ctx_new(&c, m, &p, &err) == FC_OK);
        const float *lg;
        int32_t toks[9] = {1, 2, 3, 4, 5, 6, 7, 0, 1};
        CHECK(!c || eng_decode(c, toks, 8, &lg, &err) == FC_OK);
        CHECK(!c || eng_decode(c, toks, 1, &lg, &err) == FC_EINPUT); /* context full */
        CHECK(!c || strstr(err.msg, "context full") != NULL);
        eng_ctx_free(c);
        eng_model_close(m);
    } else {
        CHECK_MSG(rc == FC_EINPUT && strstr(err.msg, needle), "case %d: rc %d, message '%s'", (int)bad, rc, err.msg);
    }
    unlink(path);
}

int main(void) {
    expect(BAD_ARCH, "architecture 'mamba' is not supported");
    expect(BAD_TYPE, "q2_K");
    expect(BAD_MISSING, "blk.0.ffn_down.weight is missing");
    expect(BAD_SHAPE, "blk.0.attn_k.weight has shape");
    expect(BAD_NONE, "");
    return check_done("engine_bad_input");
}

/* config.json parsing: real layouts and hostile files. */
#include "model/model.h"
#include "tests/check.h"

#include <string.h>

static int parse(const char *json, model_hparams *hp, fc_err *err) {
    memset(err, 0, sizeof *err);
    return model_hparams_from_config_json(hp, json, strlen(json), "config.json", err);
}

#define LLAMA_BASE "\"model_type\":\"llama\",\"num_hidden_layers\":2,\"num_attention_heads\":4,\"vocab_size\":100"

/* Each hostile file must be refused as bad input, and the message must name the key. */
static void check_hostile(void) {
    static const struct { const char *json, *needle; } cases[] = {
        {"{" LLAMA_BASE ",\"hidden_size\":\"4096\",\"intermediate_size\":64}", "hidden_size"},
        {"{" LLAMA_BASE ",\"hidden_size\":NaN,\"intermediate_size\":64}", "line"},
        {"{" LLAMA_BASE ",\"hidden_size\":1e300,\"intermediate_size\":64}", "hidden_size"},
        {"{" LLAMA_BASE ",\"hidden_size\":-64,\"intermediate_size\":64}", "hidden_size"},
        {"{" LLAMA_BASE ",\"hidden_size\":64.5,\"intermediate_size\":64}", "hidden_size"},
        {"{" LLAMA_BASE ",\"hidden_size\":64,\"intermediate_size\":99999999999}", "intermediate_size"},
        {"{" LLAMA_BASE ",\"hidden_size\":64}", "intermediate_size"},
        {"{" LLAMA_BASE ",\"hidden_size\":64,\"intermediate_size\":64,\"num_key_value_heads\":3}", "KV heads"},
        {"{" LLAMA_BASE ",\"hidden_size\":64,\"intermediate_size\":64,\"rope_theta\":-1}", "rope_theta"},
        {"{" LLAMA_BASE ",\"hidden_size\":64,\"intermediate_size\":64,\"tie_word_embeddings\":\"yes\"}", "tie_word_embeddings"},
        {"{\"model_type\":\"llama\",\"num_hidden_layers\":100000,\"num_attention_heads\":4,\"vocab_size\":100,"
         "\"hidden_size\":64,\"intermediate_size\":64}", "num_hidden_layers"},
        {"{\"model_type\":\"gemma3_text\",\"num_hidden_layers\":2,\"num_attention_heads\":4,\"vocab_size\":100,"
         "\"hidden_size\":64,\"intermediate_size\":64,\"sliding_window\":16,\"layer_types\":[\"sliding_attention\"]}",
         "layer_types"},
        {"{\"model_type\":\"qwen3_moe\",\"num_hidden_layers\":2,\"num_attention_heads\":4,\"vocab_size\":100,"
         "\"hidden_size\":64,\"num_experts\":8}", "num_experts_per_tok"},
        {"{\"model_type\":\"mamba\",\"hidden_size\":64}", "model_type"},
        {"[1,2,3]", "object"},
        {"{\"model_type\":\"llama\"", "line"},
        {"", "line"},
    };
    for (size_t i = 0; i < FC_ARRAY_LEN(cases); i++) {
        model_hparams hp;
        fc_err err;
        int rc = parse(cases[i].json, &hp, &err);
        CHECK_MSG(rc == FC_EINPUT, "case %zu: status %d", i, rc);
        CHECK_MSG(strstr(err.msg, cases[i].needle) != NULL, "case %zu: message '%s' lacks '%s'", i, err.msg,
                  cases[i].needle);
    }
}

/* A multimodal Gemma 3 config keeps the language model in text_config and
 * omits head_dim defaults; a Qwen2.5 config ships an unused sliding window. */
static void check_layouts(void) {
    model_hparams hp;
    fc_err err;
    CHECK(parse("{\"model_type\":\"gemma3\",\"text_config\":{\"model_type\":\"gemma3_text\",\"num_hidden_layers\":12,"
                "\"num_attention_heads\":8,\"num_key_value_heads\":4,\"head_dim\":256,\"vocab_size\":262144,"
                "\"hidden_size\":2560,\"intermediate_size\":10240,\"sliding_window\":1024}}",
                &hp, &err) == FC_OK);
    CHECK(!strcmp(hp.arch, "gemma3") && hp.head_dim_k == 256 && hp.tied_embeddings && hp.qk_norm);
    /* period 6: layers 5 and 11 global */
    CHECK(hp.swa_layer[0] && hp.swa_layer[4] && !hp.swa_layer[5] && !hp.swa_layer[11] && hp.swa_layer[6]);
    CHECK(parse("{\"model_type\":\"qwen2\",\"num_hidden_layers\":2,\"num_attention_heads\":4,\"num_key_value_heads\":2,"
                "\"vocab_size\":100,\"hidden_size\":64,\"intermediate_size\":128,\"sliding_window\":4096,"
                "\"use_sliding_window\":false}",
                &hp, &err) == FC_OK);
    CHECK(hp.sliding_window == 0 && hp.attn_bias && hp.n_head_kv[1] == 2 && hp.n_ff[1] == 128);
}

/* model_load picks the source: a directory with a config.json works. */
static void check_load_dir(void) {
    char dir[] = "/tmp/fc_cfg_XXXXXX";
    if (!mkdtemp(dir)) return;
    char path[256];
    snprintf(path, sizeof path, "%s/config.json", dir);
    const char *cfg = "{\"model_type\":\"llama\",\"num_hidden_layers\":2,\"num_attention_heads\":4,\"vocab_size\":256,"
                      "\"hidden_size\":256,\"intermediate_size\":512}";
    fc_err err = {0};
    CHECK(fc_write_file_atomic(path, cfg, strlen(cfg), &err) == FC_OK);
    model_desc d;
    CHECK_MSG(model_load(&d, dir, "Q8_0", &err) == FC_OK, "%s", err.msg);
    /* 2 layers x (2 norms + 4 attn + 3 ffn) + token_embd + output_norm + output */
    CHECK(d.n_tensors == 2 * 9 + 3);
    model_desc_free(&d);
    CHECK(model_load(&d, dir, "Q9_9", &err) == FC_EINPUT);
    /* The checkpoint's index decides: no lm_head.weight -> tied output (one tensor fewer). */
    char index[256];
    snprintf(index, sizeof index, "%s/model.safetensors.index.json", dir);
    const char *idx = "{\"metadata\":{\"total_size\":1},\"weight_map\":{\"model.embed_tokens.weight\":\"a\","
                      "\"model.layers.0.self_attn.q_proj.weight\":\"a\"}}";
    CHECK(fc_write_file_atomic(index, idx, strlen(idx), &err) == FC_OK);
    CHECK_MSG(model_load(&d, dir, "Q8_0", &err) == FC_OK, "%s", err.msg);
    CHECK(d.hp.tied_embeddings && d.n_tensors == 2 * 9 + 2);
    model_desc_free(&d);
    CHECK(fc_write_file_atomic(index, "{\"weight_map\":[]}", 17, &err) == FC_OK);
    CHECK(model_load(&d, dir, "Q8_0", &err) == FC_EINPUT && strstr(err.msg, "weight_map"));
    remove(index);
    CHECK(model_load(&d, "no-such-model-7b", NULL, &err) == FC_EINPUT && strstr(err.msg, "no-such-model-7b"));
    remove(path);
    remove(dir);
}

/* Every value within its limit, the product far past 2^64 bytes: refused, no crash. */
static void check_absurd_product(void) {
    model_hparams hp;
    fc_err err;
    CHECK(parse("{\"model_type\":\"qwen3_moe\",\"num_hidden_layers\":1024,\"num_attention_heads\":65536,"
                "\"vocab_size\":16777216,\"hidden_size\":1048576,\"num_experts\":4096,\"num_experts_per_tok\":8,"
                "\"moe_intermediate_size\":16777216,\"head_dim\":128}",
                &hp, &err) == FC_OK);
    model_desc d;
    CHECK(model_desc_synthesize(&d, &hp, "Q4_K_M", &err) == FC_EINPUT);
    CHECK_MSG(strstr(err.msg, "overflow") != NULL, "%s", err.msg);
}

int main(void) {
    check_absurd_product();
    check_hostile();
    check_layouts();
    check_load_dir();
    return check_done("config_json");
}

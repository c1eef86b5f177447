/* llama-bench's model_type for a model (model/bench_desc.c): each expected
 * string is what llama.cpp's own llama_model_desc prints for that shape
 * (real llama-bench records: tests/planner_speed/fixtures/llama-bench-cpu.json
 * has TinyLlama as "llama 1B Q4_K - Medium"). */
#include "model/model.h"
#include "tests/check.h"

#include <string.h>

static void expect(const char *catalog, const char *quant, const char *want) {
    model_hparams hp;
    fc_err err = {0};
    CHECK_MSG(model_catalog_find(catalog, NULL, &hp, &err) == FC_OK, "%s", err.msg);
    model_desc d;
    CHECK_MSG(model_desc_synthesize(&d, &hp, quant, &err) == FC_OK, "%s", err.msg);
    char got[128];
    model_bench_desc(&d.hp, d.n_params, "?", got, sizeof got);
    CHECK_MSG(!strcmp(got, want), "%s %s: '%s', llama-bench says '%s'", catalog, quant, got, want);
    model_desc_free(&d);
}

int main(void) {
    expect("tinyllama-1.1b", "Q4_K_M", "llama 1B Q4_K - Medium");
    expect("llama-3.1-8b", "Q8_0", "llama 8B Q8_0");
    expect("llama-2-7b", "Q4_0", "llama 7B Q4_0");   /* 32 layers, a 32000-token vocabulary */
    expect("llama-2-70b", "Q4_K_S", "llama 70B Q4_K - Small");
    expect("mixtral-8x7b", "Q5_K_M", "llama 8x7B Q5_K - Medium");
    expect("llama-3.1-405b", "IQ2_XXS", "llama ?B IQ2_XXS - 2.0625 bpw"); /* 126 layers: no case of llama.cpp's */
    expect("mistral-small-24b", "Q6_K", "llama 13B Q6_K"); /* 40 layers, as llama.cpp types it */
    expect("qwen2.5-0.5b", "F16", "qwen2 1B F16");   /* 24 layers, n_embd 896, not 1024 */
    expect("qwen2.5-1.5b", "Q4_K_M", "qwen2 1.5B Q4_K - Medium");
    expect("qwen3-4b", "BF16", "qwen3 4B BF16");
    expect("qwen3-8b", "IQ4_XS", "qwen3 8B IQ4_XS - 4.25 bpw");
    expect("qwen3-30b-a3b", "Q4_K_M", "qwen3moe 30B.A3B Q4_K - Medium");
    expect("gpt-oss-20b", "MXFP4_MOE", "gpt-oss 20B MXFP4 MoE");
    expect("gemma-3-270m", "Q8_0", "gemma3 270M Q8_0");
    expect("deepseek-r1", "Q2_K", "deepseek2 671B Q2_K - Medium");

    /* a Llama 1 65B shape (no grouped-query attention) and an architecture the table lacks */
    model_hparams hp;
    fc_err err = {0};
    CHECK(model_catalog_find("llama-2-70b", NULL, &hp, &err) == FC_OK);
    for (uint32_t il = 0; il < hp.n_layer; il++) hp.n_head_kv[il] = hp.n_head;
    hp.file_type = 2; /* LLAMA_FTYPE_MOSTLY_Q4_0 */
    char got[128];
    model_bench_desc(&hp, 65000000000ull, "?", got, sizeof got);
    CHECK_MSG(!strcmp(got, "llama 65B Q4_0"), "%s", got);
    snprintf(hp.arch, sizeof hp.arch, "starcoder2");
    hp.file_type = 0; /* not recorded: the caller's guess */
    model_bench_desc(&hp, 1100000000ull, "Q8_0", got, sizeof got);
    CHECK_MSG(!strcmp(got, "starcoder2 1.1B Q8_0"), "%s", got);
    return check_done("bench_desc");
}

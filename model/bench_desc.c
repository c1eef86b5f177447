/* A model as llama-bench's model_type column names it: "llama 8B Q4_K -
 * Medium", "qwen3moe 30B.A3B Q4_K - Medium", "gpt-oss 20B MXFP4 MoE", so a
 * predicted run (plan --bench) and fitcheck's own (run --bench) line up with
 * a real llama-bench run row for row.
 *
 * llama.cpp builds it as "<arch> <type> <ftype>" (llama_model::desc):
 *   - the type comes from each architecture's load_arch_hparams, mostly by
 *     layer count (src/models/<arch>.cpp, llama-cpp-python 0.3.36's llama.cpp):
 *     the rows below, one per case. A layer count an architecture has no
 *     case for is "?B" there (LLM_TYPE_UNKNOWN) and here. So TinyLlama
 *     reads "1B", Mistral-Small-24B "13B" (llama's 40-layer case) and
 *     Llama-3.1-405B "?B". An architecture not in the table gets its
 *     parameter count, rounded;
 *   - the ftype is llama_ftype_name (src/llama-model-loader.cpp), the
 *     bench column of the file-type table (model/quantmix.c). */
#include "model/model.h"

#include <string.h>

enum bench_cond {
    IF_ANY,
    IF_EXPERTS,       /* n_expert == value */
    IF_NOT_EXPERTS,   /* n_expert != value */
    IF_EMBD,          /* n_embd == value */
    IF_HEADS,         /* n_head == value */
    IF_HEADS_ARE_KV,  /* n_head == n_head_kv: no grouped-query attention */
    IF_VOCAB,         /* n_vocab == value */
    IF_VOCAB_BELOW,   /* n_vocab < value */
};

#define BENCH_CONDS 2 /* llama's 32-layer rows test two things */

/* A row: llama.cpp's case for an architecture's layer count, and the tests
 * it adds (T_IF: up to two; IF_ANY fills an unused one). */
#define T(arch, n_layer, label) {arch, n_layer, label, {{IF_ANY, 0}, {IF_ANY, 0}}}
#define T_IF(arch, n_layer, label, c1, v1, c2, v2) {arch, n_layer, label, {{c1, v1}, {c2, v2}}}

static const struct bench_type {
    const char *arch;
    uint32_t n_layer;
    const char *label;
    struct { int cond; uint32_t value; } when[BENCH_CONDS]; /* all must hold; IF_ANY always does */
} bench_types[] = {
    /* src/models/llama.cpp: 8 experts (Mixtral) typed apart; granite's vocabulary is 49152 */
    T_IF("llama", 32, "8x7B", IF_EXPERTS, 8, IF_ANY, 0),
    T_IF("llama", 56, "8x22B", IF_EXPERTS, 8, IF_ANY, 0),
    T_IF("llama", 16, "1B", IF_NOT_EXPERTS, 8, IF_ANY, 0),
    T_IF("llama", 22, "1B", IF_NOT_EXPERTS, 8, IF_ANY, 0),
    T_IF("llama", 26, "3B", IF_NOT_EXPERTS, 8, IF_ANY, 0),
    T_IF("llama", 28, "3B", IF_NOT_EXPERTS, 8, IF_ANY, 0),
    T_IF("llama", 30, "256M", IF_NOT_EXPERTS, 8, IF_ANY, 0),
    T_IF("llama", 32, "3B", IF_NOT_EXPERTS, 8, IF_VOCAB, 49152),
    T_IF("llama", 32, "7B", IF_NOT_EXPERTS, 8, IF_VOCAB_BELOW, 40000),
    T_IF("llama", 32, "8B", IF_NOT_EXPERTS, 8, IF_ANY, 0),
    T_IF("llama", 36, "8B", IF_NOT_EXPERTS, 8, IF_ANY, 0),
    T_IF("llama", 40, "13B", IF_NOT_EXPERTS, 8, IF_ANY, 0),
    T_IF("llama", 48, "34B", IF_NOT_EXPERTS, 8, IF_ANY, 0),
    T_IF("llama", 60, "30B", IF_NOT_EXPERTS, 8, IF_ANY, 0),
    T_IF("llama", 80, "65B", IF_NOT_EXPERTS, 8, IF_HEADS_ARE_KV, 0),
    T_IF("llama", 80, "70B", IF_NOT_EXPERTS, 8, IF_ANY, 0),
    /* src/models/qwen2.cpp */
    T_IF("qwen2", 24, "0.5B", IF_EMBD, 1024, IF_ANY, 0),
    T("qwen2", 24, "1B"),
    T_IF("qwen2", 28, "1.5B", IF_EMBD, 1536, IF_ANY, 0),
    T("qwen2", 28, "7B"),
    T("qwen2", 32, "7B"),
    T("qwen2", 36, "3B"),
    T_IF("qwen2", 40, "4B", IF_HEADS, 20, IF_ANY, 0),
    T("qwen2", 40, "13B"),
    T("qwen2", 48, "14B"),
    T("qwen2", 64, "32B"),
    T("qwen2", 80, "70B"),
    /* src/models/qwen3.cpp, qwen3moe.cpp */
    T_IF("qwen3", 28, "0.6B", IF_EMBD, 1024, IF_ANY, 0),
    T("qwen3", 28, "1.7B"),
    T_IF("qwen3", 36, "4B", IF_EMBD, 2560, IF_ANY, 0),
    T("qwen3", 36, "8B"),
    T("qwen3", 40, "14B"),
    T("qwen3", 64, "32B"),
    T("qwen3moe", 48, "30B.A3B"),
    T("qwen3moe", 94, "235B.A22B"),
    /* src/models/gemma2.cpp, gemma3.cpp */
    T("gemma2", 26, "2B"),
    T("gemma2", 42, "9B"),
    T("gemma2", 46, "27B"),
    T("gemma3", 18, "270M"),
    T("gemma3", 26, "1B"),
    T("gemma3", 32, "8B"),
    T("gemma3", 34, "4B"),
    T("gemma3", 48, "12B"),
    T("gemma3", 62, "27B"),
    /* src/models/phi3.cpp, openai-moe.cpp (gpt-oss), deepseek2.cpp */
    T("phi3", 24, "1B"),
    T("phi3", 32, "3B"),
    T("phi3", 40, "14B"),
    T("gpt-oss", 24, "20B"),
    T("gpt-oss", 36, "120B"),
    T("deepseek2", 27, "16B"),
    T("deepseek2", 47, "30B.A3B"),
    T("deepseek2", 60, "236B"),
    T("deepseek2", 61, "671B"),
};

static bool cond_holds(const model_hparams *hp, int cond, uint32_t value) {
    switch (cond) {
    case IF_EXPERTS: return hp->n_expert == value;
    case IF_NOT_EXPERTS: return hp->n_expert != value;
    case IF_EMBD: return hp->n_embd == value;
    case IF_HEADS: return hp->n_head == value;
    case IF_HEADS_ARE_KV: return hp->n_layer > 0 && hp->n_head == hp->n_head_kv[0];
    case IF_VOCAB: return hp->n_vocab == value;
    case IF_VOCAB_BELOW: return hp->n_vocab < value;
    default: return true;
    }
}

/* The parameter count rounded as llama.cpp's type names read: "135M",
 * "1.1B", "8B" (one decimal below 10B, a trailing ".0" dropped). */
static void params_label(uint64_t n_params, char *buf, size_t cap) {
    double p = (double)n_params;
    if (p < 1e9) snprintf(buf, cap, "%.0fM", p / 1e6);
    else if (p >= 10e9 || (uint64_t)(p / 1e8 + 0.5) % 10 == 0) snprintf(buf, cap, "%.0fB", p / 1e9);
    else snprintf(buf, cap, "%.1fB", p / 1e9);
}

static void type_label(const model_hparams *hp, uint64_t n_params, char *buf, size_t cap) {
    bool typed = false;
    for (size_t i = 0; i < FC_ARRAY_LEN(bench_types); i++) {
        const struct bench_type *t = &bench_types[i];
        if (strcmp(t->arch, hp->arch)) continue;
        typed = true;
        bool all = t->n_layer == hp->n_layer;
        for (int c = 0; c < BENCH_CONDS && all; c++) all = cond_holds(hp, t->when[c].cond, t->when[c].value);
        if (all) {
            snprintf(buf, cap, "%s", t->label);
            return;
        }
    }
    if (typed) snprintf(buf, cap, "?B");
    else params_label(n_params, buf, cap);
}

void model_bench_desc(const model_hparams *hp, uint64_t n_params, const char *ftype_fallback, char *buf, size_t cap) {
    char type[16];
    type_label(hp, n_params, type, sizeof type);
    /* file_type 0 is also "not recorded" (model.h): then the caller's guess */
    const model_ftype_info *ft = hp->file_type ? model_ftype_by_id(hp->file_type) : NULL;
    snprintf(buf, cap, "%s %s %s", hp->arch, type, ft ? ft->bench : ftype_fallback);
}

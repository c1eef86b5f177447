/* Teacher-forced greedy decoding with llama.cpp's library, for
 * bench/moe_vs_llamacpp.sh: feeds PROMPT, then each of FORCED (another
 * engine's greedy tokens) one at a time, and prints for every step
 * llama.cpp's own argmax, the forced token, and how far the forced token's
 * logit is below the argmax's (0 when they agree). Compiled by the script
 * against a llama.cpp build; nothing in fitcheck's build uses it.
 *
 * usage: llama_greedy MODEL THREADS PROMPT_IDS FORCED_IDS [N_TOP]   (ids comma separated)
 * N_TOP: also print, after the prompt, llama.cpp's N_TOP largest logits as
 * "top ID LOGIT" lines (tests/engine/test_moe.c records them).
 * llama.cpp runs with its defaults, weight repacking included (what users run). */
#include "llama.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_IDS 4096

static int parse_ids(const char *s, llama_token *out) {
    int n = 0;
    while (*s && n < MAX_IDS) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s) return -1;
        out[n++] = (llama_token)v;
        s = *end == ',' ? end + 1 : end;
    }
    return n;
}

static const float *sort_logits;
static int by_logit(const void *a, const void *b) {
    float x = sort_logits[*(const int *)a], y = sort_logits[*(const int *)b];
    return x < y ? 1 : x > y ? -1 : 0;
}

/* llama.cpp's n_top largest logits, largest first. */
static void print_top(const float *lg, int n_vocab, int n_top) {
    if (n_top <= 0) return;
    int *idx = malloc((size_t)n_vocab * sizeof *idx);
    if (!idx) return;
    for (int t = 0; t < n_vocab; t++) idx[t] = t;
    sort_logits = lg;
    qsort(idx, (size_t)n_vocab, sizeof *idx, by_logit);
    for (int k = 0; k < n_top && k < n_vocab; k++) printf("top %d %.6f\n", idx[k], lg[idx[k]]);
    free(idx);
}

int main(int argc, char **argv) {
    static llama_token prompt[MAX_IDS], forced[MAX_IDS];
    if (argc != 5 && argc != 6) {
        fprintf(stderr, "usage: %s MODEL THREADS PROMPT_IDS FORCED_IDS [N_TOP]\n", argv[0]);
        return 2;
    }
    int n_top = argc == 6 ? atoi(argv[5]) : 0;
    int n_threads = atoi(argv[2]), n_prompt = parse_ids(argv[3], prompt), n_forced = parse_ids(argv[4], forced);
    if (n_prompt <= 0 || n_forced < 0) {
        fprintf(stderr, "bad token list\n");
        return 2;
    }
    llama_backend_init();
    struct llama_model_params mp = llama_model_default_params();
    struct llama_model *model = llama_model_load_from_file(argv[1], mp);
    if (!model) return 1;
    struct llama_context_params cp = llama_context_default_params();
    cp.n_ctx = (uint32_t)(n_prompt + n_forced + 16);
    cp.n_batch = cp.n_ctx;
    cp.n_threads = cp.n_threads_batch = n_threads;
    struct llama_context *ctx = llama_init_from_model(model, cp);
    if (!ctx) return 1;
    int n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
    struct llama_batch b = llama_batch_get_one(prompt, n_prompt);
    for (int i = 0; i <= n_forced; i++) {
        if (llama_decode(ctx, b)) {
            fprintf(stderr, "llama_decode failed at step %d\n", i);
            return 1;
        }
        if (i == n_forced) break;
        const float *lg = llama_get_logits_ith(ctx, -1);
        int best = 0;
        for (int t = 1; t < n_vocab; t++)
            if (lg[t] > lg[best]) best = t;
        printf("%d %d %d %.4f\n", i, best, forced[i], lg[best] - lg[forced[i]]);
        if (i == 0) print_top(lg, n_vocab, n_top);
        b = llama_batch_get_one(&forced[i], 1);
    }
    llama_free(ctx);
    llama_model_free(model);
    return 0;
}

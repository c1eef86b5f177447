/* Tokenizer on synthetic vocabularies: hostile metadata is refused with
 * FC_EINPUT (never a crash), the BPE pre-tokenizers split like the regular
 * expressions they replace, BPE merges follow their ranks, and streaming
 * decode never splits a UTF-8 character. */
#include "engine/tokenizer_impl.h"
#include "engine/unicode.h"
#include "tests/check.h"

#include <string.h>

/* ---- pre-tokenizers --------------------------------------------------------
 * Expected splits from HuggingFace tokenizers running the original regular
 * expressions: pre_tokenizers.Split(Regex(PATTERN), behavior="isolated")
 * .pre_tokenize_str(SAMPLE), patterns as in the comment of tokenizer_pretok.c. */

static const char sample[] = "I'LL pay $12345.67, it's   fine!!\n\n  ok?\r\n\tdone  élan 日本 😀x";

static const char *const split_gpt2[] = {
    "I", "'", "LL", " pay", " $", "12345", ".", "67", ",", " it", "'s", "  ", " fine", "!!", "\n\n ", " ok", "?",
    "\r\n", "\t", "done", " ", " élan", " 日本", " 😀", "x"};
static const char *const split_llama3[] = {
    "I", "'LL", " pay", " $", "123", "45", ".", "67", ",", " it", "'s", "  ", " fine", "!!\n\n", " ", " ok", "?\r\n",
    "\tdone", " ", " élan", " 日本", " 😀", "x"};
static const char *const split_qwen2[] = {
    "I", "'LL", " pay", " $", "1", "2", "3", "4", "5", ".", "6", "7", ",", " it", "'s", "  ", " fine", "!!\n\n", " ",
    " ok", "?\r\n", "\tdone", " ", " élan", " 日本", " 😀", "x"};

typedef struct words {
    const char *const *want;
    size_t n_want, n;
    int bad;
} words;

static int collect(void *ctx, const char *w, size_t n) {
    words *c = ctx;
    if (c->n >= c->n_want || strlen(c->want[c->n]) != n || memcmp(c->want[c->n], w, n)) {
        fprintf(stderr, "word %zu: got \"%.*s\", want \"%s\"\n", c->n, (int)n, w,
                c->n < c->n_want ? c->want[c->n] : "(end)");
        c->bad++;
    }
    c->n++;
    return FC_OK;
}

static void check_split(int pre, uint32_t digits_max, const char *const *want, size_t n_want) {
    eng_tokenizer t = {.kind = ENG_TOK_BPE, .pre = pre, .digits_max = digits_max};
    words c = {want, n_want, 0, 0};
    fc_err err = {0};
    CHECK(tok_bpe_pretokenize(&t, sample, strlen(sample), collect, &c, &err) == FC_OK);
    CHECK_MSG(c.bad == 0 && c.n == n_want, "pre %d digits %u: %zu words, %d wrong", pre, digits_max, c.n, c.bad);
}

/* ---- a tiny byte-level BPE vocabulary ------------------------------------ */

/* 256 byte characters, then "ab", "abc", "Ġa" and two control tokens. */
static uint8_t *tiny_bpe(uint64_t *len, const char *pre, const char *const *merges, uint64_t n_merges, int bad) {
    static char store[256][5];
    const char *toks[262];
    int32_t types[262];
    for (int b = 0; b < 256; b++) {
        store[b][eng_utf8_encode(eng_byte_to_cp((uint8_t)b), store[b])] = 0;
        toks[b] = store[b];
        types[b] = ENG_TT_NORMAL;
    }
    const char *extra[6] = {"ab", "abc", "\xC4\xA0" "a", "<|s|>", "<|s|>x", "bc"};
    for (int i = 0; i < 6; i++) toks[256 + i] = extra[i], types[256 + i] = i == 3 || i == 4 ? ENG_TT_CONTROL : ENG_TT_NORMAL;
    gguf_writer *w = gguf_writer_new(0);
    gguf_writer_str(w, "general.architecture", "llama");
    gguf_writer_str(w, "tokenizer.ggml.model", bad == 1 ? "wordpiece" : "gpt2");
    if (pre) gguf_writer_str(w, "tokenizer.ggml.pre", pre);
    if (bad == 2) gguf_writer_arr_i32(w, "tokenizer.ggml.tokens", types, 262);
    else gguf_writer_arr_str(w, "tokenizer.ggml.tokens", toks, 262);
    if (bad == 3) types[7] = 99;
    gguf_writer_arr_i32(w, "tokenizer.ggml.token_type", types, bad == 4 ? 261 : 262);
    gguf_writer_arr_str(w, "tokenizer.ggml.merges", merges, n_merges);
    gguf_writer_u32(w, "tokenizer.ggml.bos_token_id", bad == 5 ? 262 : 259);
    gguf_writer_u32(w, "tokenizer.ggml.eos_token_id", 259);
    uint8_t *buf = NULL;
    fc_err err = {0};
    gguf_writer_to_buffer(w, &buf, len, &err);
    gguf_writer_free(w);
    return buf;
}

static int load(const char *pre, const char *const *merges, uint64_t n_merges, int bad, eng_tokenizer **t,
                fc_err *err) {
    uint64_t len;
    uint8_t *buf = tiny_bpe(&len, pre, merges, n_merges, bad);
    gguf_file *f;
    int rc = gguf_open_buffer(&f, buf, len, "tiny.gguf", err);
    CHECK(rc == FC_OK);
    if (!rc) {
        rc = eng_tokenizer_load(t, f, err);
        gguf_close(f);
    }
    free(buf);
    return rc;
}

static const char *const good_merges[] = {"b c", "a b", "ab c", "Ġ a"};

static void check_hostile(void) {
    static const char *const unknown_left[] = {"a b", "zz c"};
    static const char *const no_space[] = {"abc"};
    static const char *const unknown_result[] = {"c a"};
    struct {
        const char *what, *pre;
        const char *const *merges;
        uint64_t n_merges;
        int bad;
    } cases[] = {
        {"unknown model", "gpt2", good_merges, 4, 1},
        {"tokens of the wrong type", "gpt2", good_merges, 4, 2},
        {"token type out of range", "gpt2", good_merges, 4, 3},
        {"token types of the wrong length", "gpt2", good_merges, 4, 4},
        {"bos id out of range", "gpt2", good_merges, 4, 5},
        {"merge with an unknown side", "gpt2", unknown_left, 2, 0},
        {"merge without a space", "gpt2", no_space, 1, 0},
        {"merge making an unknown token", "gpt2", unknown_result, 1, 0},
        {"unknown pre-tokenizer", "klingon", good_merges, 4, 0},
    };
    for (size_t i = 0; i < FC_ARRAY_LEN(cases); i++) {
        eng_tokenizer *t = NULL;
        fc_err err = {0};
        int rc = load(cases[i].pre, cases[i].merges, cases[i].n_merges, cases[i].bad, &t, &err);
        CHECK_MSG(rc == FC_EINPUT && t == NULL && err.msg[0], "%s: rc %d", cases[i].what, rc);
        eng_tokenizer_free(t);
    }
}

static void check_tiny_bpe(void) {
    eng_tokenizer *t = NULL;
    fc_err err = {0};
    CHECK(load("gpt2", good_merges, 4, 0, &t, &err) == FC_OK);
    if (!t) return;
    int32_t ids[64];
    size_t n;
    /* "abc": rank 0 merges b+c first, which leaves a+bc with no merge: 97-byte 'a', then "bc". */
    CHECK(eng_tokenize(t, "abc", 3, 0, ids, 64, &n, &err) == FC_OK);
    CHECK_MSG(n == 2 && ids[0] == t->byte_id['a'] && ids[1] == 261, "abc -> %zu tokens", n);
    /* " a" is one word and merges to "Ġa" (id 258). */
    CHECK(eng_tokenize(t, "ab a", 4, 0, ids, 64, &n, &err) == FC_OK);
    CHECK_MSG(n == 2 && ids[0] == 256 && ids[1] == 258, "ab a -> %zu tokens", n);
    /* Control tokens only when asked; the longest one wins. */
    CHECK(eng_tokenize(t, "<|s|>x", 6, ENG_TOK_PARSE_SPECIAL, ids, 64, &n, &err) == FC_OK);
    CHECK(n == 1 && ids[0] == 260);
    CHECK(eng_tokenize(t, "<|s|>", 5, 0, ids, 64, &n, &err) == FC_OK);
    CHECK(n == 5);
    /* Too small an output array is an error, not an overflow. */
    CHECK(eng_tokenize(t, "xyzzy", 5, 0, ids, 3, &n, &err) == FC_EINPUT);
    CHECK(eng_token_is_eog(t, 259) && !eng_token_is_eog(t, 256));
    /* Every byte value survives encode + decode. */
    char all[256], back[1024];
    for (int b = 0; b < 256; b++) all[b] = (char)(255 - b);
    int32_t many[ENG_TOKENS_MAX(256)];
    CHECK(eng_tokenize(t, all, 256, 0, many, FC_ARRAY_LEN(many), &n, &err) == FC_OK);
    eng_detok d;
    eng_detok_init(&d, t);
    size_t at = 0;
    for (size_t i = 0; i < n; i++) at += eng_detok_push(&d, many[i], back + at, sizeof back - at);
    at += eng_detok_flush(&d, back + at, sizeof back - at);
    CHECK(at == 256 && !memcmp(all, back, 256));
    eng_tokenizer_free(t);
}

static void check_unicode(void) {
    CHECK(eng_uc_class('a') == UC_LETTER && eng_uc_class(0x65E5) == UC_LETTER && eng_uc_class(0x0660) == UC_NUMBER);
    CHECK(eng_uc_class(0x3000) == UC_SPACE && eng_uc_class(0x1F600) == UC_OTHER && eng_uc_class('!') == UC_OTHER);
    for (int b = 0; b < 256; b++) CHECK(eng_cp_to_byte(eng_byte_to_cp((uint8_t)b)) == b);
    CHECK(eng_byte_to_cp(' ') == 0x120 && eng_byte_to_cp('\n') == 0x10A && eng_byte_to_cp('A') == 'A');
    uint32_t cp;
    CHECK(eng_utf8_decode("\xC0\x80", 2, &cp) == 1 && (cp & ENG_UC_RAW_BYTE)); /* overlong */
    CHECK(eng_utf8_decode("\xF0\x9F\x98", 3, &cp) == 1);                     /* truncated */
    CHECK(eng_utf8_decode("\xF0\x9F\x98\x80", 4, &cp) == 4 && cp == 0x1F600);
}

int main(void) {
    check_split(PRE_GPT2, 0, split_gpt2, FC_ARRAY_LEN(split_gpt2));
    check_split(PRE_LLAMA3, 3, split_llama3, FC_ARRAY_LEN(split_llama3));
    check_split(PRE_LLAMA3, 1, split_qwen2, FC_ARRAY_LEN(split_qwen2));
    check_hostile();
    check_tiny_bpe();
    check_unicode();
    return check_done("tokenizer");
}

/* Tokenizer: loading and validating the vocabulary, token lookup, special
 * tokens in text, and decoding. The two encoders live in tokenizer_spm.c and
 * tokenizer_bpe.c. */
#include "engine/tokenizer_impl.h"
#include "engine/unicode.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* BPE pre-tokenizers by tokenizer.ggml.pre, as llama.cpp groups them. */
static const struct {
    const char *name;
    int pre;
    uint32_t digits_max;
    bool isolate_digits;
} pre_table[] = {
    {"default", PRE_GPT2, 0, false},   {"gpt2", PRE_GPT2, 0, false},       {"gpt-2", PRE_GPT2, 0, false},
    {"smollm", PRE_GPT2, 0, true},     {"starcoder", PRE_GPT2, 0, true},   {"refact", PRE_GPT2, 0, true},
    {"llama3", PRE_LLAMA3, 3, false},  {"llama-bpe", PRE_LLAMA3, 3, false}, {"llama-v3", PRE_LLAMA3, 3, false},
    {"dbrx", PRE_LLAMA3, 3, false},    {"smaug-bpe", PRE_LLAMA3, 3, false},
    {"qwen2", PRE_LLAMA3, 1, false},   {"deepseek-r1-qwen", PRE_LLAMA3, 1, false},
};

/* Control tokens that end a turn, for models whose metadata names only EOS. */
static const char *const eog_texts[] = {"<|im_end|>", "<end_of_turn>", "<|eot_id|>", "<|endoftext|>", "<|end|>"};

static uint64_t hash_bytes(const char *s, size_t n) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
    return h;
}

static uint64_t hash_u64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

/* Smallest power of two >= 2n, so the tables stay at most half full. */
static uint64_t table_size(uint64_t n) {
    uint64_t s = 16;
    while (s < 2 * n) s *= 2;
    return s;
}

static const char *tok_text(const eng_tokenizer *t, uint32_t id) { return t->arena + t->off[id]; }

int32_t eng_token_find(const eng_tokenizer *t, const char *text, size_t len) {
    for (uint64_t h = hash_u64(hash_bytes(text, len)) & t->index_mask;; h = (h + 1) & t->index_mask) {
        uint32_t e = t->index[h];
        if (!e) return -1;
        if (t->len[e - 1] == len && !memcmp(tok_text(t, e - 1), text, len)) return (int32_t)(e - 1);
    }
}

int tok_out_push(tok_out *o, int32_t id, fc_err *err) {
    if (o->n >= o->cap) return fc_err_set(err, FC_EINPUT, "text needs more than %zu tokens", o->cap);
    o->ids[o->n++] = id;
    return FC_OK;
}

void tok_heap_push(tok_heap *h, tok_pair p) {
    if (h->n == h->cap) return; /* sized by the caller to never happen */
    size_t i = h->n++;
    while (i > 0) {
        size_t up = (i - 1) / 2;
        tok_pair q = h->v[up];
        if (q.key > p.key || (q.key == p.key && q.left < p.left)) break;
        h->v[i] = q;
        i = up;
    }
    h->v[i] = p;
}

bool tok_heap_pop(tok_heap *h, tok_pair *out) {
    if (!h->n) return false;
    *out = h->v[0];
    tok_pair last = h->v[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n) break;
        if (c + 1 < h->n) {
            tok_pair l = h->v[c], r = h->v[c + 1];
            if (r.key > l.key || (r.key == l.key && r.left < l.left)) c++;
        }
        tok_pair q = h->v[c];
        if (last.key > q.key || (last.key == q.key && last.left < q.left)) break;
        h->v[i] = q;
        i = c;
    }
    h->v[i] = last;
    return true;
}

/* ---- loading ----------------------------------------------------------- */

static int load_strings(eng_tokenizer *t, const gguf_file *f, fc_err *err) {
    const gguf_kv *kv = gguf_find(f, "tokenizer.ggml.tokens");
    if (!kv) return fc_err_set(err, FC_EINPUT, "%s: no tokenizer.ggml.tokens", f->path);
    if (kv->v.type != GGUF_ARRAY || kv->v.arr.type != GGUF_STRING)
        return fc_err_set(err, FC_EINPUT, "%s: tokenizer.ggml.tokens is not an array of strings", f->path);
    if (kv->v.arr.n == 0 || kv->v.arr.n > ENG_VOCAB_MAX)
        return fc_err_set(err, FC_EINPUT, "%s: tokenizer.ggml.tokens has %llu entries (1..%u allowed)", f->path,
                          (unsigned long long)kv->v.arr.n, ENG_VOCAB_MAX);
    t->n_vocab = (uint32_t)kv->v.arr.n;
    gguf_str *s = fc_calloc(t->n_vocab, sizeof *s, err);
    if (!s) return FC_ERUNTIME;
    int rc = gguf_arr_strings(f, kv, s, err);
    uint64_t total = 0;
    for (uint32_t i = 0; !rc && i < t->n_vocab; i++) {
        if (s[i].len > ENG_TOKEN_MAX_BYTES)
            rc = fc_err_set(err, FC_EINPUT, "%s: token %u is %llu bytes long (at most %u)", f->path, i,
                            (unsigned long long)s[i].len, ENG_TOKEN_MAX_BYTES);
        total += s[i].len + 1;
    }
    if (!rc) {
        t->arena = fc_malloc(total, err);
        t->off = fc_calloc(t->n_vocab, sizeof *t->off, err);
        t->len = fc_calloc(t->n_vocab, sizeof *t->len, err);
        if (!t->arena || !t->off || !t->len) rc = FC_ERUNTIME;
    }
    uint64_t pos = 0;
    for (uint32_t i = 0; !rc && i < t->n_vocab; i++) {
        memcpy(t->arena + pos, s[i].p, s[i].len);
        t->arena[pos + s[i].len] = 0;
        t->off[i] = pos;
        t->len[i] = (uint32_t)s[i].len;
        pos += s[i].len + 1;
    }
    free(s);
    return rc;
}

static int build_index(eng_tokenizer *t, fc_err *err) {
    uint64_t size = table_size(t->n_vocab);
    t->index = fc_calloc(size, sizeof *t->index, err);
    if (!t->index) return FC_ERUNTIME;
    t->index_mask = size - 1;
    for (uint32_t id = 0; id < t->n_vocab; id++) {
        /* Duplicate texts exist in real vocabularies; the first id wins, as in llama.cpp. */
        uint64_t h = hash_u64(hash_bytes(tok_text(t, id), t->len[id])) & t->index_mask;
        for (;; h = (h + 1) & t->index_mask) {
            uint32_t e = t->index[h];
            if (!e) {
                t->index[h] = id + 1;
                break;
            }
            if (t->len[e - 1] == t->len[id] && !memcmp(tok_text(t, e - 1), tok_text(t, id), t->len[id])) break;
        }
    }
    return FC_OK;
}

/* Optional per-token numeric array of exactly n_vocab entries. */
static int load_numeric(const eng_tokenizer *t, const gguf_file *f, const char *key, const gguf_kv **out,
                        fc_err *err) {
    const gguf_kv *kv = gguf_find(f, key);
    *out = NULL;
    if (!kv) return FC_OK;
    if (kv->v.type != GGUF_ARRAY || kv->v.arr.type == GGUF_STRING || kv->v.arr.type == GGUF_ARRAY)
        return fc_err_set(err, FC_EINPUT, "%s: %s is not a numeric array", f->path, key);
    if (kv->v.arr.n != t->n_vocab)
        return fc_err_set(err, FC_EINPUT, "%s: %s has %llu entries for %u tokens", f->path, key,
                          (unsigned long long)kv->v.arr.n, t->n_vocab);
    *out = kv;
    return FC_OK;
}

static int load_types_scores(eng_tokenizer *t, const gguf_file *f, fc_err *err) {
    const gguf_kv *types, *scores;
    int rc = load_numeric(t, f, "tokenizer.ggml.token_type", &types, err);
    if (!rc) rc = load_numeric(t, f, "tokenizer.ggml.scores", &scores, err);
    if (rc) return rc;
    t->types = fc_malloc(t->n_vocab, err);
    if (!t->types) return FC_ERUNTIME;
    for (uint32_t i = 0; i < t->n_vocab; i++) {
        int64_t v = ENG_TT_NORMAL;
        if (types && (!gguf_arr_i64(f, types, i, &v) || v < 0 || v >= ENG_TT_COUNT))
            return fc_err_set(err, FC_EINPUT, "%s: tokenizer.ggml.token_type[%u] is not a token type (0..%d)",
                              f->path, i, ENG_TT_COUNT - 1);
        t->types[i] = (uint8_t)v;
    }
    if (t->kind != ENG_TOK_SPM) return FC_OK;
    t->scores = fc_calloc(t->n_vocab, sizeof *t->scores, err);
    if (!t->scores) return FC_ERUNTIME;
    for (uint32_t i = 0; scores && i < t->n_vocab; i++) {
        double v;
        if (!gguf_arr_f64(f, scores, i, &v) || !isfinite(v))
            return fc_err_set(err, FC_EINPUT, "%s: tokenizer.ggml.scores[%u] is not a finite number", f->path, i);
        t->scores[i] = (float)v;
    }
    return FC_OK;
}

static int load_merges(eng_tokenizer *t, const gguf_file *f, fc_err *err) {
    const gguf_kv *kv = gguf_find(f, "tokenizer.ggml.merges");
    if (!kv) return fc_err_set(err, FC_EINPUT, "%s: byte-level BPE without tokenizer.ggml.merges", f->path);
    if (kv->v.type != GGUF_ARRAY || kv->v.arr.type != GGUF_STRING)
        return fc_err_set(err, FC_EINPUT, "%s: tokenizer.ggml.merges is not an array of strings", f->path);
    /* Each merge makes one token, so there are never more merges than tokens. */
    if (kv->v.arr.n > t->n_vocab)
        return fc_err_set(err, FC_EINPUT, "%s: %llu merges for %u tokens", f->path,
                          (unsigned long long)kv->v.arr.n, t->n_vocab);
    uint32_t n = (uint32_t)kv->v.arr.n;
    gguf_str *s = fc_calloc(n ? n : 1, sizeof *s, err);
    if (!s) return FC_ERUNTIME;
    int rc = gguf_arr_strings(f, kv, s, err);
    uint64_t size = table_size(n);
    t->merge_key = fc_calloc(size, sizeof *t->merge_key, err);
    t->merge_rank = fc_calloc(size, sizeof *t->merge_rank, err);
    t->merge_id = fc_calloc(size, sizeof *t->merge_id, err);
    if (!rc && (!t->merge_key || !t->merge_rank || !t->merge_id)) rc = FC_ERUNTIME;
    t->merge_mask = size - 1;
    char buf[2 * ENG_TOKEN_MAX_BYTES];
    for (uint32_t r = 0; !rc && r < n; r++) {
        /* "left right": split at the first space after the first byte (a left side may itself be a space). */
        const char *sp = s[r].len > 1 ? memchr(s[r].p + 1, ' ', s[r].len - 1) : NULL;
        if (!sp || s[r].len - 1 > sizeof buf) {
            rc = fc_err_set(err, FC_EINPUT, "%s: merge %u is not \"left right\"", f->path, r);
            break;
        }
        size_t ll = (size_t)(sp - s[r].p), rl = s[r].len - ll - 1;
        int32_t a = eng_token_find(t, s[r].p, ll), b = eng_token_find(t, sp + 1, rl);
        memcpy(buf, s[r].p, ll);
        memcpy(buf + ll, sp + 1, rl);
        int32_t m = eng_token_find(t, buf, ll + rl);
        if (a < 0 || b < 0 || m < 0) {
            rc = fc_err_set(err, FC_EINPUT, "%s: merge %u (\"%.*s\") names a token that is not in the vocabulary",
                            f->path, r, (int)(s[r].len > 64 ? 64 : s[r].len), s[r].p);
            break;
        }
        uint64_t key = ((uint64_t)a << 32 | (uint32_t)b) + 1;
        for (uint64_t h = hash_u64(key) & t->merge_mask;; h = (h + 1) & t->merge_mask) {
            if (t->merge_key[h] == key) break; /* a repeated merge keeps its first (best) rank */
            if (!t->merge_key[h]) {
                t->merge_key[h] = key;
                t->merge_rank[h] = r;
                t->merge_id[h] = (uint32_t)m;
                break;
            }
        }
    }
    free(s);
    return rc;
}

static bool is_special(uint8_t type) {
    return type == ENG_TT_CONTROL || type == ENG_TT_USER_DEFINED || type == ENG_TT_UNKNOWN;
}

/* Special tokens are found in text by hashing the text's prefixes of each
 * length a special token has (a few dozen distinct lengths), longest first:
 * the cost per position does not grow with the number of special tokens
 * (Gemma 3 has 6400). */
static int load_specials(eng_tokenizer *t, fc_err *err) {
    bool *has_len = fc_calloc(ENG_TOKEN_MAX_BYTES + 1, sizeof *has_len, err);
    if (!has_len) return FC_ERUNTIME;
    for (uint32_t i = 0; i < t->n_vocab; i++)
        if (is_special(t->types[i]) && t->len[i] > 0) {
            const uint8_t *u = (const uint8_t *)tok_text(t, i);
            has_len[t->len[i]] = true;
            t->special_first[u[0]] = true;
            if (t->len[i] == 1) t->special_single[u[0]] = true;
            else t->special_pair[(u[0] << 8 | u[1]) / 8] |= (uint8_t)(1u << (u[1] % 8));
        }
    uint32_t n = 0;
    for (uint32_t l = 1; l <= ENG_TOKEN_MAX_BYTES; l++) n += has_len[l];
    t->special_lens = fc_malloc((n ? n : 1) * sizeof *t->special_lens, err);
    if (t->special_lens)
        for (uint32_t l = ENG_TOKEN_MAX_BYTES; l >= 1; l--)
            if (has_len[l]) t->special_lens[t->n_special_lens++] = l;
    free(has_len);
    return t->special_lens ? FC_OK : FC_ERUNTIME;
}

/* A byte-level vocabulary may lack a few byte characters (SmolLM2 has no
 * token for 0x04): such bytes are dropped when encoding, as in llama.cpp. */
static void load_byte_ids(eng_tokenizer *t) {
    for (int b = 0; b < 256; b++) {
        char s[8];
        size_t n;
        if (t->kind == ENG_TOK_SPM) {
            n = (size_t)snprintf(s, sizeof s, "<0x%02X>", b);
        } else {
            n = eng_utf8_encode(eng_byte_to_cp((uint8_t)b), s);
        }
        t->byte_id[b] = eng_token_find(t, s, n);
    }
}

/* An optional token id key; absent -> -1, out of range -> FC_EINPUT. */
static int load_id(const eng_tokenizer *t, const gguf_file *f, const char *key, int32_t *out, fc_err *err) {
    int64_t v;
    *out = -1;
    if (!gguf_find(f, key)) return FC_OK;
    if (!gguf_get_i64(f, key, &v) || v < -1 || v >= (int64_t)t->n_vocab)
        return fc_err_set(err, FC_EINPUT, "%s: %s is not a token id below %u", f->path, key, t->n_vocab);
    *out = (int32_t)v;
    return FC_OK;
}

static int load_config(eng_tokenizer *t, const gguf_file *f, fc_err *err) {
    int rc = load_id(t, f, "tokenizer.ggml.bos_token_id", &t->bos, err);
    if (!rc) rc = load_id(t, f, "tokenizer.ggml.eos_token_id", &t->eos, err);
    if (!rc) rc = load_id(t, f, "tokenizer.ggml.eot_token_id", &t->eot, err);
    if (!rc) rc = load_id(t, f, "tokenizer.ggml.unknown_token_id", &t->unk, err);
    if (rc) return rc;
    t->add_bos = t->kind == ENG_TOK_SPM; /* llama.cpp's defaults when the keys are absent */
    t->add_space_prefix = t->kind == ENG_TOK_SPM;
    gguf_get_bool(f, "tokenizer.ggml.add_bos_token", &t->add_bos);
    gguf_get_bool(f, "tokenizer.ggml.add_eos_token", &t->add_eos);
    gguf_get_bool(f, "tokenizer.ggml.add_space_prefix", &t->add_space_prefix);
    if (t->add_bos && t->bos < 0) t->add_bos = false;
    if (t->add_eos && t->eos < 0) t->add_eos = false;
    if (t->kind != ENG_TOK_BPE) return FC_OK;
    char pre[64] = "default";
    if (gguf_find(f, "tokenizer.ggml.pre") && !gguf_get_str(f, "tokenizer.ggml.pre", pre, sizeof pre))
        return fc_err_set(err, FC_EINPUT, "%s: tokenizer.ggml.pre is not a string", f->path);
    for (size_t i = 0; i < FC_ARRAY_LEN(pre_table); i++)
        if (!strcmp(pre, pre_table[i].name)) {
            t->pre = pre_table[i].pre;
            t->digits_max = pre_table[i].digits_max;
            t->isolate_digits = pre_table[i].isolate_digits;
            return FC_OK;
        }
    return fc_err_set(err, FC_EINPUT, "%s: pre-tokenizer \"%s\" is not supported (known: gpt2, smollm, llama3, qwen2)",
                      f->path, pre);
}

int eng_tokenizer_load(eng_tokenizer **out, const gguf_file *f, fc_err *err) {
    *out = NULL;
    char model[32];
    if (!gguf_get_str(f, "tokenizer.ggml.model", model, sizeof model))
        return fc_err_set(err, FC_EINPUT, "%s: no tokenizer (tokenizer.ggml.model is missing)", f->path);
    eng_tokenizer *t = fc_calloc(1, sizeof *t, err);
    if (!t) return FC_ERUNTIME;
    if (!strcmp(model, "llama")) t->kind = ENG_TOK_SPM;
    else if (!strcmp(model, "gpt2")) t->kind = ENG_TOK_BPE;
    else {
        free(t);
        return fc_err_set(err, FC_EINPUT, "%s: tokenizer model \"%s\" is not supported (llama, gpt2)", f->path, model);
    }
    int rc = load_strings(t, f, err);
    if (!rc) rc = build_index(t, err);
    if (!rc) rc = load_types_scores(t, f, err);
    if (!rc && t->kind == ENG_TOK_BPE) rc = load_merges(t, f, err);
    if (!rc) rc = load_specials(t, err);
    if (!rc) load_byte_ids(t);
    if (!rc) rc = load_config(t, f, err);
    if (rc) {
        eng_tokenizer_free(t);
        return rc;
    }
    *out = t;
    return FC_OK;
}

void eng_tokenizer_free(eng_tokenizer *t) {
    if (!t) return;
    free(t->arena);
    free(t->off);
    free(t->len);
    free(t->scores);
    free(t->types);
    free(t->index);
    free(t->merge_key);
    free(t->merge_rank);
    free(t->merge_id);
    free(t->special_lens);
    free(t);
}

int eng_tokenizer_kind(const eng_tokenizer *t) { return t->kind; }
uint32_t eng_tokenizer_n_vocab(const eng_tokenizer *t) { return t->n_vocab; }
int32_t eng_tokenizer_bos(const eng_tokenizer *t) { return t->bos; }
int32_t eng_tokenizer_eos(const eng_tokenizer *t) { return t->eos; }

bool eng_token_is_eog(const eng_tokenizer *t, int32_t id) {
    if (id < 0 || (uint32_t)id >= t->n_vocab) return false;
    if (id == t->eos || id == t->eot) return true;
    if (t->types[id] != ENG_TT_CONTROL) return false;
    for (size_t i = 0; i < FC_ARRAY_LEN(eog_texts); i++)
        if (t->len[id] == strlen(eog_texts[i]) && !memcmp(tok_text(t, (uint32_t)id), eog_texts[i], t->len[id]))
            return true;
    return false;
}

/* ---- encoding ------------------------------------------------------------ */

/* The special token starting at text[0], longest first; -1 if none. Control
 * and unknown tokens count only when parse_special; user-defined ones always
 * (llama.cpp treats them as part of the vocabulary's surface). */
static int32_t special_at(const eng_tokenizer *t, const char *text, size_t len, bool parse_special) {
    const uint8_t *u = (const uint8_t *)text;
    bool pair = len >= 2 && (t->special_pair[(u[0] << 8 | u[1]) / 8] >> (u[1] % 8) & 1);
    if (!pair && !t->special_single[u[0]]) return -1;
    for (uint32_t i = 0; i < t->n_special_lens; i++) {
        if (t->special_lens[i] > len || (!pair && t->special_lens[i] > 1)) continue;
        int32_t id = eng_token_find(t, text, t->special_lens[i]);
        if (id < 0 || !is_special(t->types[id])) continue;
        if (parse_special || t->types[id] == ENG_TT_USER_DEFINED) return id;
    }
    return -1;
}

static int encode_raw(const eng_tokenizer *t, const char *text, size_t len, bool prev_special, tok_out *o,
                      fc_err *err) {
    if (!len) return FC_OK;
    if (t->kind == ENG_TOK_SPM) return tok_spm_encode(t, text, len, t->add_space_prefix && prev_special, o, err);
    return tok_bpe_encode(t, text, len, o, err);
}

int eng_tokenize(const eng_tokenizer *t, const char *text, size_t len, unsigned flags, int32_t *out, size_t cap,
                 size_t *n_out, fc_err *err) {
    tok_out o = {out, 0, cap};
    *n_out = 0;
    int rc = FC_OK;
    bool parse = flags & ENG_TOK_PARSE_SPECIAL;
    if ((flags & ENG_TOK_ADD_SPECIAL) && t->add_bos) rc = tok_out_push(&o, t->bos, err);
    size_t start = 0;
    bool prev_special = true; /* SentencePiece adds its space prefix at the start and after specials */
    for (size_t pos = 0; !rc && pos < len;) {
        int32_t id = t->special_first[(uint8_t)text[pos]] ? special_at(t, text + pos, len - pos, parse) : -1;
        if (id < 0) {
            pos++;
            continue;
        }
        rc = encode_raw(t, text + start, pos - start, prev_special, &o, err);
        if (!rc) rc = tok_out_push(&o, id, err);
        prev_special = true;
        pos += t->len[id];
        start = pos;
    }
    if (!rc) rc = encode_raw(t, text + start, len - start, prev_special, &o, err);
    if (!rc && (flags & ENG_TOK_ADD_SPECIAL) && t->add_eos) rc = tok_out_push(&o, t->eos, err);
    *n_out = o.n;
    return rc;
}

/* ---- decoding ------------------------------------------------------------ */

static size_t put(char *buf, size_t cap, size_t at, const char *s, size_t n) {
    if (at < cap) memcpy(buf + at, s, at + n <= cap ? n : cap - at);
    return at + n;
}

size_t eng_token_piece(const eng_tokenizer *t, int32_t id, bool special, char *buf, size_t cap) {
    if (id < 0 || (uint32_t)id >= t->n_vocab) return 0;
    const char *s = tok_text(t, (uint32_t)id);
    size_t n = t->len[id], at = 0;
    switch (t->types[id]) {
    case ENG_TT_CONTROL:
    case ENG_TT_UNKNOWN:
    case ENG_TT_UNUSED:
        return special ? put(buf, cap, 0, s, n) : 0;
    case ENG_TT_USER_DEFINED:
        return put(buf, cap, 0, s, n);
    case ENG_TT_BYTE:
        if (t->kind == ENG_TOK_SPM && n == 6) { /* "<0xNN>" */
            char b = (char)strtol(s + 3, NULL, 16);
            return put(buf, cap, 0, &b, 1);
        }
        break;
    default:
        break;
    }
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t k = eng_utf8_decode(s + i, n - i, &cp);
        if (t->kind == ENG_TOK_SPM && cp == 0x2581) { /* "▁" is how SentencePiece spells a space */
            at = put(buf, cap, at, " ", 1);
        } else if (t->kind == ENG_TOK_BPE && eng_cp_to_byte(cp) >= 0) {
            char b = (char)eng_cp_to_byte(cp);
            at = put(buf, cap, at, &b, 1);
        } else {
            at = put(buf, cap, at, s + i, k);
        }
        i += k;
    }
    return at;
}

void eng_detok_init(eng_detok *d, const eng_tokenizer *t) {
    memset(d, 0, sizeof *d);
    d->t = t;
}

/* Bytes at the end of s[0..n) that start a UTF-8 sequence not yet complete. */
static size_t incomplete_tail(const char *s, size_t n) {
    for (size_t back = 1; back <= 3 && back <= n; back++) {
        uint8_t c = (uint8_t)s[n - back];
        if ((c & 0xC0) == 0x80) continue; /* continuation byte: look further back */
        size_t need = eng_utf8_len(c);
        return need > back ? back : 0;
    }
    return 0;
}

size_t eng_detok_push(eng_detok *d, int32_t id, char *out, size_t cap) {
    if (!cap) return 0;
    char piece[ENG_TOKEN_MAX_BYTES + 8];
    memcpy(piece, d->pend, d->n_pend);
    size_t n = d->n_pend + eng_token_piece(d->t, id, false, piece + d->n_pend, ENG_TOKEN_MAX_BYTES);
    if (n > sizeof piece) n = sizeof piece;
    const char *p = piece;
    /* SentencePiece's space prefix belongs to the encoding, not to the text. */
    if (!d->started && n > 0) {
        d->started = true;
        if (d->t->kind == ENG_TOK_SPM && d->t->add_space_prefix && p[0] == ' ') p++, n--;
    }
    size_t hold = incomplete_tail(p, n);
    d->n_pend = (uint32_t)hold;
    memcpy(d->pend, p + n - hold, hold);
    n -= hold;
    if (n >= cap) n = cap - 1;
    memcpy(out, p, n);
    out[n] = 0;
    return n;
}

size_t eng_detok_flush(eng_detok *d, char *out, size_t cap) {
    if (!cap) return 0;
    size_t n = d->n_pend < cap - 1 ? d->n_pend : cap - 1;
    memcpy(out, d->pend, n);
    out[n] = 0;
    d->n_pend = 0;
    return n;
}

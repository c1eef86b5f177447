/* GGUF reader: every value type round-trips, a tiny model's hyperparameters
 * are read, and every malformed variant is refused with FC_EINPUT and a
 * message — never a crash, a hang or a huge allocation. */
#include "model/model.h"
#include "tests/check.h"

#include <string.h>

static gguf_writer *tiny_model(uint32_t alignment, float **weights_out) {
    gguf_writer *w = gguf_writer_new(alignment);
    gguf_writer_str(w, "general.architecture", "llama");
    gguf_writer_str(w, "general.name", "tiny");
    gguf_writer_u32(w, "llama.block_count", 2);
    gguf_writer_u32(w, "llama.embedding_length", 64);
    gguf_writer_u32(w, "llama.feed_forward_length", 128);
    gguf_writer_u32(w, "llama.attention.head_count", 4);
    gguf_writer_u32(w, "llama.attention.head_count_kv", 2);
    gguf_writer_u32(w, "llama.context_length", 2048);
    gguf_writer_f32(w, "llama.attention.layer_norm_rms_epsilon", 1e-5f);
    const char *toks[] = {"<unk>", "<s>", "</s>", "a"};
    gguf_writer_str(w, "tokenizer.ggml.model", "llama");
    gguf_writer_arr_str(w, "tokenizer.ggml.tokens", toks, 4);
    static float data[64 * 4];
    for (int i = 0; i < 64 * 4; i++) data[i] = (float)i;
    *weights_out = data;
    fc_err err;
    int64_t ne_embd[2] = {64, 4};
    gguf_writer_tensor(w, "token_embd.weight", GGML_TYPE_F32, 2, ne_embd, data, &err);
    int64_t ne_norm[1] = {64};
    gguf_writer_tensor(w, "blk.0.attn_norm.weight", GGML_TYPE_F32, 1, ne_norm, data, &err);
    gguf_writer_tensor(w, "blk.1.attn_norm.weight", GGML_TYPE_F32, 1, ne_norm, data, &err);
    return w;
}

static int open_buf(const uint8_t *buf, uint64_t len, gguf_file **f, fc_err *err) {
    return gguf_open_buffer(f, buf, len, "fixture", err);
}

static void test_value_types(void) {
    gguf_writer *w = gguf_writer_new(0);
    uint8_t u8 = 200; int8_t i8 = -100; uint16_t u16 = 60000; int16_t i16 = -30000;
    int64_t i64 = -5000000000LL; double f64 = 3.25;
    gguf_writer_raw(w, "t.u8", GGUF_U8, &u8, 1);
    gguf_writer_raw(w, "t.i8", GGUF_I8, &i8, 1);
    gguf_writer_raw(w, "t.u16", GGUF_U16, &u16, 2);
    gguf_writer_raw(w, "t.i16", GGUF_I16, &i16, 2);
    gguf_writer_u32(w, "t.u32", 4000000000u);
    gguf_writer_i32(w, "t.i32", -7);
    gguf_writer_f32(w, "t.f32", 1.5f);
    gguf_writer_bool(w, "t.bool", true);
    gguf_writer_str(w, "t.str", "hello");
    gguf_writer_u64(w, "t.u64", 1ull << 40);
    gguf_writer_raw(w, "t.i64", GGUF_I64, &i64, 8);
    gguf_writer_raw(w, "t.f64", GGUF_F64, &f64, 8);
    int32_t ints[3] = {1, -2, 3};
    gguf_writer_arr_i32(w, "t.arr_i32", ints, 3);
    float fl[2] = {0.5f, -0.25f};
    gguf_writer_arr_f32(w, "t.arr_f32", fl, 2);
    const char *strs[] = {"x", "", "yz"};
    gguf_writer_arr_str(w, "t.arr_str", strs, 3);
    /* nested: array of 2 arrays of u8 {1,2} and {3} */
    uint8_t nested[4 + 8 + (4 + 8 + 2) + (4 + 8 + 1)];
    uint8_t *p = nested;
    uint32_t t_arr = GGUF_ARRAY, t_u8 = GGUF_U8;
    uint64_t n2 = 2, n1 = 1;
    memcpy(p, &t_arr, 4); p += 4; memcpy(p, &n2, 8); p += 8;
    memcpy(p, &t_u8, 4); p += 4; memcpy(p, &n2, 8); p += 8; *p++ = 1; *p++ = 2;
    memcpy(p, &t_u8, 4); p += 4; memcpy(p, &n1, 8); p += 8; *p++ = 3;
    gguf_writer_raw(w, "t.nested", GGUF_ARRAY, nested, (uint64_t)(p - nested));
    uint8_t *buf; uint64_t len; fc_err err = {0};
    CHECK(gguf_writer_to_buffer(w, &buf, &len, &err) == FC_OK);
    gguf_writer_free(w);
    gguf_file *f;
    int rc = open_buf(buf, len, &f, &err);
    CHECK_MSG(rc == FC_OK, "%s", err.msg);
    if (rc) { free(buf); return; }
    int64_t v; double d; bool b; char s[16];
    CHECK(gguf_get_i64(f, "t.u8", &v) && v == 200);
    CHECK(gguf_get_i64(f, "t.i8", &v) && v == -100);
    CHECK(gguf_get_i64(f, "t.u16", &v) && v == 60000);
    CHECK(gguf_get_i64(f, "t.i16", &v) && v == -30000);
    CHECK(gguf_get_i64(f, "t.u32", &v) && v == 4000000000LL);
    CHECK(gguf_get_i64(f, "t.i32", &v) && v == -7);
    CHECK(gguf_get_f64(f, "t.f32", &d) && d == 1.5);
    CHECK(gguf_get_bool(f, "t.bool", &b) && b);
    CHECK(gguf_get_str(f, "t.str", s, sizeof s) && !strcmp(s, "hello"));
    CHECK(gguf_get_i64(f, "t.u64", &v) && v == (1ll << 40));
    CHECK(gguf_get_i64(f, "t.i64", &v) && v == -5000000000LL);
    CHECK(gguf_get_f64(f, "t.f64", &d) && d == 3.25);
    CHECK(!gguf_get_i64(f, "t.str", &v));
    CHECK(!gguf_get_i64(f, "t.missing", &v));
    const gguf_kv *kv = gguf_find(f, "t.arr_i32");
    CHECK(kv && kv->v.arr.n == 3 && gguf_arr_i64(f, kv, 1, &v) && v == -2);
    CHECK(!gguf_arr_i64(f, kv, 3, &v)); /* out of range */
    kv = gguf_find(f, "t.arr_f32");
    CHECK(kv && gguf_arr_f64(f, kv, 1, &d) && d == -0.25);
    kv = gguf_find(f, "t.arr_str");
    gguf_str out[3];
    CHECK(kv && gguf_arr_strings(f, kv, out, &err) == FC_OK);
    CHECK(out[0].len == 1 && out[1].len == 0 && out[2].len == 2 && !memcmp(out[2].p, "yz", 2));
    kv = gguf_find(f, "t.nested");
    CHECK(kv && kv->v.type == GGUF_ARRAY && kv->v.arr.type == GGUF_ARRAY && kv->v.arr.n == 2);
    gguf_close(f);
    free(buf);
}

static void test_tiny_model(void) {
    float *weights;
    gguf_writer *w = tiny_model(64, &weights);
    uint8_t *buf; uint64_t len; fc_err err = {0};
    CHECK(gguf_writer_to_buffer(w, &buf, &len, &err) == FC_OK);
    gguf_writer_free(w);
    gguf_file *f;
    int rc = open_buf(buf, len, &f, &err);
    CHECK_MSG(rc == FC_OK, "%s", err.msg);
    if (rc) { free(buf); return; }
    CHECK(f->alignment == 64 && f->data_offset % 64 == 0);
    CHECK(f->n_tensors == 3);
    const gguf_tensor *t = gguf_find_tensor(f, "token_embd.weight");
    CHECK(t && t->bytes == 64 * 4 * 4 && t->offset % 64 == 0);
    CHECK(t && memcmp(t->data, weights, t->bytes) == 0);
    model_desc d;
    rc = model_desc_from_gguf(&d, f, &err);
    CHECK_MSG(rc == FC_OK, "%s", err.msg);
    if (!rc) {
        CHECK(!strcmp(d.hp.arch, "llama") && d.hp.n_layer == 2 && d.hp.n_embd == 64 && d.hp.n_head == 4);
        CHECK(d.hp.n_head_kv[1] == 2 && d.hp.head_dim_k == 16 && d.hp.n_ff[0] == 128 && d.hp.n_vocab == 4);
        CHECK(d.hp.tokenizer == MODEL_TOK_SPM && d.hp.tied_embeddings && d.hp.n_ctx_train == 2048);
        CHECK(d.n_params == 64 * 4 + 64 * 2);
        CHECK(model_hparams_kv_k_elems(&d.hp, 0) == 32);
        int32_t layer;
        CHECK(model_tensor_role("blk.7.ffn_down.weight", &layer) == ROLE_FFN_DOWN && layer == 7);
        CHECK(model_tensor_role("blk.3.attn_q.bias", &layer) == ROLE_ATTN_BIAS && layer == 3);
        CHECK(model_tensor_role("output.weight", &layer) == ROLE_OUTPUT && layer == -1);
        model_desc_free(&d);
    }
    gguf_close(f);

    /* Truncation at every byte offset: always FC_EINPUT, never a crash.
     * (ASan/UBSan builds run this too.) */
    int bad = 0;
    for (uint64_t cut = 0; cut < len; cut++) {
        uint8_t *copy = malloc(cut ? cut : 1);
        memcpy(copy, buf, cut);
        fc_err e = {0};
        gguf_file *g;
        int r = gguf_open_buffer(&g, copy, cut, "cut", &e);
        /* Cutting only trailing padding of the last tensor's data is still
         * invalid because the tensor's bytes run past the end. */
        if (r != FC_EINPUT || !e.msg[0]) {
            if (!bad) fprintf(stderr, "truncated at %llu: rc %d msg '%s'\n", (unsigned long long)cut, r, e.msg);
            bad++;
            if (r == FC_OK) gguf_close(g);
        }
        free(copy);
    }
    CHECK_MSG(bad == 0, "%d truncations not refused", bad);
    free(buf);
}

/* Writes a header by hand so each field can be made hostile. */
typedef struct raw { uint8_t b[4096]; size_t n; } raw;
static void r_put(raw *r, const void *p, size_t n) { memcpy(r->b + r->n, p, n); r->n += n; }
static void r_u32(raw *r, uint32_t v) { r_put(r, &v, 4); }
static void r_u64(raw *r, uint64_t v) { r_put(r, &v, 8); }
static void r_str(raw *r, const char *s) { r_u64(r, strlen(s)); r_put(r, s, strlen(s)); }
static void r_head(raw *r, uint64_t n_tensors, uint64_t n_kv) {
    r->n = 0;
    r_put(r, "GGUF", 4);
    r_u32(r, 3);
    r_u64(r, n_tensors);
    r_u64(r, n_kv);
}
static void r_tensor(raw *r, const char *name, uint32_t n_dims, const uint64_t *ne, uint32_t type, uint64_t off) {
    r_str(r, name);
    r_u32(r, n_dims);
    for (uint32_t i = 0; i < n_dims; i++) r_u64(r, ne[i]);
    r_u32(r, type);
    r_u64(r, off);
}
static void r_pad_data(raw *r, size_t data_bytes) {
    while (r->n % 32) r->b[r->n++] = 0;
    memset(r->b + r->n, 0, data_bytes);
    r->n += data_bytes;
}

static void expect_bad(const raw *r, const char *what, const char *needle) {
    gguf_file *f;
    fc_err err = {0};
    int rc = gguf_open_buffer(&f, r->b, r->n, "hostile", &err);
    CHECK_MSG(rc == FC_EINPUT, "%s: rc %d (%s)", what, rc, err.msg);
    CHECK_MSG(strstr(err.msg, needle) != NULL, "%s: message '%s' lacks '%s'", what, err.msg, needle);
    if (rc == FC_OK) gguf_close(f);
}

static void test_hostile(void) {
    raw r;
    uint64_t ne2[2] = {32, 2};
    r_head(&r, 1ull << 63, 0);
    expect_bad(&r, "2^63 tensors", "tensor count");
    r_head(&r, 0, 1ull << 62);
    expect_bad(&r, "2^62 keys", "metadata count");
    r_head(&r, 0, 1); r_u64(&r, 1ull << 63); r_put(&r, "k", 1); r_pad_data(&r, 64);
    expect_bad(&r, "key length 2^63", "string length");
    r_head(&r, 0, 1); r_str(&r, "k"); r_u32(&r, GGUF_STRING); r_u64(&r, 1000);
    expect_bad(&r, "string past end", "string length");
    r_head(&r, 0, 1); r_str(&r, "k"); r_u32(&r, GGUF_ARRAY); r_u32(&r, GGUF_U64); r_u64(&r, 1ull << 61);
    expect_bad(&r, "array count", "array count");
    r_head(&r, 0, 1); r_str(&r, "k"); r_u32(&r, GGUF_ARRAY); r_u32(&r, GGUF_STRING); r_u64(&r, 1ull << 62);
    expect_bad(&r, "string array count", "array count");
    r_head(&r, 0, 1); r_str(&r, "k");
    r_u32(&r, GGUF_ARRAY);
    for (int i = 0; i < 6; i++) { r_u32(&r, GGUF_ARRAY); r_u64(&r, 1); }
    expect_bad(&r, "nesting bomb", "nested");
    r_head(&r, 0, 1); r_str(&r, "k"); r_u32(&r, 99); r_pad_data(&r, 64);
    expect_bad(&r, "unknown value type", "unknown value type");
    r_head(&r, 0, 2); r_str(&r, "k"); r_u32(&r, GGUF_U32); r_u32(&r, 1); r_str(&r, "k"); r_u32(&r, GGUF_U32); r_u32(&r, 2);
    expect_bad(&r, "duplicate key", "duplicate metadata key");
    r_head(&r, 0, 1); r_str(&r, "general.alignment"); r_u32(&r, GGUF_U32); r_u32(&r, 48);
    expect_bad(&r, "alignment not a power of two", "alignment");

    r_head(&r, 1, 0); r_tensor(&r, "a", 2, ne2, GGML_TYPE_F32, 1ull << 40); r_pad_data(&r, 256);
    expect_bad(&r, "offset outside data", "past the end");
    r_head(&r, 1, 0); r_tensor(&r, "a", 2, ne2, GGML_TYPE_F32, 8); r_pad_data(&r, 512);
    expect_bad(&r, "misaligned offset", "alignment");
    r_head(&r, 2, 0); r_tensor(&r, "a", 2, ne2, GGML_TYPE_F32, 0); r_tensor(&r, "b", 2, ne2, GGML_TYPE_F32, 128);
    r_pad_data(&r, 512);
    expect_bad(&r, "overlapping tensors", "overlaps");
    r_head(&r, 2, 0); r_tensor(&r, "a", 2, ne2, GGML_TYPE_F32, 0); r_tensor(&r, "a", 2, ne2, GGML_TYPE_F32, 256);
    r_pad_data(&r, 512);
    expect_bad(&r, "duplicate names", "duplicate tensor name");
    r_head(&r, 1, 0); r_tensor(&r, "a", 2, ne2, 4, 0); r_pad_data(&r, 256);
    expect_bad(&r, "retired type id 4", "unknown tensor type id 4");
    r_head(&r, 1, 0); r_tensor(&r, "a", 2, ne2, 1000, 0); r_pad_data(&r, 256);
    expect_bad(&r, "type id 1000", "unknown tensor type id 1000");
    uint64_t ne5[5] = {32, 1, 1, 1, 1};
    r_head(&r, 1, 0); r_tensor(&r, "a", 5, ne5, GGML_TYPE_F32, 0); r_pad_data(&r, 256);
    expect_bad(&r, "n_dims 5", "n_dims");
    uint64_t big[4] = {1ull << 32, 1ull << 32, 1ull << 32, 1};
    r_head(&r, 1, 0); r_tensor(&r, "a", 3, big, GGML_TYPE_F32, 0); r_pad_data(&r, 256);
    expect_bad(&r, "ne product overflow", "overflow");
    uint64_t ne_q[2] = {33, 2};
    r_head(&r, 1, 0); r_tensor(&r, "a", 2, ne_q, GGML_TYPE_Q4_0, 0); r_pad_data(&r, 256);
    expect_bad(&r, "row not a whole block", "block size");
    uint64_t ne_zero[2] = {0, 2};
    r_head(&r, 1, 0); r_tensor(&r, "a", 2, ne_zero, GGML_TYPE_F32, 0); r_pad_data(&r, 256);
    expect_bad(&r, "zero dimension", "zero");
    r.n = 0; r_put(&r, "GGUF", 4); r_u32(&r, 7); r_u64(&r, 0); r_u64(&r, 0);
    expect_bad(&r, "version 7", "version 7");
    r.n = 0; r_put(&r, "GGML", 4); r_u32(&r, 3); r_u64(&r, 0); r_u64(&r, 0);
    expect_bad(&r, "bad magic", "magic");
}

static void test_hparams_hostile(void) {
    /* Zero heads and NaN epsilon are refused by the hyperparameter reader. */
    const char *cases[] = {"zero heads", "nan eps", "kv heads > heads"};
    for (int c = 0; c < 3; c++) {
        gguf_writer *w = gguf_writer_new(0);
        gguf_writer_str(w, "general.architecture", "llama");
        gguf_writer_u32(w, "llama.block_count", 2);
        gguf_writer_u32(w, "llama.embedding_length", 64);
        gguf_writer_u32(w, "llama.attention.head_count", c == 0 ? 0 : 4);
        gguf_writer_u32(w, "llama.attention.head_count_kv", c == 2 ? 8 : 4);
        gguf_writer_f32(w, "llama.attention.layer_norm_rms_epsilon", c == 1 ? NAN : 1e-5f);
        uint8_t *buf; uint64_t len; fc_err err = {0};
        gguf_writer_to_buffer(w, &buf, &len, &err);
        gguf_writer_free(w);
        gguf_file *f;
        CHECK(gguf_open_buffer(&f, buf, len, "hp", &err) == FC_OK);
        model_hparams hp;
        int rc = model_hparams_from_gguf(&hp, f, &err);
        CHECK_MSG(rc == FC_EINPUT && err.msg[0], "%s: rc %d", cases[c], rc);
        gguf_close(f);
        free(buf);
    }
}

static void test_types(void) {
    CHECK(ggml_type_get(4) == NULL && ggml_type_get(40) == NULL && ggml_type_get(UINT32_MAX) == NULL);
    CHECK(ggml_type_get(GGML_TYPE_Q4_K)->bytes == 144 && ggml_type_get(GGML_TYPE_Q4_K)->blck == 256);
    CHECK(ggml_type_get(GGML_TYPE_MXFP4)->bytes == 17);
    CHECK(ggml_type_from_name("Q6_K") == GGML_TYPE_Q6_K && ggml_type_from_name("bf16") == GGML_TYPE_BF16);
    CHECK(ggml_type_from_name("q4_k_m") == -1);
    uint64_t b;
    CHECK(ggml_row_bytes(GGML_TYPE_Q8_0, 64, &b) && b == 68);
    CHECK(!ggml_row_bytes(GGML_TYPE_Q8_0, 33, &b));
    CHECK_NEAR(ggml_type_bpw(GGML_TYPE_Q6_K), 6.5625, 1e-9);
}

int main(void) {
    test_types();
    test_value_types();
    test_tiny_model();
    test_hostile();
    test_hparams_hostile();
    return check_done("test_gguf");
}

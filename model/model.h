/* model/: what a model is.
 *
 * - the ggml tensor-type table (one row per type: name, block size, block bytes);
 * - a GGUF reader that maps the file and validates every count, length and offset
 *   against the file size before use (GGUF files come from strangers);
 * - architecture hyperparameters, read from GGUF metadata (hparams.c), from a
 *   Hugging Face config.json (config_json.c) or the built-in catalog (catalog.c);
 * - a model description: hyperparameters plus a tensor table, exact for a GGUF
 *   file, emulated for a model that has not been downloaded yet.
 */
#ifndef FC_MODEL_H
#define FC_MODEL_H

#include "common/fc.h"

/* ---- ggml tensor types ------------------------------------------------- */

enum ggml_type_id {
    GGML_TYPE_F32 = 0, GGML_TYPE_F16 = 1, GGML_TYPE_Q4_0 = 2, GGML_TYPE_Q4_1 = 3,
    GGML_TYPE_Q5_0 = 6, GGML_TYPE_Q5_1 = 7, GGML_TYPE_Q8_0 = 8, GGML_TYPE_Q8_1 = 9,
    GGML_TYPE_Q2_K = 10, GGML_TYPE_Q3_K = 11, GGML_TYPE_Q4_K = 12, GGML_TYPE_Q5_K = 13,
    GGML_TYPE_Q6_K = 14, GGML_TYPE_Q8_K = 15, GGML_TYPE_IQ2_XXS = 16, GGML_TYPE_IQ2_XS = 17,
    GGML_TYPE_IQ3_XXS = 18, GGML_TYPE_IQ1_S = 19, GGML_TYPE_IQ4_NL = 20, GGML_TYPE_IQ3_S = 21,
    GGML_TYPE_IQ2_S = 22, GGML_TYPE_IQ4_XS = 23, GGML_TYPE_I8 = 24, GGML_TYPE_I16 = 25,
    GGML_TYPE_I32 = 26, GGML_TYPE_I64 = 27, GGML_TYPE_F64 = 28, GGML_TYPE_IQ1_M = 29,
    GGML_TYPE_BF16 = 30, GGML_TYPE_TQ1_0 = 34, GGML_TYPE_TQ2_0 = 35, GGML_TYPE_MXFP4 = 39,
    GGML_TYPE_COUNT = 40,
};

typedef struct ggml_type_info {
    const char *name;    /* as llama.cpp prints it: "q4_K", "f16", "iq4_nl" */
    uint32_t blck;       /* elements per block */
    uint32_t bytes;      /* bytes per block */
} ggml_type_info;

/* NULL for ids that are out of range or retired: callers must treat that as
 * bad input, never index further. */
const ggml_type_info *ggml_type_get(uint32_t id);
/* Case-insensitive name lookup ("Q4_K", "q4_k", "bf16"); -1 if unknown. */
int ggml_type_from_name(const char *name);
/* Bytes of a row of n elements; false if n is not a whole number of blocks
 * or the size overflows. */
bool ggml_row_bytes(uint32_t type, uint64_t n, uint64_t *out);
double ggml_type_bpw(uint32_t type);

/* ---- GGUF -------------------------------------------------------------- */

enum gguf_vtype {
    GGUF_U8 = 0, GGUF_I8 = 1, GGUF_U16 = 2, GGUF_I16 = 3, GGUF_U32 = 4, GGUF_I32 = 5,
    GGUF_F32 = 6, GGUF_BOOL = 7, GGUF_STRING = 8, GGUF_ARRAY = 9, GGUF_U64 = 10,
    GGUF_I64 = 11, GGUF_F64 = 12, GGUF_VTYPE_COUNT = 13,
};

/* Limits a well-formed file never comes near; a file past them is refused
 * before anything is allocated for it. */
#define GGUF_NAME_MAX 64            /* tensor name bytes, NUL included (GGML_MAX_NAME) */
#define GGUF_MAX_DIMS 4
#define GGUF_MAX_NESTING 4          /* arrays of arrays of ... */
#define GGUF_KEY_MAX 256            /* metadata key length */
#define GGUF_DEFAULT_ALIGNMENT 32
#define GGUF_MAX_ALIGNMENT (1u << 20)

typedef struct gguf_str {
    const char *p; /* into the mapping: not NUL-terminated */
    uint64_t len;
} gguf_str;

typedef struct gguf_value {
    uint32_t type;
    union {
        uint64_t u;  /* U8..U64, BOOL */
        int64_t i;   /* I8..I64 */
        double f;    /* F32, F64 */
        gguf_str s;  /* STRING */
        struct {
            uint32_t type;   /* element type */
            uint64_t n;      /* element count */
            uint64_t off;    /* file offset of the first element */
            uint64_t bytes;  /* bytes the elements occupy */
        } arr;
    };
} gguf_value;

typedef struct gguf_kv {
    char *key;       /* NUL-terminated copy */
    gguf_value v;
    uint64_t off;    /* file offset of the key, for messages */
} gguf_kv;

typedef struct gguf_tensor {
    char name[GGUF_NAME_MAX];
    uint32_t n_dims;
    int64_t ne[GGUF_MAX_DIMS];  /* unused dims are 1 */
    uint32_t type;
    uint64_t offset;            /* relative to the data section */
    uint64_t bytes;
    uint64_t n_elements;
    const void *data;           /* into the mapping; NULL when only the header was read */
    uint32_t split;             /* part of a split model holding it (0-based), else 0 */
} gguf_tensor;

typedef struct gguf_file {
    char path[4096];
    const uint8_t *map;   /* whole file, read-only (or the caller's buffer), or its first bytes */
    uint64_t avail;       /* bytes at map: the file size, or the header bytes read over HTTP */
    uint64_t size;        /* the file's size; a split model's: all parts together */
    int owns_map;         /* map is an mmap of the file */
    uint8_t *heap;        /* freed on close: the header bytes read over HTTP */
    uint32_t n_splits;    /* parts of a split model (splits[0] is this file), else 0 */
    struct gguf_file **splits;
    uint32_t version;
    uint32_t alignment;
    uint64_t data_offset; /* start of the tensor data section */
    uint64_t n_kv;
    gguf_kv *kv;
    uint64_t n_tensors;
    gguf_tensor *tensors;
} gguf_file;

/* Maps and parses path. Reads only the header pages: opening a 100 GB file is
 * as fast as opening a small one. */
int gguf_open(gguf_file **out, const char *path, fc_err *err);
/* Parses a caller-owned buffer (tests, fuzzing); buf must outlive the file. */
int gguf_open_buffer(gguf_file **out, const void *buf, uint64_t size, const char *name, fc_err *err);
/* Parses the header from the first `avail` bytes of a file of `size` bytes
 * (read over HTTP): sizes and offsets are checked against `size`, tensor data
 * pointers are NULL. When it failed for want of bytes and avail < size,
 * *short_read is true: read more and call again. */
int gguf_open_header(gguf_file **out, const void *buf, uint64_t avail, uint64_t size, const char *name,
                     bool *short_read, fc_err *err);
void gguf_close(gguf_file *f);

/* Split models (llama.cpp's gguf-split): parts named PREFIX-00001-of-00003.gguf,
 * each with split.no (0-based) and split.count; the first holds all metadata
 * and split.tensors.count, the tensors are spread over the parts. */
#define GGUF_SPLIT_MAX 512  /* parts; the %05d name allows more, no published model comes near */
#define GGUF_KEY_SPLIT_NO "split.no"
#define GGUF_KEY_SPLIT_COUNT "split.count"
#define GGUF_KEY_SPLIT_TENSORS "split.tensors.count"
/* If name (a path or URL, query string allowed) is a part's name, its part
 * number (1-based) and count; else false. */
bool gguf_split_parse_name(const char *name, uint32_t *no, uint32_t *count);
/* The name of part `no` (1-based) of the split model `name` belongs to. */
int gguf_split_part_name(const char *name, uint32_t no, char *buf, size_t cap, fc_err *err);
/* Joins the parts of a split model (parts[0] the first, already opened and
 * validated) into parts[0]: its metadata, every part's tensors (each with its
 * part index), size = all parts. Takes ownership of the parts. */
int gguf_join_splits(gguf_file **parts, uint32_t n, fc_err *err);

/* ---- a GGUF by URL, header only (model/http.c, model/gguf_url.c) -----------
 * A model is planned from its header, so a 40 GB file by URL costs a few
 * hundred KiB: HTTP range requests (libcurl) read the first bytes and grow the
 * range until the header parses. Every reply is checked against what was
 * asked (status 206, Content-Range, Content-Length, the body's length). */
#define GGUF_URL_FIRST_BYTES (256u << 10)  /* SmolLM2's header is ~1.6 MiB, Gemma 3's ~4.6 MiB */
#define GGUF_URL_HEADER_MAX (128u << 20)   /* a header past this is refused: the largest vocabularies
                                              (256k tokens with merges) take ~10 MiB */
#define HTTP_MAX_REDIRECTS 10   /* Hugging Face's resolve/ URLs take 1-2 (to the CDN) */
#define HTTP_TIMEOUT_S 120      /* all requests for one file; FITCHECK_HTTP_TIMEOUT_S overrides */
#define HTTP_CONNECT_TIMEOUT_S 30
#define HTTP_LOW_SPEED_BYTES 1024  /* a transfer below this many bytes/s ... */
#define HTTP_LOW_SPEED_S 30        /* ... for this many seconds is a stalled server */

/* What a reply's header lines said (the last response, after redirects). */
typedef struct http_reply {
    int status;                 /* 0 until a status line was seen */
    bool has_range, total_known, has_length;
    uint64_t first, last, total; /* Content-Range: bytes first-last/total */
    uint64_t length;             /* Content-Length */
    char bad[128];               /* the first header line it could not accept, if any */
} http_reply;

void http_reply_reset(http_reply *r);
/* One header line as received ("HTTP/1.1 206 Partial Content\r\n",
 * "Content-Range: bytes 0-9/100\r\n"). A status line starts a new response
 * (a redirect's headers come first). Malformed or repeated range headers are
 * remembered in r->bad. */
void http_reply_line(http_reply *r, const char *line, size_t len);
/* Checks a finished reply against the request for [off, off+len) and the
 * `got` body bytes received: FC_EINPUT naming url and what was wrong. */
int http_reply_check(const http_reply *r, uint64_t off, uint64_t len, uint64_t got, const char *url, fc_err *err);

bool http_is_url(const char *spec);
typedef struct http_conn http_conn;
/* A connection for range reads of url, all of them due by now + timeout. */
int http_conn_open(http_conn **out, const char *url, fc_err *err);
void http_conn_close(http_conn *c);
/* Reads bytes [off, off+len) into buf; *got bytes arrive (fewer only at the
 * end of the file), *total is the file's size. */
int http_conn_read(http_conn *c, uint64_t off, uint64_t len, uint8_t *buf, uint64_t *got, uint64_t *total,
                   fc_err *err);

/* The header of a GGUF by URL. */
int gguf_open_url(gguf_file **out, const char *url, fc_err *err);
/* A model's GGUF by path or URL; a split model through all its parts, joined. */
int gguf_open_model(gguf_file **out, const char *spec, fc_err *err);

const gguf_kv *gguf_find(const gguf_file *f, const char *key);
const gguf_tensor *gguf_find_tensor(const gguf_file *f, const char *name);
const char *gguf_vtype_name(uint32_t type);

/* Typed getters: true if the key exists with a compatible type. Integer
 * getters accept every integer type (and bool), range-checked. */
bool gguf_get_i64(const gguf_file *f, const char *key, int64_t *out);
bool gguf_get_f64(const gguf_file *f, const char *key, double *out);
bool gguf_get_bool(const gguf_file *f, const char *key, bool *out);
/* Copies a string value into buf (truncated, NUL-terminated). */
bool gguf_get_str(const gguf_file *f, const char *key, char *buf, size_t cap);

/* Array access. Element i of a numeric array (any int or float type). */
bool gguf_arr_i64(const gguf_file *f, const gguf_kv *kv, uint64_t i, int64_t *out);
bool gguf_arr_f64(const gguf_file *f, const gguf_kv *kv, uint64_t i, double *out);
/* Fills out[0..n) with the strings of a string array (pointers into the map). */
int gguf_arr_strings(const gguf_file *f, const gguf_kv *kv, gguf_str *out, fc_err *err);

/* ---- GGUF writer ----------------------------------------------------------
 * Builds a GGUF v3 file: metadata and tensor infos are kept in memory, tensor
 * data is either borrowed from the caller or produced by a callback while
 * writing, so multi-gigabyte files stream without being held in memory.
 * Used by `fitcheck gen` and by the tests to build fixtures. */

typedef struct gguf_writer gguf_writer;
/* Produces the bytes of tensor `index` into buf (exactly `bytes` long). */
typedef int (*gguf_fill_fn)(void *ctx, uint32_t index, void *buf, uint64_t bytes, fc_err *err);

gguf_writer *gguf_writer_new(uint32_t alignment);
void gguf_writer_free(gguf_writer *w);
void gguf_writer_u32(gguf_writer *w, const char *key, uint32_t v);
void gguf_writer_i32(gguf_writer *w, const char *key, int32_t v);
void gguf_writer_u64(gguf_writer *w, const char *key, uint64_t v);
void gguf_writer_f32(gguf_writer *w, const char *key, float v);
void gguf_writer_bool(gguf_writer *w, const char *key, bool v);
void gguf_writer_str(gguf_writer *w, const char *key, const char *v);
void gguf_writer_arr_str(gguf_writer *w, const char *key, const char *const *v, uint64_t n);
void gguf_writer_arr_f32(gguf_writer *w, const char *key, const float *v, uint64_t n);
void gguf_writer_arr_i32(gguf_writer *w, const char *key, const int32_t *v, uint64_t n);
/* A raw value: the type id followed by `len` bytes exactly as given (tests). */
void gguf_writer_raw(gguf_writer *w, const char *key, uint32_t type, const void *bytes, uint64_t len);
/* data may be NULL: the fill callback given to gguf_writer_write produces it. */
int gguf_writer_tensor(gguf_writer *w, const char *name, uint32_t type, uint32_t n_dims, const int64_t *ne,
                       const void *data, fc_err *err);
/* Bytes gguf_writer_write will produce (header, metadata, aligned data). */
int gguf_writer_size(gguf_writer *w, uint64_t *bytes, fc_err *err);
/* Writes the whole file to fp. */
int gguf_writer_write(gguf_writer *w, FILE *fp, gguf_fill_fn fill, void *ctx, fc_err *err);
/* Writes to memory (tests): *out is malloc'd. */
int gguf_writer_to_buffer(gguf_writer *w, uint8_t **out, uint64_t *len, fc_err *err);

/* ---- hyperparameters ---------------------------------------------------- */

#define MODEL_MAX_LAYERS 1024
#define MODEL_ARCH_MAX 32

enum model_rope_type { MODEL_ROPE_NORM = 0, MODEL_ROPE_NEOX = 2 };
enum model_tokenizer { MODEL_TOK_NONE = 0, MODEL_TOK_SPM, MODEL_TOK_BPE, MODEL_TOK_OTHER };

typedef struct model_hparams {
    char arch[MODEL_ARCH_MAX];     /* llama, qwen2, qwen3, qwen3moe, gemma3, deepseek2, gpt-oss, ... */
    char name[128];
    uint32_t n_layer;
    uint32_t n_embd;
    uint32_t n_head;
    uint32_t n_head_kv[MODEL_MAX_LAYERS]; /* per layer: some models vary it */
    uint32_t n_ff[MODEL_MAX_LAYERS];      /* dense FFN width per layer (0 on MoE layers) */
    uint32_t head_dim_k;                  /* key/query head size; not always n_embd/n_head */
    uint32_t head_dim_v;
    uint32_t n_rot;                       /* rotary dimensions */
    uint32_t n_vocab;
    uint32_t n_ctx_train;
    /* mixture of experts */
    uint32_t n_expert, n_expert_used, n_ff_exp;
    uint32_t n_expert_shared, n_ff_shexp;
    uint32_t n_layer_dense_lead;          /* leading dense layers before the MoE ones */
    /* attention layout */
    uint32_t sliding_window;              /* 0 = none */
    uint8_t swa_layer[MODEL_MAX_LAYERS];  /* 1 = this layer uses the sliding window */
    /* multi-head latent attention (DeepSeek-V2/V3) */
    uint32_t kv_lora_rank, q_lora_rank;
    float rope_freq_base, rope_freq_base_swa, norm_eps;
    int rope_type;
    bool tied_embeddings;                 /* no output.weight: token_embd is reused */
    bool attn_bias;                       /* Q/K/V biases (qwen2) */
    bool qk_norm;                         /* per-head RMSNorm on Q and K (qwen3, gemma3) */
    int tokenizer;                        /* enum model_tokenizer */
    uint32_t file_type;                   /* general.file_type (llama_ftype), 0 if unknown */
} model_hparams;

/* Reads hyperparameters from GGUF metadata. Accepts any integer type and
 * per-layer arrays; validates ranges (no zero heads, no NaN). */
int model_hparams_from_gguf(model_hparams *hp, const gguf_file *f, fc_err *err);
/* Sanity-checks hyperparameters from any source (GGUF, config.json, catalog). */
int model_hparams_validate(const model_hparams *hp, fc_err *err);
/* Key/value elements cached per token in layer il (sum over KV heads). */
uint64_t model_hparams_kv_k_elems(const model_hparams *hp, uint32_t il);
uint64_t model_hparams_kv_v_elems(const model_hparams *hp, uint32_t il);
/* K and V elements cached per token over all layers, before any
 * sliding-window cap (the KV bytes per token at f16 is twice this). */
uint64_t model_hparams_kv_elems_per_token(const model_hparams *hp);

/* ---- model description -------------------------------------------------- */

/* What a tensor is for, so quantization mixes and placement can reason about it. */
enum model_role {
    ROLE_OTHER = 0, ROLE_TOKEN_EMBD, ROLE_OUTPUT, ROLE_OUTPUT_NORM, ROLE_NORM,
    ROLE_ATTN_Q, ROLE_ATTN_K, ROLE_ATTN_V, ROLE_ATTN_QKV, ROLE_ATTN_OUT, ROLE_ATTN_BIAS,
    ROLE_FFN_GATE, ROLE_FFN_UP, ROLE_FFN_DOWN, ROLE_FFN_GATE_INP,
    ROLE_FFN_GATE_EXPS, ROLE_FFN_UP_EXPS, ROLE_FFN_DOWN_EXPS,
    ROLE_FFN_GATE_SHEXP, ROLE_FFN_UP_SHEXP, ROLE_FFN_DOWN_SHEXP,
    ROLE_ATTN_MLA, /* DeepSeek's low-rank attention projections */
    ROLE_COUNT
};

typedef struct model_tensor {
    char name[GGUF_NAME_MAX];
    uint32_t n_dims;
    int64_t ne[GGUF_MAX_DIMS];
    uint32_t type;
    uint64_t bytes;
    int32_t layer;    /* -1 for tensors outside the blocks */
    int role;         /* enum model_role */
    uint64_t offset;  /* in the GGUF data section (has_offsets): what a mapping spans */
} model_tensor;

typedef struct model_desc {
    model_hparams hp;
    model_tensor *tensors;
    uint32_t n_tensors;
    uint64_t n_params;
    uint64_t weight_bytes;
    uint64_t file_bytes;  /* whole file when read from GGUF, else estimated */
    bool has_offsets;     /* read from a GGUF: tensor offsets known (not a synthesized table) */
    char source[4096];    /* path, or "catalog:NAME", or config.json path */
    char file[4096];      /* the GGUF read (an ollama blob's path), kept after a --quant re-emulation; "" if none */
} model_desc;

/* Tensor role and layer from a GGUF tensor name ("blk.12.ffn_down.weight"). */
int model_tensor_role(const char *name, int32_t *layer);
const char *model_role_name(int role);

int model_desc_from_gguf(model_desc *d, const gguf_file *f, fc_err *err);
/* The model as llama-bench's model_type names it ("llama 8B Q4_K - Medium",
 * model/bench_desc.c); ftype_fallback when hp records no known file type. */
void model_bench_desc(const model_hparams *hp, uint64_t n_params, const char *ftype_fallback, char *buf, size_t cap);
void model_desc_free(model_desc *d);

/* What a GGUF holds, summed (model/summary.c): the figures `fitcheck
 * inspect` renders (reports/inspect_*.c, docs/schema-inspect.md). */
typedef struct model_type_total {
    uint64_t bytes, elements;
    uint32_t count;
} model_type_total;
typedef struct model_summary {
    model_type_total types[GGML_TYPE_COUNT];   /* per ggml type */
    uint32_t mix[ROLE_COUNT][GGML_TYPE_COUNT]; /* tensors per (role, type) */
    uint8_t layers[ROLE_COUNT][GGML_TYPE_COUNT][MODEL_MAX_LAYERS / 8]; /* bit set: layers holding (role, type) */
    double bits_per_weight;                    /* weight bits over parameters */
    uint64_t kv_bytes_per_token_f16;
    uint32_t n_swa_layers;                     /* layers on the sliding window */
    bool has_file_type;
    int64_t file_type;                         /* general.file_type when has_file_type */
    uint32_t n_splits;                         /* parts, 1 when not split */
    uint64_t header_bytes_fetched;             /* read over HTTP (all parts); 0 for local files */
} model_summary;
/* f is the file d was read from (model_desc_from_gguf: tensors in the same order). */
void model_summary_make(model_summary *s, const gguf_file *f, const model_desc *d);
bool model_summary_has_layer(const model_summary *s, int role, uint32_t type, uint32_t layer);

/* ---- models that have not been downloaded ---------------------------------
 * config_json.c: a Hugging Face config.json -> hyperparameters (llama.cpp's
 * architecture names and conventions); catalog.c: the built-in catalog
 * (config.json-style files in data/models/, embedded) and model_load, the one
 * entry point for all three sources; quantmix.c: llama.cpp's converter tensor
 * table and its quantizer's per-tensor type choice. */

#define MODEL_CONFIG_MAX_BYTES (16u << 20) /* a config.json is a few KiB */
#define MODEL_DEFAULT_QUANT "Q4_K_M"

/* Parses config.json text. `where` names the file in messages. Wrong types,
 * NaN, negative or absurd sizes -> FC_EINPUT naming the key. */
int model_hparams_from_config_json(model_hparams *hp, const char *text, size_t len, const char *where, fc_err *err);
/* A config.json file, or a directory holding one. */
int model_hparams_from_config_path(model_hparams *hp, const char *path, fc_err *err);

typedef struct model_catalog_info {
    char name[64];        /* "llama-3.1-8b" */
    char display[64];     /* "Llama-3.1-8B" */
    char hf_repo[128];
    char confidence[32];
    char source[512];     /* where the hyperparameters were read */
    uint64_t params_reference, active_params_reference; /* from the source, 0 if unknown */
} model_catalog_info;

size_t model_catalog_count(void);
/* Entry i (in name order); hp may be NULL. */
int model_catalog_get(size_t i, model_catalog_info *info, model_hparams *hp, fc_err *err);
/* By name, case-insensitive; FC_EINPUT listing near names if unknown. */
int model_catalog_find(const char *name, model_catalog_info *info, model_hparams *hp, fc_err *err);
/* The catalog as `fitcheck models` lists it (model/summary.c): each entry
 * with the sizes of its MODEL_DEFAULT_QUANT file as synthesized. */
typedef struct model_catalog_summary {
    model_catalog_info info;
    char arch[MODEL_ARCH_MAX];
    uint32_t n_layer, n_expert, n_ctx_train;
    uint64_t n_params, file_bytes, kv_bytes_per_token_f16;
} model_catalog_summary;
/* Every entry in name order (*out malloc'd, n entries). */
int model_catalog_summaries(model_catalog_summary **out, size_t *n, fc_err *err);

/* One row of llama.cpp's file types (llama_ftype). */
typedef struct model_ftype_info {
    const char *name;     /* "Q4_K_M" */
    uint32_t id;          /* llama_ftype, written as general.file_type */
    uint32_t base_type;   /* the ggml type most weights get */
    bool imatrix;         /* published files of this type are made with an importance matrix */
    const char *bench;    /* as llama-bench's model_type writes it (llama_ftype_name): "Q4_K - Medium" */
} model_ftype_info;

const model_ftype_info *model_ftype_find(const char *name); /* case-insensitive; NULL if unknown */
const model_ftype_info *model_ftype_by_id(uint32_t id);
const model_ftype_info *model_ftype_at(size_t i);         /* NULL past the end */
/* The type a model is released in when that is not F16/BF16 ("MXFP4_MOE"
 * for gpt-oss), else NULL. It is also model_load's default for it. */
const char *model_native_quant(const model_hparams *hp);

/* Builds the tensor table llama.cpp's converter writes for hp's architecture,
 * with the types llama-quantize picks for ftype ("Q4_K_M", "F16", ...).
 * file_bytes estimates the GGUF size (tensors aligned + metadata). */
int model_desc_synthesize(model_desc *d, const model_hparams *hp, const char *ftype, fc_err *err);

/* ---- models already on disk (model/stores.c) -------------------------------
 * ollama's store, LM Studio's folders, the Hugging Face hub cache, llama.cpp's
 * download cache and any --models-dir (stores.c says where each lives). */
enum model_store { STORE_OLLAMA = 0, STORE_LMSTUDIO, STORE_HF, STORE_LLAMACPP, STORE_DIR, STORE_COUNT };
typedef struct model_found {
    int store;           /* enum model_store */
    char name[4096];     /* as the store calls it: "llama3.2:1b", "ORG/REPO FILE.gguf" */
    char spec[4096];     /* what `fitcheck plan` takes: "ollama:NAME:TAG" or the path */
    char path[4096];     /* the GGUF (an ollama blob); empty when broken */
    char real[4096];     /* path with its folder's links resolved: a file reached twice is listed once */
    uint64_t bytes;
    char error[FC_ERR_MSG_MAX]; /* why an entry of the store cannot be used */
} model_found;
const char *model_store_name(int store);
/* Every model found (*out malloc'd, n entries); a broken entry carries its error. */
int model_stores_scan(const char *models_dir, model_found **out, size_t *n, fc_err *err);
/* An ollama manifest's model layer: its sha256 (64 hex digits) and size. */
int ollama_manifest_parse(const char *text, size_t len, const char *where, char *hex, uint64_t *size, fc_err *err);
/* "ollama:NAME[:TAG]" -> the path of its GGUF blob ($OLLAMA_MODELS or ~/.ollama/models). */
int ollama_resolve(const char *spec, char *path, size_t cap, fc_err *err);

/* The one entry point: spec is a GGUF path or http(s) URL (a split model's
 * parts are followed), ollama:NAME[:TAG], a config.json (or a directory with one) or a catalog name. quant NULL = the file's own types for a GGUF,
 * MODEL_DEFAULT_QUANT otherwise; a quant given with a GGUF re-emulates the
 * file at that type. */
int model_load(model_desc *d, const char *spec, const char *quant, fc_err *err);

/* ---- what loads next to a model (model/extras.c) -------------------------- */

#define MODEL_CLIP_IMAGE_MAX 8192  /* clip.cpp refuses larger image_size (int32 patch counts) */

/* A vision projector (llama.cpp --mmproj): general.architecture "clip" with
 * a vision encoder, read as tools/mtmd/clip.cpp reads it. */
typedef struct model_mmproj {
    char path[4096];
    char projector[32];          /* clip.projector_type: idefics3, gemma3, mlp, ... */
    uint32_t image_size, patch_size, n_embd, n_ff, n_layer, n_head, proj_dim;
    uint32_t scale_factor;       /* clip.vision.projector.scale_factor (pixel shuffle), 1 = none */
    bool class_token;            /* v.class_embd: one more position than patches */
    uint64_t proj_in, proj_out;  /* widest mm.* matrix: input and output width */
    uint64_t weight_bytes, file_bytes;
    uint32_t n_tensors;
} model_mmproj;
/* FC_EINPUT naming the file for anything clip.cpp would refuse, a file
 * that is not a projector, a truncated file. */
int model_mmproj_load(model_mmproj *m, const char *path, fc_err *err);

/* A LoRA adapter (llama.cpp --lora), checked against its base model as
 * llama-adapter.cpp checks it; its bytes by where their base tensors are. */
typedef struct model_lora {
    char path[4096];
    uint64_t bytes;                          /* all pairs */
    uint64_t layer_bytes[MODEL_MAX_LAYERS];  /* pairs adapting layer il's tensors */
    uint64_t embd_bytes, out_bytes;          /* token_embd's pair; the output's and other non-layer ones */
    uint32_t n_pairs, rank;
    float alpha;
} model_lora;
int model_lora_load(model_lora *l, const char *path, const model_desc *base, fc_err *err);

#endif

/* The packed weight layout (quant.h): pack and unpack 8 rows, and the scalar
 * reference dot product over packed groups.
 *
 * Packing works through integers: a block is unpacked to its weights' small
 * integers (the same unpack the scalar kernels use), which are then placed
 * granule by granule; unpacking writes the original block back bit for bit,
 * which the tests check. The reference dot unpacks each row's block and runs
 * the scalar row-major kernel on it, so packed and row-major results can only
 * differ by the order of float additions. */
#include "engine/quant.h"

/* Nibble vectors of 32 weights of 8 rows: q[r][e], values 0..15. */
static void put_nibbles(uint8_t qs[128], int r, const int8_t *q) {
    for (int v = 0; v < 4; v++)
        for (int b = 0; b < 4; b++)
            qs[32 * v + 4 * r + b] = (uint8_t)((q[8 * v + b] & 0xF) | (q[8 * v + 4 + b] << 4));
}
static void get_nibbles(const uint8_t qs[128], int r, int8_t *q) {
    for (int v = 0; v < 4; v++)
        for (int b = 0; b < 4; b++) {
            uint8_t x = qs[32 * v + 4 * r + b];
            q[8 * v + b] = (int8_t)(x & 0xF);
            q[8 * v + 4 + b] = (int8_t)(x >> 4);
        }
}

/* ---- Q4_0 ------------------------------------------------------------------ */

static void pack1_q4_0(const blk_q4_0 *const src[8], pk_q4_0 *g) {
    for (int r = 0; r < 8; r++) {
        int8_t q[32];
        for (int j = 0; j < 16; j++) {
            q[j] = (int8_t)(src[r]->qs[j] & 0xF);
            q[j + 16] = (int8_t)(src[r]->qs[j] >> 4);
        }
        g->d[r] = src[r]->d;
        put_nibbles(g->qs, r, q);
    }
}
static void unpack1_q4_0(const pk_q4_0 *g, int r, blk_q4_0 *b) {
    int8_t q[32];
    get_nibbles(g->qs, r, q);
    b->d = g->d[r];
    for (int j = 0; j < 16; j++) b->qs[j] = (uint8_t)(q[j] | (q[j + 16] << 4));
}

/* ---- Q8_0 ------------------------------------------------------------------ */

static void pack1_q8_0(const blk_q8_0 *const src[8], pk_q8_0 *g) {
    for (int r = 0; r < 8; r++) {
        g->d[r] = src[r]->d;
        for (int e = 0; e < 32; e++) g->qs[32 * (e / 4) + 4 * r + e % 4] = src[r]->qs[e];
    }
}
static void unpack1_q8_0(const pk_q8_0 *g, int r, blk_q8_0 *b) {
    b->d = g->d[r];
    for (int e = 0; e < 32; e++) b->qs[e] = g->qs[32 * (e / 4) + 4 * r + e % 4];
}

/* ---- Q4_K ------------------------------------------------------------------ */

static void pack1_q4_K(const blk_q4_K *const src[8], pk_q4_K *g) {
    for (int r = 0; r < 8; r++) {
        const blk_q4_K *x = src[r];
        g->d[r] = x->d;
        g->dmin[r] = x->dmin;
        for (int j = 0; j < 8; j++) q4k_scale_min(x->scales, j, &g->sub[j].sc[r], &g->sub[j].m[r]);
        for (int c = 0; c < 4; c++) {
            int8_t lo[32], hi[32];
            for (int l = 0; l < 32; l++) {
                lo[l] = (int8_t)(x->qs[32 * c + l] & 0xF);
                hi[l] = (int8_t)(x->qs[32 * c + l] >> 4);
            }
            put_nibbles(g->sub[2 * c].qs, r, lo);
            put_nibbles(g->sub[2 * c + 1].qs, r, hi);
        }
    }
}
/* The inverse of q4k_scale_min for all eight sub-blocks. */
static void unpack1_q4_K(const pk_q4_K *g, int r, blk_q4_K *x) {
    x->d = g->d[r];
    x->dmin = g->dmin[r];
    for (int j = 0; j < 4; j++) {
        uint8_t sl = g->sub[j].sc[r], ml = g->sub[j].m[r], sh = g->sub[j + 4].sc[r], mh = g->sub[j + 4].m[r];
        x->scales[j] = (uint8_t)(sl | (sh >> 4) << 6);
        x->scales[j + 4] = (uint8_t)(ml | (mh >> 4) << 6);
        x->scales[j + 8] = (uint8_t)((sh & 0xF) | (mh & 0xF) << 4);
    }
    for (int c = 0; c < 4; c++) {
        int8_t lo[32], hi[32];
        get_nibbles(g->sub[2 * c].qs, r, lo);
        get_nibbles(g->sub[2 * c + 1].qs, r, hi);
        for (int l = 0; l < 32; l++) x->qs[32 * c + l] = (uint8_t)(lo[l] | hi[l] << 4);
    }
}

/* ---- Q6_K ------------------------------------------------------------------ */

/* Weight e (0..255) of a Q6_K block, 0..63: see unpack_q6_K in quant.c. */
static int q6_at(const blk_q6_K *x, int e) {
    int c = e / 128, gg = (e % 128) / 32, l = e % 32;
    uint8_t lo = x->ql[64 * c + 32 * (gg & 1) + l];
    lo = gg >= 2 ? lo >> 4 : lo & 0xF;
    return lo | (((x->qh[32 * c + l] >> (2 * gg)) & 3) << 4);
}
static void q6_set(blk_q6_K *x, int e, int q) {
    int c = e / 128, gg = (e % 128) / 32, l = e % 32;
    uint8_t *lo = &x->ql[64 * c + 32 * (gg & 1) + l], *hi = &x->qh[32 * c + l];
    *lo = gg >= 2 ? (uint8_t)((*lo & 0x0F) | (q & 0xF) << 4) : (uint8_t)((*lo & 0xF0) | (q & 0xF));
    *hi = (uint8_t)((*hi & ~(3 << (2 * gg))) | ((q >> 4) & 3) << (2 * gg));
}

static void pack1_q6_K(const blk_q6_K *const src[8], pk_q6_K *g) {
    for (int j = 0; j < 8; j++) memset(g->sub[j].qh, 0, sizeof g->sub[j].qh);
    for (int r = 0; r < 8; r++) {
        const blk_q6_K *x = src[r];
        g->d[r] = x->d;
        for (int h = 0; h < 16; h++) g->sub[h / 2].sc[h % 2][r] = x->scales[h];
        for (int j = 0; j < 8; j++) {
            int8_t q[32];
            for (int e = 0; e < 32; e++) q[e] = (int8_t)q6_at(x, 32 * j + e);
            put_nibbles(g->sub[j].ql, r, q);
            for (int e = 0; e < 32; e++) {
                int gr = e / 4, u = gr / 4, k = gr % 4, b = e % 4;
                g->sub[j].qh[32 * u + 4 * r + b] |= (uint8_t)(((q[e] >> 4) & 3) << (2 * k));
            }
        }
    }
}
static void unpack1_q6_K(const pk_q6_K *g, int r, blk_q6_K *x) {
    memset(x, 0, sizeof *x);
    x->d = g->d[r];
    for (int h = 0; h < 16; h++) x->scales[h] = g->sub[h / 2].sc[h % 2][r];
    for (int j = 0; j < 8; j++) {
        int8_t q[32];
        get_nibbles(g->sub[j].ql, r, q);
        for (int e = 0; e < 32; e++) {
            int gr = e / 4, u = gr / 4, k = gr % 4, b = e % 4;
            q6_set(x, 32 * j + e, q[e] | ((g->sub[j].qh[32 * u + 4 * r + b] >> (2 * k)) & 3) << 4);
        }
    }
}

/* ---- one set of entry points per type ---------------------------------------- */

#define DEFINE_PACK(T, ID, PK_SCALE)                                                                              \
    void eng_pack_##T(const uint8_t *rows, size_t row_bytes, void *group, int64_t n_blocks) {                \
        for (int64_t ib = 0; ib < n_blocks; ib++) {                                                          \
            const blk_##T *src[8];                                                                           \
            for (int r = 0; r < 8; r++) src[r] = (const blk_##T *)(rows + r * row_bytes) + ib;               \
            pack1_##T(src, (pk_##T *)group + ib);                                                            \
        }                                                                                                    \
    }                                                                                                        \
    void eng_unpack_##T(const void *group, int r, uint8_t *row, int64_t n_blocks) {                          \
        for (int64_t ib = 0; ib < n_blocks; ib++) unpack1_##T((const pk_##T *)group + ib, r, (blk_##T *)row + ib); \
    }                                                                                                        \
    void eng_packed_dot_##T(int64_t n, const void *group, const void *act, size_t as, int nt, float *out,   \
                            size_t os) {                                                                     \
        const eng_vec_dot_fn dot = eng_kernels_get(ENG_ISA_SCALAR)->type[ID].vec_dot;                       \
        for (int r = 0; r < 8; r++)                                                                          \
            for (int t = 0; t < nt; t++) out[t * os + r] = 0.0f;                                            \
        for (int64_t ib = 0; ib < n / ENG_BLCK_##T; ib++)                                                           \
            for (int r = 0; r < 8; r++) {                                                                    \
                blk_##T b;                                                                                   \
                unpack1_##T((const pk_##T *)group + ib, r, &b);                                              \
                for (int t = 0; t < nt; t++) {                                                               \
                    float o;                                                                                 \
                    const uint8_t *a = (const uint8_t *)act + t * as + ib * (ENG_BLCK_##T / 32) * sizeof(eng_q8a); \
                    dot(ENG_BLCK_##T, &b, a, as, 1, &o, 1);                                                        \
                    out[t * os + r] += o;                                                                    \
                }                                                                                            \
            }                                                                                                \
    }
ENG_PACKED_TYPES(DEFINE_PACK)

/* Quality loss per quantization type, per model family (data/quality.csv),
 * and which family a model belongs to and borrows from for the types its
 * family has no figures for (data/quality_families.csv).
 *
 * A borrowed figure is scaled to the family: by the geometric mean of
 * own/borrowed over the types both have. Families differ mostly in how much
 * they lose, not in the order of the types (Llama 3 loses ~5x what Mistral
 * 7B does at every type both tables list), so a raw borrowed figure next to
 * an own one would misorder them: Mistral's own Q4_K_M (+0.59%) would rank
 * above a raw borrowed Q5_K_M (+1.23%, Llama 3). */
#include "planner/planner.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define QUALITY_LINE_MAX 512
#define QUALITY_FIELDS 6           /* family,quant,ppl_pct,kld,top_pct,source */
#define FAMILY_FIELDS 4            /* family,match,borrow,why */
#define QUALITY_ROWS_MAX 256
#define QUALITY_FAMILIES_MAX 32
#define QUALITY_BORROW_DEPTH 4     /* a chain of borrows longer than this is a loop in the data */
#define NAME_KEY_MAX 160
#define FAMILY_NAME_MAX 32
#define QUANT_NAME_MAX 16

typedef struct qrow {
    char family[FAMILY_NAME_MAX], quant[QUANT_NAME_MAX];
    double ppl, kld;               /* -1 = not published */
} qrow;

typedef struct qfam {
    char family[FAMILY_NAME_MAX], match[128], borrow[FAMILY_NAME_MAX];
} qfam;

typedef struct qtable {
    qrow row[QUALITY_ROWS_MAX];
    int n_row;
    qfam fam[QUALITY_FAMILIES_MAX];
    int n_fam;
} qtable;

/* Lower-case letters and digits only: "Meta-Llama-3.1-8B" -> "metallama318b". */
static void name_key(const char *s, char *out, size_t cap) {
    size_t n = 0;
    for (; *s && n + 1 < cap; s++)
        if (isalnum((unsigned char)*s)) out[n++] = (char)tolower((unsigned char)*s);
    out[n] = '\0';
}

/* The data lines of a built-in CSV (comments and the header skipped) into fn. */
static void csv_each(const char *name, int n_field, int n_min, void (*fn)(qtable *, char **), qtable *t) {
    const char *cur = plan_data_file(name);
    char line[QUALITY_LINE_MAX];
    bool header = false;
    while (cur && plan_csv_data_line(&cur, line, sizeof line, &header)) {
        char *f[QUALITY_FIELDS];
        if (plan_csv_fields(line, f, n_field) >= n_min) fn(t, f);
    }
}

static void add_row(qtable *t, char **f) {
    if (t->n_row >= QUALITY_ROWS_MAX) return;
    qrow *r = &t->row[t->n_row++];
    snprintf(r->family, sizeof r->family, "%s", f[0]);
    snprintf(r->quant, sizeof r->quant, "%s", f[1]);
    r->ppl = f[2][0] ? strtod(f[2], NULL) : -1;
    r->kld = f[3][0] ? strtod(f[3], NULL) : -1;
}

static void add_family(qtable *t, char **f) {
    if (t->n_fam >= QUALITY_FAMILIES_MAX) return;
    qfam *q = &t->fam[t->n_fam++];
    snprintf(q->family, sizeof q->family, "%s", f[0]);
    snprintf(q->match, sizeof q->match, "%s", f[1]);
    snprintf(q->borrow, sizeof q->borrow, "%s", f[2]);
}

static int family_index(const qtable *t, const char *name) {
    for (int i = 0; i < t->n_fam; i++)
        if (!strcasecmp(t->fam[i].family, name)) return i;
    return -1;
}

/* The family of a model by name; -1 for NULL or no match. */
static int family_of(const qtable *t, const model_hparams *hp) {
    char name[NAME_KEY_MAX];
    name_key(hp ? hp->name : "", name, sizeof name);
    for (int i = 0; i < t->n_fam && name[0]; i++) {
        char keys[sizeof t->fam[i].match], *save = NULL;
        snprintf(keys, sizeof keys, "%s", t->fam[i].match);
        for (char *k = strtok_r(keys, "|", &save); k; k = strtok_r(NULL, "|", &save))
            if (k[0] && strstr(name, k)) return i;
    }
    return -1;
}

static int family_root(const qtable *t) {
    for (int i = 0; i < t->n_fam; i++)
        if (!t->fam[i].borrow[0]) return i;
    return -1;
}

static const qrow *own_row(const qtable *t, int fam, const char *quant) {
    for (int i = 0; i < t->n_row; i++)
        if (!strcasecmp(t->row[i].family, t->fam[fam].family) && !strcasecmp(t->row[i].quant, quant))
            return &t->row[i];
    return NULL;
}

static bool lookup(const qtable *t, int fam, const char *quant, int depth, plan_quality_info *q);

/* own/borrowed over the types both publish, as a geometric mean: perplexity
 * increases where any type has both, else KL divergences; 1 when nothing is
 * shared (a family with no figures borrows them unchanged). */
static double family_scale(const qtable *t, int fam, int from, int depth) {
    for (int kld = 0; kld <= 1; kld++) {
        double sum = 0;
        int n = 0;
        for (int i = 0; i < t->n_row; i++) {
            const qrow *r = &t->row[i];
            double own = kld ? r->kld : r->ppl;
            plan_quality_info b;
            if (strcasecmp(r->family, t->fam[fam].family) || own <= 0) continue;
            if (!lookup(t, from, r->quant, depth + 1, &b)) continue;
            double other = kld ? b.kld : b.ppl_pct;
            if (other <= 0) continue;
            sum += log(own / other);
            n++;
        }
        if (n) return exp(sum / n);
    }
    return 1;
}

static bool lookup(const qtable *t, int fam, const char *quant, int depth, plan_quality_info *q) {
    const qrow *own = own_row(t, fam, quant);
    memset(q, 0, sizeof *q);
    q->ppl_pct = q->kld = -1;
    q->scale = 1;
    if (own) {
        q->ppl_pct = own->ppl;
        q->kld = own->kld;
        snprintf(q->family, sizeof q->family, "%s", own->family);
        if (own->ppl >= 0) return true; /* the perplexity ranks the choice: a row without one borrows it */
    }
    int from = family_index(t, t->fam[fam].borrow);
    plan_quality_info b;
    if (from < 0 || from == fam || depth >= QUALITY_BORROW_DEPTH || !lookup(t, from, quant, depth + 1, &b))
        return own != NULL;
    if (b.ppl_pct == 0 && b.kld == 0) {
        /* F16/BF16: the reference every family's figures are measured against */
        *q = b;
        snprintf(q->family, sizeof q->family, "%s", t->fam[fam].family);
        return true;
    }
    double s = family_scale(t, fam, from, depth);
    q->ppl_pct = b.ppl_pct >= 0 ? b.ppl_pct * s : -1;
    if (!own || own->kld < 0) q->kld = b.kld >= 0 ? b.kld * s : -1;
    snprintf(q->family, sizeof q->family, "%s", b.family);
    q->scale = b.scale * s;
    return true;
}

static qtable *table_load(void) {
    qtable *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    csv_each("quality.csv", QUALITY_FIELDS, 4, add_row, t);
    csv_each("quality_families.csv", FAMILY_FIELDS, 3, add_family, t);
    return t;
}

int plan_quality(const model_hparams *hp, const char *ftype, plan_quality_info *q) {
    memset(q, 0, sizeof *q);
    q->ppl_pct = q->kld = -1;
    q->scale = 1;
    qtable *t = table_load();
    int fam = t ? family_of(t, hp) : -1;
    bool known = fam >= 0;
    if (!known && t) fam = family_root(t); /* no family of its own: the reference, unscaled */
    bool found = fam >= 0 && lookup(t, fam, ftype, 0, q);
    if (found) {
        snprintf(q->model_family, sizeof q->model_family, "%s", known ? t->fam[fam].family : "this model");
        q->borrowed = hp && (!known || strcasecmp(q->family, t->fam[fam].family));
    }
    free(t);
    return found ? FC_OK : FC_EINPUT;
}

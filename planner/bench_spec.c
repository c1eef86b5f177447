/* llama-bench's tests as fitcheck names and predicts them: -p N is "ppN",
 * -n N "tgN", -pg P,N "ppP+tgN", and -d D appends "@dD" (llama-bench prints
 * "pp512 @ d4096"; the spaces are accepted too). One parser for the corpus,
 * `plan --bench` and the fuzz target; one predictor for every verb. */
#include "planner/planner.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* One number of a test name: 1..PLAN_BENCH_MAX_TOKENS (0.. for a depth). */
static const char *bench_num(const char *p, int lo, int *out) {
    if (!isdigit((unsigned char)*p)) return NULL;
    long v = 0;
    while (isdigit((unsigned char)*p)) {
        v = v * 10 + (*p++ - '0');
        if (v > PLAN_BENCH_MAX_TOKENS) return NULL;
    }
    if (v < lo) return NULL;
    *out = (int)v;
    return p;
}

int plan_bench_test_parse(const char *s, plan_bench_test *t) {
    memset(t, 0, sizeof *t);
    const char *p = s;
    if (!strncmp(p, "pp", 2)) {
        if (!(p = bench_num(p + 2, 1, &t->n_prompt))) return FC_EINPUT;
        if (*p == '+') {
            if (strncmp(p + 1, "tg", 2) || !(p = bench_num(p + 3, 1, &t->n_gen))) return FC_EINPUT;
        }
    } else if (!strncmp(p, "tg", 2)) {
        if (!(p = bench_num(p + 2, 1, &t->n_gen))) return FC_EINPUT;
    } else {
        return FC_EINPUT;
    }
    while (*p == ' ') p++;
    if (*p == '@') {
        p++;
        while (*p == ' ') p++;
        if (*p != 'd' || !(p = bench_num(p + 1, 0, &t->n_depth))) return FC_EINPUT;
    }
    return *p ? FC_EINPUT : FC_OK;
}

int plan_bench_list_parse(const char *spec, plan_bench_test *out, int max, int *n, fc_err *err) {
    *n = 0;
    const char *p = spec;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char one[PLAN_BENCH_NAME_MAX];
        if (len == 0 || len >= sizeof one)
            return fc_err_set(err, FC_EINPUT, "--bench: test %d is %s (say pp512, tg128, pp512+tg128, pp2048@d32768)",
                              *n + 1, len ? "too long" : "empty");
        memcpy(one, p, len);
        one[len] = '\0';
        if (*n >= max) return fc_err_set(err, FC_EINPUT, "--bench: more than %d tests", max);
        if (plan_bench_test_parse(one, &out[*n]))
            return fc_err_set(err, FC_EINPUT,
                              "--bench: '%s' is not a llama-bench test (ppN, tgN, ppN+tgM, each optionally @dDEPTH; "
                              "N up to %d)", fc_safe(one), PLAN_BENCH_MAX_TOKENS);
        (*n)++;
        if (!comma) return FC_OK;
        p = comma + 1;
    }
}

double plan_bench_combine(const plan_bench_test *t, double pp, double tg) {
    if (t->n_gen > 0 && t->n_prompt > 0) {
        /* -pg: the prompt, then n_gen tokens after it */
        if (!(pp > 0) || !(tg > 0)) return 0;
        return (t->n_prompt + t->n_gen) / (t->n_prompt / pp + t->n_gen / tg);
    }
    return t->n_gen > 0 ? tg : pp;
}

double plan_bench_predict(const plan_speed_setup *s, const plan_efficiency *e, const plan_bench_test *t) {
    double pp = t->n_prompt > 0 ? plan_speed_pp_tps(s, e, t->n_prompt, t->n_depth) : 0;
    double tg = t->n_gen > 0 ? plan_speed_tg_tps(s, e, t->n_gen, t->n_depth + t->n_prompt) : 0;
    return plan_bench_combine(t, pp, tg);
}

void plan_bench_tensor_split(const float *split, int n, char *buf, size_t cap) {
    int last = 0;
    for (int i = 0; i < n; i++)
        if (split[i] > 0) last = i;
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i <= last && i < n && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%.2f", i ? "/" : "", split[i]);
    if (n <= 0) snprintf(buf, cap, "0.00");
}

const char *plan_bench_test_name(const plan_bench_test *t, char *buf, size_t cap) {
    int n;
    if (t->n_prompt > 0 && t->n_gen > 0)
        n = snprintf(buf, cap, "pp%d+tg%d", t->n_prompt, t->n_gen);
    else if (t->n_prompt > 0)
        n = snprintf(buf, cap, "pp%d", t->n_prompt);
    else
        n = snprintf(buf, cap, "tg%d", t->n_gen);
    if (t->n_depth > 0 && n > 0 && (size_t)n < cap) snprintf(buf + n, cap - (size_t)n, " @ d%d", t->n_depth);
    return buf;
}

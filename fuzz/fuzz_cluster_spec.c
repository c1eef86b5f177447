/* Fuzz target: the cluster spec (`plan --hw 'a=rtx-4090;b=apple-m2-ultra:192'`)
 * and the --link text (planner/cluster.c), split into hosts without resolving
 * them. Oracles beyond "no crash": an accepted spec has 1..PLAN_MAX_HOSTS
 * hosts with distinct, NUL-terminated names made of [A-Za-z0-9._-] and a
 * non-empty hardware part; an accepted link has a positive finite rate and
 * round trip; a refusal always says why. */
#include "fuzz/fuzz.h"
#include "planner/planner.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *s = malloc(size + 1);
    plan_cluster *c = malloc(sizeof *c);
    if (!s || !c) goto done;
    memcpy(s, data, size);
    s[size] = '\0';
    fc_err err = {0};
    if (plan_cluster_parse(c, s, &err) == FC_OK) {
        if (c->n_host < 1 || c->n_host > PLAN_MAX_HOSTS) abort();
        for (int h = 0; h < c->n_host; h++) {
            if (!c->host_name[h][0] || !c->host_spec[h][0]) abort();
            for (const char *p = c->host_name[h]; *p; p++)
                if (!isalnum((unsigned char)*p) && !strchr("._-", *p)) abort();
            for (int k = 0; k < h; k++)
                if (!strcmp(c->host_name[h], c->host_name[k])) abort();
        }
    } else if (!err.msg[0]) {
        abort();
    }
    /* a --link never names a file here: the profile reader has its own target */
    size_t n = strlen(s);
    if (!(n > 5 && !strcmp(s + n - 5, ".json"))) {
        plan_link l;
        fc_err e2 = {0};
        if (plan_link_parse(&l, s, &e2) == FC_OK) {
            if (!(l.gbs > 0) || !isfinite(l.gbs) || !(l.rtt_us > 0) || !isfinite(l.rtt_us)) abort();
        } else if (!e2.msg[0]) {
            abort();
        }
    }
done:
    free(s);
    free(c);
    return 0;
}

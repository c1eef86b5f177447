/* Several machines as llama.cpp's RPC backend sees them: the --hw host list,
 * the link between the main host and the others, and the flattened device
 * list (llama.cpp's src/llama.cpp puts RPC devices "at the front of the list
 * to minimize network transfers", in --rpc order; an rpc-server exposes its
 * accelerators, or its CPU when it has none: tools/rpc/rpc-server.cpp). */
#include "planner/planner.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SPEC_MAX 2048              /* a whole --hw cluster spec */

/* ---- links ------------------------------------------------------------------ */

/* TCP goodput over Ethernet: a 1500-byte MTU segment carries 1448 bytes
 * (IPv4 20 + TCP 20 + timestamps 12, RFC 7323) in 1538 bytes on the wire
 * (+14 header, 4 FCS, 8 preamble, 12 inter-frame gap; IEEE 802.3). */
#define ETH_GOODPUT (1448.0 / 1538.0)

/* Round trips are typical figures for a switched LAN or a direct cable
 * (ping plus a TCP request/response through the kernel both ways); a link
 * measured with `probe --peer` replaces them. */
static const struct {
    const char *name;
    double gbit;                   /* nominal line rate, Gbit/s */
    double rtt_us;
    const char *source;
} named_links[] = {
    {"1gbe", 1.0, 200, "IEEE 802.3ab 1 Gbit/s; TCP goodput 1448/1538; round trip typical of a switched LAN"},
    {"2.5gbe", 2.5, 200, "IEEE 802.3bz 2.5 Gbit/s; TCP goodput 1448/1538; round trip typical of a switched LAN"},
    {"5gbe", 5.0, 150, "IEEE 802.3bz 5 Gbit/s; TCP goodput 1448/1538; round trip typical of a switched LAN"},
    {"10gbe", 10.0, 100, "IEEE 802.3ae/an 10 Gbit/s; TCP goodput 1448/1538; round trip typical of SFP+/10GBASE-T"},
    {"25gbe", 25.0, 50, "IEEE 802.3by 25 Gbit/s; TCP goodput 1448/1538; round trip typical of a direct cable"},
    {"40gbe", 40.0, 50, "IEEE 802.3ba 40 Gbit/s; TCP goodput 1448/1538; round trip typical of a direct cable"},
    /* Thunderbolt 4 signals 40 Gbit/s but tunnels at most 32 Gbit/s of PCIe
     * data (Intel's Thunderbolt 4 requirements); IP over Thunderbolt stays
     * below that: an estimate to replace with `probe --peer`. */
    {"tb4", 32.0, 100, "Thunderbolt 4: 32 Gbit/s PCIe tunnel (Intel TB4 spec), unverified for IP: measure with probe --peer"},
};

static bool parse_num_unit(const char *s, const char *const *units, const double *scale, int n_units, double *out) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || !(v > 0) || !isfinite(v)) return false;
    for (int i = 0; i < n_units; i++)
        if (!strcasecmp(end, units[i])) {
            *out = v * scale[i];
            return true;
        }
    return false;
}

static int link_from_profile(plan_link *l, const char *path, fc_err *err) {
    probe_profile *p = calloc(1, sizeof *p);
    if (!p) return fc_err_set(err, FC_ERUNTIME, "out of memory");
    int rc = probe_profile_load(p, path, err);
    if (!rc && !p->n_net_links)
        rc = fc_err_set(err, FC_EINPUT, "--link %s: the profile has no measured link (run 'fitcheck probe --peer HOST -o %s')",
                        path, path);
    if (!rc) {
        const probe_net_link *b = &p->net_links[0];
        for (int i = 1; i < p->n_net_links; i++)
            if (strcmp(p->net_links[i].created, b->created) > 0) b = &p->net_links[i];
        if (!(b->up_gbs > 0) || !(b->down_gbs > 0) || !(b->rtt_median_us > 0))
            rc = fc_err_set(err, FC_EINPUT, "--link %s: the link to %s has no throughput or round trip", path,
                            fc_safe(b->peer));
        else {
            snprintf(l->name, sizeof l->name, "measured");
            /* the slower direction: activations go both ways every token */
            l->gbs = fmin(b->up_gbs, b->down_gbs);
            l->rtt_us = b->rtt_median_us;
            snprintf(l->source, sizeof l->source, "probe --peer %.100s at %.31s (%s)", b->peer, b->created, path);
        }
    }
    free(p);
    return rc;
}

int plan_link_parse(plan_link *l, const char *spec, fc_err *err) {
    memset(l, 0, sizeof *l);
    if (!spec || !*spec || strlen(spec) > 1024) return fc_err_set(err, FC_EINPUT, "--link: empty or too long");
    for (size_t i = 0; i < FC_ARRAY_LEN(named_links); i++)
        if (!strcasecmp(spec, named_links[i].name)) {
            snprintf(l->name, sizeof l->name, "%s", named_links[i].name);
            l->gbs = named_links[i].gbit / 8 * ETH_GOODPUT;
            l->rtt_us = named_links[i].rtt_us;
            snprintf(l->source, sizeof l->source, "%s", named_links[i].source);
            return FC_OK;
        }
    size_t n = strlen(spec);
    if (n > 5 && !strcasecmp(spec + n - 5, ".json")) return link_from_profile(l, spec, err);
    /* RATE:RTT, e.g. 100mbit:2ms: a line rate (goodput 1448/1538 of it) and a round trip */
    static const char *const rate_u[] = {"kbit", "mbit", "gbit"};
    static const double rate_s[] = {1e3 / 8e9, 1e6 / 8e9, 1e9 / 8e9};
    static const char *const time_u[] = {"us", "ms", "s"};
    static const double time_s[] = {1, 1e3, 1e6};
    char buf[64];
    const char *colon = strchr(spec, ':');
    if (colon && (size_t)(colon - spec) < sizeof buf) {
        memcpy(buf, spec, (size_t)(colon - spec));
        buf[colon - spec] = '\0';
        double gbs, us;
        if (parse_num_unit(buf, rate_u, rate_s, 3, &gbs) && parse_num_unit(colon + 1, time_u, time_s, 3, &us) &&
            gbs < 1e4 && us < 1e7) {
            snprintf(l->name, sizeof l->name, "%.63s", spec);
            l->gbs = gbs * ETH_GOODPUT;
            l->rtt_us = us;
            snprintf(l->source, sizeof l->source, "as given; TCP goodput 1448/1538 of the line rate");
            return FC_OK;
        }
    }
    char names[160] = "";
    for (size_t i = 0; i < FC_ARRAY_LEN(named_links); i++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", named_links[i].name);
    return fc_err_set(err, FC_EINPUT, "--link '%s': not %s, a RATE:RTT such as 1gbit:0.3ms, or a profile FILE.json",
                      fc_safe(spec), names);
}

/* ---- the host list ------------------------------------------------------------- */

bool plan_cluster_spec_is(const char *spec) { return spec && strchr(spec, '=') != NULL; }

static bool name_ok(const char *s, size_t n) {
    if (!n || n >= PLAN_HOST_NAME_MAX) return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '.' && s[i] != '-' && s[i] != '_') return false;
    return true;
}

int plan_cluster_parse(plan_cluster *c, const char *spec, fc_err *err) {
    memset(c, 0, sizeof *c);
    size_t len = strlen(spec);
    if (!len || len > SPEC_MAX) return fc_err_set(err, FC_EINPUT, "--hw: a host list of 1..%d bytes expected", SPEC_MAX);
    const char *p = spec;
    while (*p) {
        const char *end = strchr(p, ';');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', n);
        if (c->n_host == PLAN_MAX_HOSTS)
            return fc_err_set(err, FC_EINPUT, "--hw: more than %d hosts", PLAN_MAX_HOSTS);
        if (!eq) return fc_err_set(err, FC_EINPUT, "--hw: host %d is not NAME=HARDWARE", c->n_host + 1);
        size_t nl = (size_t)(eq - p), sl = n - nl - 1;
        if (!name_ok(p, nl))
            return fc_err_set(err, FC_EINPUT, "--hw: host %d: a name of letters, digits, '.', '-', '_' (at most %d) expected",
                              c->n_host + 1, PLAN_HOST_NAME_MAX - 1);
        if (!sl || sl >= sizeof c->host_spec[0])
            return fc_err_set(err, FC_EINPUT, "--hw: host %d: no hardware after '=', or too long", c->n_host + 1);
        memcpy(c->host_name[c->n_host], p, nl);
        memcpy(c->host_spec[c->n_host], eq + 1, sl);
        if (memchr(c->host_spec[c->n_host], '=', sl))
            return fc_err_set(err, FC_EINPUT, "--hw: host %d: '=' inside its hardware (hosts are separated by ';')",
                              c->n_host + 1);
        for (int h = 0; h < c->n_host; h++)
            if (!strcmp(c->host_name[h], c->host_name[c->n_host]))
                return fc_err_set(err, FC_EINPUT, "--hw: host '%s' named twice", c->host_name[h]);
        c->n_host++;
        if (!end) break;
        p = end + 1;
        if (!*p) return fc_err_set(err, FC_EINPUT, "--hw: a ';' with no host after it");
    }
    return FC_OK;
}

/* An rpc-server's devices: its accelerators, else its CPU. */
static int add_rpc_devices(plan_cluster *c, int h, fc_err *err) {
    const plan_hw *hw = &c->host_hw[h];
    int n = hw->n_gpu ? hw->n_gpu : 1;
    if (c->hw.n_gpu + n > PLAN_MAX_DEVICES) return fc_err_set(err, FC_EINPUT, "--hw: more than %d devices", PLAN_MAX_DEVICES);
    for (int i = 0; i < n; i++) {
        plan_device *d = &c->hw.gpu[c->hw.n_gpu];
        *d = hw->n_gpu ? hw->gpu[i] : hw->host;
        char id[64];
        snprintf(id, sizeof id, "%s", d->id);
        snprintf(d->id, sizeof d->id, "%.20s/%.40s", c->host_name[h], id);
        d->rpc = true;
        d->link_gbs = 0; /* weights never cross to it per batch: llama.cpp does not offload to RPC devices */
        c->dev_host[c->hw.n_gpu++] = h;
    }
    return FC_OK;
}

/* The devices llama.cpp on the main host sees, from the hosts resolved. */
static int flatten(plan_cluster *c, fc_err *err) {
    memset(&c->hw, 0, sizeof c->hw);
    memset(c->dev_host, 0, sizeof c->dev_host);
    c->hw.host = c->host_hw[0].host;
    int rc;
    for (int h = 1; h < c->n_host; h++)
        if ((rc = add_rpc_devices(c, h, err))) return rc;
    for (int g = 0; g < c->host_hw[0].n_gpu; g++) {
        if (c->hw.n_gpu == PLAN_MAX_DEVICES) return fc_err_set(err, FC_EINPUT, "--hw: more than %d devices", PLAN_MAX_DEVICES);
        c->hw.gpu[c->hw.n_gpu] = c->host_hw[0].gpu[g];
        c->dev_host[c->hw.n_gpu++] = 0;
    }
    int k = snprintf(c->hw.label, sizeof c->hw.label, "%d hosts over %s:", c->n_host, c->link.name);
    for (int h = 0; h < c->n_host && k > 0 && (size_t)k < sizeof c->hw.label; h++)
        k += snprintf(c->hw.label + k, sizeof c->hw.label - (size_t)k, " %s=%s", c->host_name[h], c->host_spec[h]);
    return FC_OK;
}

int plan_cluster_resolve(plan_cluster *c, const char *spec, const char *link, fc_err *err) {
    int rc = plan_cluster_parse(c, spec, err);
    if (rc) return rc;
    if (c->n_host < 2) return fc_err_set(err, FC_EINPUT, "--hw: a cluster needs at least two hosts");
    if ((rc = plan_link_parse(&c->link, link ? link : "1gbe", err))) return rc;
    for (int h = 0; h < c->n_host; h++) {
        const char *s = c->host_spec[h];
        if ((rc = plan_hw_resolve(&c->host_hw[h], !strcmp(s, "this") ? NULL : s, err)))
            return fc_err_prefix(err, "--hw host %s: ", c->host_name[h]);
    }
    return flatten(c, err);
}

int plan_cluster_use_backend(plan_cluster *c, int backend, fc_err *err) {
    if (backend == PLAN_CPU)
        return fc_err_set(err, FC_EINPUT, "--backend cpu: on several hosts each rpc-server serves its GPUs (a host "
                                          "without one, its CPU); name a GPU backend, or plan one host");
    int n_gpu = 0, rc;
    for (int h = 0; h < c->n_host; h++) {
        if (!c->host_hw[h].n_gpu) continue;
        n_gpu += c->host_hw[h].n_gpu;
        if ((rc = plan_hw_use_backend(&c->host_hw[h], backend, false, err)))
            return fc_err_prefix(err, "--hw host %s: ", c->host_name[h]);
    }
    if (!n_gpu) return fc_err_set(err, FC_EINPUT, "--backend %s: no host has a GPU to run it on", plan_backend_name(backend));
    return flatten(c, err);
}

int plan_cluster_first_hosts(const plan_cluster *c, int k, plan_cluster *out, fc_err *err) {
    if (k < 1 || k > c->n_host) return fc_err_set(err, FC_EINPUT, "%d of %d hosts", k, c->n_host);
    *out = *c;
    out->n_host = k;
    return flatten(out, err);
}

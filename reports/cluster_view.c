/* A plan across hosts (planner/cluster*.c) as text and JSON: memory per
 * device and per host, the split, speed with the network's terms, load time,
 * and the command for every host. Computed once in planner/, shown here. */
#include "reports/reports.h"
#include "planner/planner.h"

#include <string.h>

#define MIB (1024.0 * 1024.0)

static void split_str(const plan_cluster *c, const plan_cluster_result *r, char *buf, size_t cap) {
    size_t k = 0;
    buf[0] = '\0';
    for (int g = 0; g < c->hw.n_gpu && k < cap; g++)
        k += (size_t)snprintf(buf + k, cap - k, "%s%u", g ? "," : "", r->layers[g]);
}

static void text_result(FILE *out, const plan_cluster *c, const plan_cluster_result *r, const plan_cluster_plan *v,
                        const char *title) {
    char ts[128], a[32], b[32];
    split_str(c, r, ts, sizeof ts);
    fprintf(out, "\n%s: -ts %s, %s\n", title, ts, plan_verdict_name(r->mem.verdict));
    fprintf(out, "  %-6s %-30s %7s %10s %10s %10s %10s %10s  %s\n", "host", "device", "layers", "weights", "KV",
            "compute", "total", "capacity", "verdict");
    const plan_dev_mem *h = &r->mem.host;
    fprintf(out, "  %-6s %-30s %7s %10.0f %10.0f %10.0f %10.0f %10.0f  %s\n", fc_safe(c->host_name[0]),
            "CPU (embeddings, host buffers)", h->n_layers ? "cpu" : "-", h->weights / MIB, h->kv / MIB,
            h->compute / MIB, h->total / MIB, h->capacity / MIB, plan_verdict_name(h->verdict));
    for (int g = 0; g < r->mem.n_gpu; g++) {
        const plan_dev_mem *d = &r->mem.gpu[g];
        char lay[24];
        if (d->n_layers) snprintf(lay, sizeof lay, "%u-%u%s", d->layer_first, d->layer_first + d->n_layers - 1,
                                  d->has_output ? "+o" : "");
        else snprintf(lay, sizeof lay, "%s", d->has_output ? "out" : "-");
        fprintf(out, "  %-6s %-30.30s %7s %10.0f %10.0f %10.0f %10.0f %10.0f  %s\n", fc_safe(c->host_name[c->dev_host[g]]),
                fc_safe(c->hw.gpu[g].id), lay, d->weights / MIB, d->kv / MIB, d->compute / MIB, d->total / MIB,
                d->capacity / MIB, plan_verdict_name(d->verdict));
    }
    fprintf(out, "  (MiB; a remote host's total is its rpc-server's buffers and runtime)\n  per host:");
    for (int i = 0; i < c->n_host; i++)
        fprintf(out, " %s %s%s", fc_safe(c->host_name[i]), fc_fmt_bytes(r->host_total[i], a, sizeof a),
                i ? "" : " (with its GPUs)");
    fprintf(out, "\n");
    const plan_net_time *n = &r->net_tg;
    fprintf(out, "  decode  tg%d %.2f t/s: per token compute %.2f ms, %d round trip(s) %.2f ms, %.1f KiB over the link %.2f ms"
                 " -> %s dominates\n",
            v->n_gen, r->tg_tps, r->tg_s_compute * 1e3, n->n_trips, n->rtt_s * 1e3, n->bytes / 1024, (n->bytes_s + n->graph_s) * 1e3,
            r->dominant);
    n = &r->net_pp;
    fprintf(out, "  prefill pp%d %.1f t/s: compute %.1f ms, network %.1f ms (%d round trips, %.1f KiB with the graphs)\n",
            v->n_prompt, r->pp_tps, r->pp_s_compute * 1e3, n->total_s * 1e3, n->n_trips, n->bytes / 1024);
    fprintf(out, "  load    %s to the other hosts: %.1f s over the link the first time; with rpc-server -c %.1f s over the"
                 " link and %s from their own disks\n",
            fc_fmt_bytes(r->remote_bytes, a, sizeof a), r->load_s, r->load_cached_s,
            fc_fmt_bytes(r->remote_cached_bytes, b, sizeof b));
}

/* Whether each host pays (plan_cluster_step): one line per host added. */
static void text_steps(FILE *out, const plan_cluster_plan *v) {
    const plan_cluster *c = &v->cluster;
    fprintf(out, "\neach host added (llama.cpp's split by free memory; * the fastest split, the default does not fit)\n");
    for (int k = 1; k <= c->n_host; k++) {
        const plan_cluster_step *st = &v->step[k - 1];
        char who[PLAN_HOST_NAME_MAX + 8];
        snprintf(who, sizeof who, "%s%s", k == 1 ? "" : "+ ", fc_safe(c->host_name[k - 1]));
        if (st->no_speed[0]) {
            fprintf(out, "  %-12s no figure: %s\n", who, fc_safe(st->no_speed));
            continue;
        }
        if (!st->fits) {
            fprintf(out, "  %-12s does not fit\n", who);
            continue;
        }
        fprintf(out, "  %-12s tg%d %8.2f t/s  pp%d %8.1f t/s%s", who, v->n_gen, st->tg_tps, v->n_prompt, st->pp_tps,
                st->fastest ? " *" : "");
        if (k == 1) fprintf(out, "  (%s alone)", fc_safe(c->host_name[0]));
        else if (!st->compared) fprintf(out, "  (nothing to compare with)");
        else if (st->first_fit) fprintf(out, "  pays: the model fits only with it");
        else {
            fprintf(out, "  %s: decode %+.0f%% against the fastest with fewer hosts", st->pays ? "pays" : "costs",
                    (st->tg_tps / st->base_tg_tps - 1) * 100);
            if (st->break_even_gbs < 0 && st->saved_s <= 0)
                fprintf(out, "; no link pays for it: it computes no faster than the hosts before");
            else if (st->break_even_gbs < 0)
                fprintf(out, "; no link pays for it: the %.2f ms of decode it saves per token go to %.2f ms of round trips",
                        st->saved_s * 1e3, st->trips_s * 1e3);
            else if (st->break_even_gbs > 0)
                fprintf(out, "; pays above %.3f GB/s at %.0f us round trips (link: %.3f GB/s)", st->break_even_gbs,
                        c->link.rtt_us, c->link.gbs);
        }
        fprintf(out, "\n");
    }
}

void rep_cluster_text(FILE *out, const plan_cluster_plan *v) {
    const plan_cluster *c = &v->cluster;
    fprintf(out, "plan        %s on %s\n", fc_safe(v->model_name), fc_safe(c->hw.label));
    fprintf(out, "link        %s: %.3f GB/s TCP goodput each way, %.0f us round trip  [%s]\n", fc_safe(c->link.name),
            c->link.gbs, c->link.rtt_us, fc_safe(c->link.source));
    if (v->has_requested) text_result(out, c, &v->requested, v, "as asked");
    text_result(out, c, &v->splits.dflt, v, "llama.cpp's default split (by free memory)");
    if (v->splits.best_fits) text_result(out, c, &v->splits.best, v, "fastest split that fits");
    else fprintf(out, "\nno split of whole layers over the hosts' devices fits; -ngl N keeps the other layers in the "
                      "main host's RAM, on its CPU\n");
    text_steps(out, v);
    fprintf(out, "\ncommands\n");
    for (int h = 1; h < c->n_host; h++) fprintf(out, "  on %-8s %s\n", fc_safe(c->host_name[h]), v->rpc_cmd[h]);
    fprintf(out, "  on %-8s %s\n", fc_safe(c->host_name[0]), fc_safe(v->llama_cmd));
    fprintf(out, "  (rpc-server has no authentication: keep it on a trusted network; -c caches tensors > 10 MiB on its disk)\n");
    for (int h = 0; h < c->n_host; h++)
        if (v->numa_note[h][0]) fprintf(out, "  (on %s: %s)\n", fc_safe(c->host_name[h]), v->numa_note[h]);
}

static json_t *result_json(const plan_cluster *c, const plan_cluster_result *r) {
    json_t *o = json_object(), *devs = json_array(), *hosts = json_array(), *ts = json_array();
    for (int g = 0; g < c->hw.n_gpu; g++) json_array_append_new(ts, json_integer(r->layers[g]));
    const plan_dev_mem *h = &r->mem.host;
    json_array_append_new(devs, json_pack("{s:s,s:s,s:I,s:I,s:I,s:I,s:I,s:s}", "host", c->host_name[0], "device", "CPU",
                                          "weights", (json_int_t)h->weights, "kv", (json_int_t)h->kv, "compute",
                                          (json_int_t)h->compute, "total", (json_int_t)h->total, "capacity",
                                          (json_int_t)h->capacity, "verdict", plan_verdict_name(h->verdict)));
    for (int g = 0; g < r->mem.n_gpu; g++) {
        const plan_dev_mem *d = &r->mem.gpu[g];
        json_array_append_new(devs, json_pack("{s:s,s:s,s:i,s:i,s:b,s:I,s:I,s:I,s:I,s:I,s:s}", "host",
                                              c->host_name[c->dev_host[g]], "device", c->hw.gpu[g].id, "layer_first",
                                              (int)d->layer_first, "n_layers", (int)d->n_layers, "output", d->has_output,
                                              "weights", (json_int_t)d->weights, "kv", (json_int_t)d->kv, "compute",
                                              (json_int_t)d->compute, "total", (json_int_t)d->total, "capacity",
                                              (json_int_t)d->capacity, "verdict", plan_verdict_name(d->verdict)));
    }
    for (int i = 0; i < c->n_host; i++)
        json_array_append_new(hosts, json_pack("{s:s,s:I,s:s}", "host", c->host_name[i], "total",
                                               (json_int_t)r->host_total[i], "verdict", plan_verdict_name(r->host_verdict[i])));
    json_object_set_new(o, "tensor_split", ts);
    json_object_set_new(o, "verdict", json_string(plan_verdict_name(r->mem.verdict)));
    json_object_set_new(o, "devices", devs);
    json_object_set_new(o, "hosts", hosts);
    json_object_set_new(o, "tg_tps", json_real(r->tg_tps));
    json_object_set_new(o, "pp_tps", json_real(r->pp_tps));
    json_object_set_new(o, "decode", json_pack("{s:f,s:f,s:f,s:f,s:i,s:f,s:s}", "compute_s", r->tg_s_compute, "rtt_s",
                                               r->net_tg.rtt_s, "transfer_s", r->net_tg.bytes_s + r->net_tg.graph_s,
                                               "net_s", r->net_tg.total_s, "round_trips", r->net_tg.n_trips, "bytes",
                                               r->net_tg.bytes, "dominant", r->dominant));
    json_object_set_new(o, "prefill", json_pack("{s:f,s:f,s:f,s:f,s:i,s:f}", "compute_s", r->pp_s_compute, "rtt_s",
                                                r->net_pp.rtt_s, "transfer_s", r->net_pp.bytes_s + r->net_pp.graph_s,
                                                "net_s", r->net_pp.total_s, "round_trips", r->net_pp.n_trips, "bytes",
                                                r->net_pp.bytes));
    json_object_set_new(o, "load", json_pack("{s:I,s:f,s:I,s:f}", "remote_bytes", (json_int_t)r->remote_bytes, "first_s",
                                             r->load_s, "cached_bytes", (json_int_t)r->remote_cached_bytes, "cached_link_s",
                                             r->load_cached_s));
    return o;
}

json_t *rep_cluster_json(const plan_cluster_plan *v) {
    const plan_cluster *c = &v->cluster;
    json_t *o = json_object(), *hosts = json_array(), *cmds = json_object();
    for (int h = 0; h < c->n_host; h++)
        json_array_append_new(hosts, json_pack("{s:s,s:s}", "name", c->host_name[h], "hw", c->host_spec[h]));
    json_object_set_new(o, "model", json_string(v->model_name));
    json_object_set_new(o, "hosts", hosts);
    json_object_set_new(o, "link", json_pack("{s:s,s:f,s:f,s:s}", "name", c->link.name, "gbs", c->link.gbs, "rtt_us",
                                             c->link.rtt_us, "source", c->link.source));
    json_object_set_new(o, "n_prompt", json_integer(v->n_prompt));
    json_object_set_new(o, "n_gen", json_integer(v->n_gen));
    if (v->has_requested) json_object_set_new(o, "requested", result_json(c, &v->requested));
    json_object_set_new(o, "default_split", result_json(c, &v->splits.dflt));
    if (v->splits.best_fits) json_object_set_new(o, "fastest_split", result_json(c, &v->splits.best));
    json_t *steps = json_array();
    for (int k = 1; k <= c->n_host; k++) {
        const plan_cluster_step *st = &v->step[k - 1];
        json_t *j = json_pack("{s:i,s:s,s:b,s:s,s:f,s:f}", "hosts", k, "added", c->host_name[k - 1], "fits", st->fits,
                              "split", st->fastest ? "fastest" : "default", "tg_tps", st->tg_tps, "pp_tps", st->pp_tps);
        if (st->no_speed[0]) json_object_set_new(j, "no_speed", json_string(st->no_speed));
        if (st->compared) {
            json_object_set_new(j, "pays", json_boolean(st->pays));
            json_object_set_new(j, "fits_only_with_it", json_boolean(st->first_fit));
            json_object_set_new(j, "saved_s", json_real(st->saved_s));
            json_object_set_new(j, "round_trips_s", json_real(st->trips_s));
            json_object_set_new(j, "break_even_gbs", st->break_even_gbs < 0 ? json_null() : json_real(st->break_even_gbs));
        }
        json_array_append_new(steps, j);
    }
    json_object_set_new(o, "hosts_scaling", steps);
    for (int h = 1; h < c->n_host; h++) json_object_set_new(cmds, c->host_name[h], json_string(v->rpc_cmd[h]));
    json_object_set_new(cmds, c->host_name[0], json_string(v->llama_cmd));
    json_object_set_new(o, "commands", cmds);
    json_t *numa = json_object();
    for (int h = 0; h < c->n_host; h++) json_object_set_new(numa, c->host_name[h], json_string(plan_numa_name(v->numa[h])));
    json_object_set_new(o, "numa", numa);
    return o;
}

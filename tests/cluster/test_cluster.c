/* Plans across hosts (planner/cluster*.c): the host-list and link parsers,
 * the flattened device order llama.cpp uses, the memory split per host, and
 * the network model's terms against hand-computed values. */
#include "planner/planner.h"
#include "tests/check.h"

#include <string.h>

static void test_parse(void) {
    plan_cluster *c = calloc(1, sizeof *c);
    fc_err err = {0};
    CHECK(plan_cluster_parse(c, "a=rtx-4090;b=apple-m2-ultra:192;c=./pc2.json", &err) == FC_OK);
    CHECK(c->n_host == 3 && !strcmp(c->host_name[1], "b") && !strcmp(c->host_spec[1], "apple-m2-ultra:192") &&
          !strcmp(c->host_spec[2], "./pc2.json"));
    static const char *const bad[] = {"", "a", "=x", "a=", "a=x;", "a=x;a=y", "a b=x", "a=x=y", "a=x;;b=y",
                                      "a=1;b=1;c=1;d=1;e=1;f=1;g=1;h=1;i=1", "\x1b]0;t\x07=x"};
    for (size_t i = 0; i < FC_ARRAY_LEN(bad); i++) {
        fc_err e = {0};
        CHECK_MSG(plan_cluster_parse(c, bad[i], &e) == FC_EINPUT && e.msg[0], "spec %zu accepted", i);
        CHECK_MSG(!strchr(e.msg, 0x1b), "escape in the message of spec %zu", i);
    }
    CHECK(plan_cluster_spec_is("a=x;b=y") && !plan_cluster_spec_is("rtx-4090,rtx-4090") && !plan_cluster_spec_is(NULL));
    free(c);
}

static void test_links(void) {
    plan_link l;
    fc_err err = {0};
    CHECK(plan_link_parse(&l, "10gbe", &err) == FC_OK);
    CHECK_NEAR(l.gbs, 1.25 * 1448 / 1538, 1e-9);   /* 10 Gbit/s line rate, TCP goodput */
    CHECK(l.rtt_us > 0 && l.source[0]);
    CHECK(plan_link_parse(&l, "100mbit:2ms", &err) == FC_OK);
    CHECK_NEAR(l.gbs, 0.0125 * 1448 / 1538, 1e-12);
    CHECK_NEAR(l.rtt_us, 2000, 1e-9);
    CHECK(plan_link_parse(&l, "1gbit:300us", &err) == FC_OK && fabs(l.rtt_us - 300) < 1e-9);
    static const char *const bad[] = {"", "11gbe", "100mbit", "100mbit:", "-1gbit:2ms", "nangbit:1ms", "1gbit:1h",
                                      "missing.json"};
    for (size_t i = 0; i < FC_ARRAY_LEN(bad); i++) {
        fc_err e = {0};
        CHECK_MSG(plan_link_parse(&l, bad[i], &e) != FC_OK && e.msg[0], "link '%s' accepted", bad[i]);
    }
}

/* Three hosts from the catalog: the RPC devices come first (b's Mac, c's
 * card), then the main host's own card; every layer lands somewhere, each
 * host's total is its devices', the unified Mac does not eat a's RAM. */
static void test_plan(const model_desc *m) {
    plan_cluster *c = calloc(1, sizeof *c);
    fc_err err = {0};
    int rc = plan_cluster_resolve(c, "a=rtx-4090;b=apple-m2-ultra:192;c=rtx-3090", "10gbe", &err);
    CHECK_MSG(rc == FC_OK, "%s", err.msg);
    if (rc) return;
    CHECK(c->hw.n_gpu == 3 && c->hw.gpu[0].rpc && c->hw.gpu[1].rpc && !c->hw.gpu[2].rpc);
    CHECK(c->dev_host[0] == 1 && c->dev_host[1] == 2 && c->dev_host[2] == 0);
    plan_efficiency *e = calloc(1, sizeof *e);
    CHECK(plan_efficiency_builtin(e, &err) == FC_OK);
    plan_params p;
    plan_params_default(&p);
    plan_cluster_result r;
    CHECK((rc = plan_cluster_eval(c, m, &p, e, 512, 128, 0, &r, &err)) == FC_OK);
    if (!rc) {
        uint32_t sum = 0;
        for (int g = 0; g < 3; g++) sum += r.layers[g];
        CHECK(sum == m->hp.n_layer + 1);
        CHECK(r.host_total[1] == r.mem.gpu[0].total && r.host_total[2] == r.mem.gpu[1].total);
        CHECK(r.host_total[0] == r.mem.host.total + r.mem.gpu[2].total);
        CHECK(r.mem.host.capacity == c->hw.host.mem_free); /* the Mac's share is its own RAM */
        CHECK(r.mem.gpu[0].compute < r.mem.gpu[2].compute || r.mem.gpu[2].has_output); /* no offload copy on RPC */
        CHECK(r.tg_tps > 0 && r.pp_tps > 0 && r.tg_tps < 1.0 / r.tg_s_compute);
        /* decode: two remote runs (b, c) -> two round trips at 100 us each */
        CHECK(r.net_tg.n_trips == 2);
        CHECK_NEAR(r.net_tg.rtt_s, 2 * 100e-6, 1e-12);
        /* bytes: each run sends activations, positions and a 256-cell mask row and gets activations back */
        double act = 4.0 * m->hp.n_embd, in = act + 4 + 4 * 256.0;
        CHECK_NEAR(r.net_tg.bytes, 2 * (in + act), 1e-6);
        CHECK(!strcmp(r.dominant, "compute"));
        CHECK(r.load_s > 0 && r.load_cached_s < r.load_s && r.remote_cached_bytes <= r.remote_bytes);
        plan_cluster_result_free(&r);
    }
    /* a slow link with a long round trip: the network dominates a small model's decode */
    CHECK(plan_link_parse(&c->link, "10mbit:50ms", &err) == FC_OK);
    if (!plan_cluster_eval(c, m, &p, e, 512, 128, 0, &r, &err)) {
        CHECK(!strcmp(r.dominant, "round trips"));
        plan_cluster_result_free(&r);
    }
    /* the split search: the best that fits never decodes slower than llama.cpp's default when that fits */
    plan_cluster_splits sp;
    CHECK(plan_link_parse(&c->link, "10gbe", &err) == FC_OK);
    if (!plan_cluster_split(c, m, &p, e, 512, 128, &sp, &err)) {
        CHECK(sp.best_fits);
        CHECK(sp.dflt.mem.verdict == PLAN_NO_FIT || sp.best.tg_tps >= sp.dflt.tg_tps * (1 - 1e-9));
        char cmd[PLAN_CMD_MAX];
        plan_cluster_llama_cmd(c, &p, sp.best.layers, PLAN_NUMA_ONE, "m.gguf", cmd, sizeof cmd);
        CHECK_MSG(strstr(cmd, "llama-server --rpc b:50052,c:50052 ") && strstr(cmd, " -ts "), "%s", cmd);
        plan_cluster_rpc_cmd(c, 1, PLAN_NUMA_ONE, cmd, sizeof cmd);
        CHECK(strstr(cmd, "-p 50052") && strstr(cmd, " -c"));
        plan_cluster_result_free(&sp.dflt);
        plan_cluster_result_free(&sp.best);
    }
    free(e);
    free(c);
}

/* The one planning path: a request with a cluster comes back from plan_make
 * with everything a renderer shows — both splits, the split asked for, the
 * commands built for the split shown — so the CLI computes nothing. */
static void test_make(const model_desc *m) {
    plan_efficiency *e = calloc(1, sizeof *e);
    fc_err err = {0};
    CHECK(plan_efficiency_builtin(e, &err) == FC_OK);
    plan_request rq = {.model = m, .model_spec = "m.gguf", .eff = e, .cluster = "a=rtx-4090;b=rtx-3090;c=rtx-3090",
                       .link = "1gbit:0.3ms", .n_prompt = 64, .n_gen = 16};
    plan_params_default(&rq.params);
    plan_result r;
    int rc = plan_make(&rq, &r, &err);
    CHECK_MSG(rc == FC_OK && r.cluster, "%s", err.msg);
    if (!rc && r.cluster) {
        const plan_cluster_plan *cp = r.cluster;
        CHECK(cp->n_prompt == 64 && cp->n_gen == 16 && cp->cluster.n_host == 3 && !cp->has_requested);
        CHECK(cp->splits.best_fits && fabs(cp->cluster.link.rtt_us - 300) < 1e-9);
        /* the command carries the fastest split's -ts, in llama.cpp's device order */
        char ts[64];
        snprintf(ts, sizeof ts, " -ts %u,%u,%u", cp->splits.best.layers[0], cp->splits.best.layers[1],
                 cp->splits.best.layers[2]);
        CHECK_MSG(strstr(cp->llama_cmd, "llama-server --rpc b:50052,c:50052 ") && strstr(cp->llama_cmd, ts) &&
                  strstr(cp->llama_cmd, " -m m-Q4_K_M.gguf "), "%s (want%s)", cp->llama_cmd, ts);
        CHECK(strstr(cp->rpc_cmd[1], "ggml-rpc-server -H <b's LAN address> -p 50052") && strstr(cp->rpc_cmd[2], "<c's"));
        plan_result_free(&r);
        CHECK(!r.cluster);
    }
    /* -ts given: the requested split is evaluated and is the one the command runs */
    rq.params.n_tensor_split = 3;
    rq.params.tensor_split[0] = 1, rq.params.tensor_split[1] = 1, rq.params.tensor_split[2] = 2;
    if (!(rc = plan_make(&rq, &r, &err))) {
        const plan_cluster_plan *cp = r.cluster;
        char ts[64];
        snprintf(ts, sizeof ts, " -ts %u,%u,%u", cp->requested.layers[0], cp->requested.layers[1], cp->requested.layers[2]);
        CHECK(cp->has_requested && cp->requested.tg_tps > 0 && strstr(cp->llama_cmd, ts));
        CHECK(cp->requested.layers[2] > cp->requested.layers[0]);
        plan_result_free(&r);
    }
    CHECK_MSG(rc == FC_OK, "%s", err.msg);
    /* more -ts values than the cluster's devices: the planner refuses */
    rq.params.n_tensor_split = 4;
    fc_err e2 = {0};
    CHECK(plan_make(&rq, &r, &e2) == FC_EINPUT && strstr(e2.msg, "4 values for 3 devices") && !r.cluster);
    free(e);
}

/* Does each host pay (plan_cluster_step): a GPU host added to a CPU-only main
 * host pays above a break-even link rate and costs below it; an identical CPU
 * host never pays (its rpc-server computes without CPU_REPACK, slower). */
static plan_cluster_plan *make_cluster(const model_desc *m, const plan_efficiency *e, const char *hw, const char *link,
                                       plan_result *r) {
    plan_request rq = {.model = m, .model_spec = "m.gguf", .eff = e, .cluster = hw, .link = link};
    plan_params_default(&rq.params);
    fc_err err = {0};
    int rc = plan_make(&rq, r, &err);
    CHECK_MSG(rc == FC_OK && r->cluster, "%s %s: %s", hw, link, err.msg);
    return rc ? NULL : r->cluster;
}

static void test_steps(const model_desc *m) {
    plan_efficiency *e = calloc(1, sizeof *e);
    fc_err err = {0};
    CHECK(plan_efficiency_builtin(e, &err) == FC_OK);
    plan_result r;
    const char *gpu = "a=cpu-ddr5-6400-2ch:64;b=rtx-4090";
    plan_cluster_plan *cp = make_cluster(m, e, gpu, "1gbit:200us", &r);
    double be = 0;
    if (cp) {
        const plan_cluster_step *s0 = &cp->step[0], *s1 = &cp->step[1];
        CHECK(s0->fits && s1->fits && s1->pays && s1->saved_s > s1->trips_s && s1->trips_s > 0);
        CHECK(s1->break_even_gbs > 0 && s1->break_even_gbs < cp->cluster.link.gbs);
        /* the last step is the plan's own default split */
        CHECK_NEAR(s1->tg_tps, cp->splits.dflt.tg_tps, 1e-9);
        be = s1->break_even_gbs;
        plan_result_free(&r);
    }
    /* just below and above the break-even goodput (same round trip): costs, then pays */
    for (int i = 0; i < 2 && be > 0; i++) {
        char link[64];
        snprintf(link, sizeof link, "%.9fgbit:200us", be * (i ? 1.05 : 0.95) * 8 * 1538 / 1448);
        if ((cp = make_cluster(m, e, gpu, link, &r))) {
            CHECK_MSG(cp->step[1].pays == (i == 1), "%s: pays %d", link, cp->step[1].pays);
            CHECK_NEAR(cp->step[1].break_even_gbs, be, be * 1e-6);
            plan_result_free(&r);
        }
    }
    /* two identical CPUs: the remote one is the slower (no repack: its prefill slower, its decode no faster, as
     * bandwidth-bound as the local one's where the decode rates make it so), no link pays */
    if ((cp = make_cluster(m, e, "a=cpu-ddr5-6400-2ch:64;b=cpu-ddr5-6400-2ch:64", "100gbit:1us", &r))) {
        const plan_cluster_step *s1 = &cp->step[1];
        CHECK(s1->fits && !s1->pays && s1->saved_s <= 0 && s1->break_even_gbs == -1);
        CHECK(s1->tg_tps < cp->step[0].tg_tps && s1->pp_tps < cp->step[0].pp_tps);
        plan_result_free(&r);
    }
    free(e);
}

/* The output alone on another host than the last layer (the bench's MoE at
 * -ts 1,1: both layers on one rpc-server, the output on the other): the last
 * layer keeps only the rows that return logits, so a prefill ubatch sends
 * n_tok rows to the first host and one row on, not n_tok again. */
static void test_output_alone(const model_desc *m) {
    plan_cluster *c = calloc(1, sizeof *c);
    plan_memory *mem = calloc(1, sizeof *mem);
    c->dev_host[0] = 1;
    c->dev_host[1] = 2;
    c->link.gbs = 0.012;
    c->link.rtt_us = 2000;
    mem->n_gpu = 2;
    mem->gpu[0].layer_first = 0;
    mem->gpu[0].n_layers = m->hp.n_layer;
    mem->gpu[1].has_output = true;
    const uint32_t n_tok = 64, cells = 256;
    plan_net_time t = plan_cluster_net(c, m, mem, n_tok, cells, 1, false);
    double row = 4.0 * m->hp.n_embd, in = row * n_tok + 4.0 * n_tok + 4.0 * cells * n_tok;
    double logits = 4.0 * m->hp.n_vocab;
    CHECK(t.n_trips == 2);
    /* run on host 1: inputs out, one row back; host 2: one row out, the logits back */
    CHECK_NEAR(t.bytes, in + row + row + logits, 1e-6);
    CHECK_NEAR(t.bytes_s, t.bytes / 0.012e9, 1e-12);
    free(mem);
    free(c);
}

int main(void) {
    test_parse();
    test_links();
    model_hparams hp;
    model_catalog_info info;
    fc_err err = {0};
    model_desc m;
    if (model_catalog_find("llama-3.1-8b", &info, &hp, &err) || model_desc_synthesize(&m, &hp, "Q4_K_M", &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    test_plan(&m);
    test_output_alone(&m);
    test_make(&m);
    test_steps(&m);
    model_desc_free(&m);
    return check_done("cluster");
}

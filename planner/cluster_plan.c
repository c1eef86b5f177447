/* A plan across hosts on llama.cpp's RPC backend: memory per device and per
 * host (planner/memory.c on the flattened device list), speed as the compute
 * model plus the network, the time to load the weights over the links, the
 * -ts that fits and the fastest one, and the commands.
 *
 * What crosses a link per llama_decode (ggml-rpc.cpp, ggml-backend.cpp's
 * scheduler): for each run of layers on a remote host the scheduler sends
 * that split's inputs (SET_TENSOR: the f32 activations, n_embd x n_tokens,
 * with the positions and the KQ mask), the graph (GRAPH_COMPUTE; a reused
 * graph is one small GRAPH_RECOMPUTE), and reads the split's output back
 * (GET_TENSOR), which waits a round trip: sends are asynchronous, reads are
 * not. The host holding the output returns the logits of the tokens that
 * asked for them. Between two remote hosts the data goes through the main
 * host (RPC buffers copy only within one server). The last layer keeps only
 * the rows of the tokens that return logits (llama.cpp's model graphs:
 * ggml_get_rows by inp_out_ids at il == n_layer - 1), so what leaves it for
 * an output on another host is n_out rows, not n_tokens: measured, the
 * qwen3-30b-a3b bench model (2 layers on one rpc-server, the output on the
 * other) spent 98 ms of pp64 on 100 Mbit/s where counting 64 rows gave 201. */
#include "planner/planner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define F32 4.0
#define KV_VIEW_PAD 256            /* llama.cpp pads the cells in view to 256 (flash attention) */
/* A graph crosses as rpc_tensor records of 304 bytes (ggml-rpc.cpp's struct,
 * padded to 8) plus 8 bytes per node; a transformer layer is about 64 such
 * tensors (some 35 nodes with their weights, caches and views) — an
 * estimate: only prefill and the first token of a new graph pay it. */
#define GRAPH_BYTES_PER_LAYER (64.0 * 304 + 35 * 8)
/* rpc-server -c: tensors above 10 MiB are checked by hash first (one round
 * trip, RPC_CMD_SET_TENSOR_HASH) and read from the remote's cache when known
 * (ggml-rpc.cpp HASH_THRESHOLD). */
#define HASH_THRESHOLD (10.0 * 1024 * 1024)
#define SPLIT_GRID 24              /* split search: steps per device when three or more */


plan_net_time plan_cluster_net(const plan_cluster *c, const model_desc *m, const plan_memory *mem, uint32_t n_tok,
                               uint32_t kv_cells, uint32_t n_out, bool new_graph) {
    plan_net_time t;
    memset(&t, 0, sizeof t);
    const model_hparams *hp = &m->hp;
    double act = F32 * hp->n_embd * n_tok, act_out = F32 * hp->n_embd * n_out;
    double inputs = act + F32 * n_tok + F32 * (double)kv_cells * n_tok; /* activations, positions, mask */
    double gbytes = 0;
    int out_dev = plan_memory_output_device(mem);
    /* walk the layers in order; a run ends where the host changes */
    int run_host = 0;
    uint32_t run_layers = 0;
    for (uint32_t il = 0; il <= hp->n_layer; il++) {
        int dev = il < hp->n_layer ? plan_memory_layer_device(mem, il) : out_dev;
        int h = dev < 0 ? 0 : c->dev_host[dev];
        bool last = il == hp->n_layer;
        if (h != run_host || last) {
            if (run_host != 0) { /* a remote run: inputs out, its output back, one round trip */
                bool has_out = last && h == run_host;
                t.n_trips++;
                t.bytes += inputs + (has_out ? F32 * hp->n_vocab * n_out : last ? act_out : act);
                if (new_graph) gbytes += GRAPH_BYTES_PER_LAYER * run_layers;
            }
            if (last && h != 0 && h != run_host) { /* the output alone on a remote host */
                t.n_trips++;
                t.bytes += act_out + F32 * hp->n_vocab * n_out;
            }
            run_host = h;
            run_layers = 0;
        }
        run_layers++;
    }
    double bw = c->link.gbs * 1e9;
    t.rtt_s = t.n_trips * c->link.rtt_us * 1e-6;
    t.bytes_s = bw > 0 ? t.bytes / bw : 0;
    t.graph_s = bw > 0 ? gbytes / bw : 0;
    t.bytes += gbytes;
    t.total_s = t.rtt_s + t.bytes_s + t.graph_s;
    return t;
}

static void host_totals(const plan_cluster *c, plan_cluster_result *r) {
    const plan_memory *mm = &r->mem;
    r->host_total[0] = mm->host.total;
    r->host_capacity[0] = mm->host.capacity;
    r->host_verdict[0] = mm->host.verdict;
    for (int g = 0; g < mm->n_gpu; g++) {
        int h = c->dev_host[g];
        const plan_dev_mem *d = &mm->gpu[g];
        /* the main host's own GPUs are reported with it; a remote host is its devices */
        r->host_total[h] += d->total;
        if (h) r->host_capacity[h] += d->capacity;
        if (d->verdict > r->host_verdict[h]) r->host_verdict[h] = d->verdict;
        r->layers[g] = d->n_layers + (d->has_output ? 1 : 0);
    }
}

static void load_times(const plan_cluster *c, const model_desc *m, plan_cluster_result *r) {
    double small = 0, big = 0;
    int n_big = 0;
    for (uint32_t i = 0; i < m->n_tensors; i++) {
        const model_tensor *t = &m->tensors[i];
        int dev = t->layer >= 0 ? plan_memory_layer_device(&r->mem, (uint32_t)t->layer)
                  : t->role == ROLE_TOKEN_EMBD ? -1 : plan_memory_output_device(&r->mem);
        if (dev < 0 || !c->hw.gpu[dev].rpc) continue;
        if ((double)t->bytes > HASH_THRESHOLD) {
            big += (double)t->bytes;
            n_big++;
        } else {
            small += (double)t->bytes;
        }
    }
    /* tied embeddings: the output's copy of token_embd goes to the output's device */
    int od = plan_memory_output_device(&r->mem);
    if (m->hp.tied_embeddings && od >= 0 && c->hw.gpu[od].rpc)
        for (uint32_t i = 0; i < m->n_tensors; i++)
            if (m->tensors[i].role == ROLE_TOKEN_EMBD) {
                if ((double)m->tensors[i].bytes > HASH_THRESHOLD) big += (double)m->tensors[i].bytes, n_big++;
                else small += (double)m->tensors[i].bytes;
            }
    double bw = c->link.gbs * 1e9, rtt = c->link.rtt_us * 1e-6;
    r->remote_bytes = (uint64_t)(small + big);
    r->remote_cached_bytes = (uint64_t)big;
    r->load_s = (small + big) / bw;
    r->load_cached_s = small / bw + n_big * rtt; /* plus reading `big` from the remote's own disk */
}

void plan_cluster_result_free(plan_cluster_result *r) {
    free(r->setup);
    r->setup = NULL;
}

int plan_cluster_eval(const plan_cluster *c, const model_desc *m, const plan_params *p, const plan_efficiency *e,
                      int n_prompt, int n_gen, int n_depth, plan_cluster_result *r, fc_err *err) {
    memset(r, 0, sizeof *r);
    int rc = plan_memory_compute(&r->mem, m, &c->hw, p, err);
    if (rc) return rc;
    host_totals(c, r);
    load_times(c, m, r);
    r->setup = calloc(1, sizeof *r->setup);
    if (!r->setup) return fc_err_set(err, FC_ERUNTIME, "out of memory");
    if ((rc = plan_speed_from_plan(r->setup, m, &c->hw, &r->mem, p, err))) return rc;
    double tg = plan_speed_tg_tps(r->setup, e, n_gen, n_depth), pp = plan_speed_pp_tps(r->setup, e, n_prompt, n_depth);
    if (!(tg > 0) || !(pp > 0)) return fc_err_set(err, FC_EINPUT, "no speed for this cluster (missing figures)");
    r->tg_s_compute = 1.0 / tg;
    r->pp_s_compute = n_prompt / pp;
    /* decode: one token, one logit row, cells in view (the depth and the tokens made) padded to 256; the graph is reused */
    uint32_t cells = (uint32_t)((n_depth + n_gen + KV_VIEW_PAD - 1) / KV_VIEW_PAD * KV_VIEW_PAD);
    r->net_tg = plan_cluster_net(c, m, &r->mem, 1, cells, 1, false);
    /* prefill: one call per ubatch, a new graph each, the logits of the last token only (llama-bench) */
    uint32_t ub = p->n_ubatch ? p->n_ubatch : PLAN_DEFAULT_UBATCH;
    memset(&r->net_pp, 0, sizeof r->net_pp);
    for (int done = 0; done < n_prompt; done += (int)ub) {
        uint32_t n = n_prompt - done < (int)ub ? (uint32_t)(n_prompt - done) : ub;
        uint32_t cv = (uint32_t)((n_depth + done + n + KV_VIEW_PAD - 1) / KV_VIEW_PAD * KV_VIEW_PAD);
        plan_net_time t = plan_cluster_net(c, m, &r->mem, n, cv, done + (int)n >= n_prompt ? 1 : 0, true);
        r->net_pp.rtt_s += t.rtt_s;
        r->net_pp.bytes_s += t.bytes_s;
        r->net_pp.graph_s += t.graph_s;
        r->net_pp.total_s += t.total_s;
        r->net_pp.n_trips += t.n_trips;
        r->net_pp.bytes += t.bytes;
    }
    r->tg_tps = 1.0 / (r->tg_s_compute + r->net_tg.total_s);
    r->pp_tps = n_prompt / (r->pp_s_compute + r->net_pp.total_s);
    double terms[3] = {r->tg_s_compute, r->net_tg.rtt_s, r->net_tg.bytes_s + r->net_tg.graph_s};
    static const char *const names[3] = {"compute", "round trips", "transfers"};
    int k = 0;
    for (int i = 1; i < 3; i++)
        if (terms[i] > terms[k]) k = i;
    r->dominant = names[k];
    return FC_OK;
}

/* ---- the split ------------------------------------------------------------------ */

static bool fits(const plan_cluster_result *r) { return r->mem.verdict != PLAN_NO_FIT; }

/* Tries layer counts per device (they sum to n_layer + 1, the output counted
 * on the last device holding layers); keeps the fastest decode that fits. */
typedef struct split_ctx {
    const plan_cluster *c;
    const model_desc *m;
    const plan_params *base;
    const plan_efficiency *e;
    int n_prompt, n_gen;
} split_ctx;

static void try_split(const split_ctx *x, const uint32_t *cnt, plan_cluster_splits *out) {
    const plan_cluster *c = x->c;
    plan_params p = *x->base;
    for (int g = 0; g < c->hw.n_gpu; g++) p.tensor_split[g] = (float)cnt[g];
    p.n_gpu_layers = PLAN_NGL_ALL;
    plan_cluster_result r;
    fc_err err = {0};
    if (plan_cluster_eval(c, x->m, &p, x->e, x->n_prompt, x->n_gen, 0, &r, &err) || !fits(&r)) {
        plan_cluster_result_free(&r);
        return;
    }
    if (!out->best_fits || r.tg_tps > out->best.tg_tps) {
        plan_cluster_result_free(&out->best);
        out->best = r;
        out->best_fits = true;
        return;
    }
    plan_cluster_result_free(&r);
}

int plan_cluster_split(const plan_cluster *c, const model_desc *m, const plan_params *p, const plan_efficiency *e,
                       int n_prompt, int n_gen, plan_cluster_splits *out, fc_err *err) {
    memset(out, 0, sizeof *out);
    plan_params d = *p;
    memset(d.tensor_split, 0, sizeof d.tensor_split);
    d.n_gpu_layers = PLAN_NGL_ALL;
    int rc = plan_cluster_eval(c, m, &d, e, n_prompt, n_gen, 0, &out->dflt, err);
    if (rc) return rc;
    split_ctx x = {c, m, p, e, n_prompt, n_gen};
    int n = c->hw.n_gpu;
    uint32_t total = m->hp.n_layer + 1, cnt[PLAN_MAX_DEVICES] = {0};
    if (n == 0) { /* the main host's CPU alone: nothing to split */
        try_split(&x, cnt, out);
    } else if (n == 1) {
        cnt[0] = total;
        try_split(&x, cnt, out);
    } else if (n == 2) {
        for (uint32_t a = 0; a <= total; a++) {
            cnt[0] = a;
            cnt[1] = total - a;
            try_split(&x, cnt, out);
        }
    } else {
        /* a grid over the first three devices, the rest by free memory */
        uint32_t step = total / SPLIT_GRID ? total / SPLIT_GRID : 1;
        for (uint32_t a = 0; a <= total; a += step)
            for (uint32_t b = 0; a + b <= total; b += step) {
                memset(cnt, 0, sizeof cnt);
                cnt[0] = a;
                cnt[1] = b;
                uint32_t left = total - a - b;
                double free_rest = 0;
                for (int g = 2; g < n; g++) free_rest += (double)c->hw.gpu[g].mem_free;
                uint32_t given = 0;
                for (int g = 2; g < n; g++) {
                    cnt[g] = free_rest > 0 ? (uint32_t)(left * (double)c->hw.gpu[g].mem_free / free_rest) : 0;
                    given += cnt[g];
                }
                cnt[n - 1] += left - given;
                try_split(&x, cnt, out);
            }
    }
    return FC_OK;
}

/* ---- commands -------------------------------------------------------------------- */

static bool is_ipv4(const char *s) {
    int a, b, cc, d;
    char tail;
    return sscanf(s, "%d.%d.%d.%d%c", &a, &b, &cc, &d, &tail) == 4;
}

void plan_cluster_rpc_cmd(const plan_cluster *c, int h, int numa, char *buf, size_t cap) {
    /* rpc-server binds a numeric IPv4 address only (inet_addr in its transport) */
    const char *name = c->host_name[h];
    char addr[96];
    if (is_ipv4(name)) snprintf(addr, sizeof addr, "%s", name);
    else snprintf(addr, sizeof addr, "<%s's LAN address>", name);
    /* A CPU server bound to one node as llama-server would be (planner/numa.c), with that
     * node's cores: rpc-server's default -t is half the machine's hardware threads, and it
     * has no --numa of its own, so a part that does not fit one node runs as it is. */
    const plan_device *cpu = &c->host_hw[h].host;
    char bind[64] = "", threads[16] = "";
    if (numa == PLAN_NUMA_PIN) {
        plan_numa_bind(cpu, bind, sizeof bind);
        snprintf(threads, sizeof threads, " -t %d", cpu->numa_cores);
    }
    snprintf(buf, cap, "%sggml-rpc-server -H %s -p %d -c%s", bind, addr, PLAN_RPC_PORT, threads);
}

void plan_cluster_llama_cmd(const plan_cluster *c, const plan_params *p, const uint32_t *layers, int numa,
                            const char *file, char *buf, size_t cap) {
    char rpc[PLAN_MAX_HOSTS * (PLAN_HOST_NAME_MAX + 8)] = "";
    size_t k = 0;
    for (int h = 1; h < c->n_host; h++)
        k += (size_t)snprintf(rpc + k, sizeof rpc - k, "%s%s:%d", h > 1 ? "," : "", c->host_name[h], PLAN_RPC_PORT);
    char llama[PLAN_CMD_MAX], ollama[256];
    /* -ngl as asked (every layer unless a split with layers left on the main host's CPU was asked for) */
    plan_params q = *p;
    /* always -ts: with no layers on a host llama.cpp would still give it its share */
    q.n_tensor_split = (uint32_t)c->hw.n_gpu;
    for (int g = 0; g < c->hw.n_gpu; g++) q.tensor_split[g] = (float)layers[g];
    plan_command_line(&q, layers, c->hw.n_gpu, &c->hw.host, numa, file, llama, sizeof llama, ollama, sizeof ollama);
    /* "[numactl ...] llama-server -m FILE ..." -> "[numactl ...] llama-server --rpc HOSTS -m FILE ..." */
    static const char server[] = "llama-server ";
    const char *at = strstr(llama, server);
    int head = at ? (int)(at - llama) + (int)strlen(server) : 0;
    snprintf(buf, cap, "%.*s%s--rpc %s %s", head, llama, at ? "" : server, rpc, llama + head);
}

/* ---- the whole plan: what plan_make returns for a cluster ------------------------ */

void plan_cluster_plan_free(plan_cluster_plan *p) {
    plan_cluster_result_free(&p->splits.dflt);
    plan_cluster_result_free(&p->splits.best);
    plan_cluster_result_free(&p->requested);
}

/* What adding a host gives: llama.cpp's default split, else the fastest that fits, else NULL. */
static const plan_cluster_result *step_result(const plan_cluster_splits *sp) {
    return sp->dflt.mem.verdict != PLAN_NO_FIT ? &sp->dflt : sp->best_fits ? &sp->best : NULL;
}

static void step_fill(const plan_cluster_splits *sp, plan_cluster_step *st) {
    const plan_cluster_result *r = step_result(sp);
    memset(st, 0, sizeof *st);
    st->fits = r != NULL;
    st->fastest = r == &sp->best;
    if (r) st->tg_tps = r->tg_tps, st->pp_tps = r->pp_tps;
}

/* What host k is compared with: the fastest fitting plan on fewer hosts (its decode figures). */
typedef struct step_base {
    bool known, fits;                /* some fewer-host count has a figure; one of them fits */
    double tg_tps, compute_s, bytes;
    int trips;
} step_base;

/* Decode's compute saved per token against the round trips and bytes added. */
static void step_compare(const plan_cluster *c, const step_base *b, const plan_cluster_result *cur,
                         plan_cluster_step *st) {
    st->compared = b->known;
    if (!cur || !b->known) return;
    if (!b->fits) {
        st->pays = st->first_fit = true; /* it makes the model fit */
        return;
    }
    st->pays = cur->tg_tps > b->tg_tps;
    st->base_tg_tps = b->tg_tps;
    st->saved_s = b->compute_s - cur->tg_s_compute;
    st->trips_s = (cur->net_tg.n_trips - b->trips) * c->link.rtt_us * 1e-6;
    double bytes = cur->net_tg.bytes - b->bytes;
    if (st->saved_s <= st->trips_s) st->break_even_gbs = bytes <= 0 && st->saved_s >= st->trips_s ? 0 : -1;
    else st->break_even_gbs = bytes > 0 ? bytes / (st->saved_s - st->trips_s) / 1e9 : 0;
}

/* Speed with the first 1 .. n hosts (the last is the plan's own splits). */
static int steps_fill(const plan_cluster *c, const model_desc *m, const plan_params *p, const plan_efficiency *e,
                      plan_cluster_plan *out, fc_err *err) {
    plan_cluster *sub = fc_malloc(sizeof *sub, err);
    plan_cluster_splits *sp = fc_malloc(sizeof *sp, err);
    int rc = sub && sp ? FC_OK : FC_ERUNTIME;
    plan_params q = *p;
    memset(q.tensor_split, 0, sizeof q.tensor_split);
    q.n_tensor_split = 0;
    if (sp) memset(sp, 0, sizeof *sp);
    step_base base = {0};
    for (int k = 1; !rc && k <= c->n_host; k++) {
        plan_cluster_step *st = &out->step[k - 1];
        const plan_cluster_splits *use = sp;
        const plan_cluster *cc = c;
        fc_err serr = {0};
        if (k == c->n_host) {
            use = &out->splits;
        } else if ((rc = plan_cluster_first_hosts(c, k, sub, err))) {
            break;
        } else if (plan_cluster_split(sub, m, &q, e, out->n_prompt, out->n_gen, sp, &serr)) {
            /* fewer hosts without a figure (a main host never probed): no step, not no plan */
            memset(st, 0, sizeof *st);
            snprintf(st->no_speed, sizeof st->no_speed, "%s", serr.msg);
            continue;
        } else {
            cc = sub;
        }
        step_fill(use, st);
        const plan_cluster_result *r = step_result(use);
        if (k > 1) step_compare(cc, &base, r, st);
        base.known = true;
        if (r && (!base.fits || r->tg_tps > base.tg_tps))
            base = (step_base){true, true, r->tg_tps, r->tg_s_compute, r->net_tg.bytes, r->net_tg.n_trips};
        plan_cluster_result_free(&sp->dflt);
        plan_cluster_result_free(&sp->best);
    }
    if (sp) plan_cluster_result_free(&sp->dflt), plan_cluster_result_free(&sp->best);
    free(sub);
    free(sp);
    return rc;
}

/* One llama-bench test with q's split at the test's own context (q.n_ctx): 0
 * where it does not fit. A -pg test (pp+tg) decodes after its prompt
 * (plan_bench_combine). */
static double bench_test_tps(const plan_cluster *c, const model_desc *m, const plan_params *q, const plan_efficiency *e,
                             const plan_bench_test *t, fc_err *err) {
    plan_cluster_result r;
    int np = t->n_prompt > 0 ? t->n_prompt : PLAN_TEST_PP, ng = t->n_gen > 0 ? t->n_gen : PLAN_TEST_TG;
    int rc = plan_cluster_eval(c, m, q, e, np, ng, t->n_depth, &r, err);
    bool ok = !rc && fits(&r);
    double pp = r.pp_tps, tg = r.tg_tps;
    plan_cluster_result_free(&r);
    if (!ok) return 0;
    if (t->n_prompt > 0 && t->n_gen > 0) {
        rc = plan_cluster_eval(c, m, q, e, np, ng, t->n_depth + t->n_prompt, &r, err);
        tg = rc ? 0 : r.tg_tps;
        plan_cluster_result_free(&r);
    }
    return plan_bench_combine(t, pp, tg);
}

int plan_cluster_bench(const plan_cluster_plan *cp, const plan_request *rq, plan_result *r, fc_err *err) {
    if (rq->n_bench < 0 || rq->n_bench > PLAN_BENCH_MAX)
        return fc_err_set(err, FC_EINPUT, "--bench: %d tests (at most %d)", rq->n_bench, PLAN_BENCH_MAX);
    const plan_cluster *c = &cp->cluster;
    plan_efficiency *own;
    const plan_efficiency *e;
    int rc = plan_efficiency_resolve(rq->eff, &own, &e, err);
    if (rc) return rc;
    /* the split llama-bench runs with the same flags: -ts as asked, else its default (by free
     * memory), not the fastest one the plan may show; each test's memory planned again at its context */
    plan_params q = rq->params;
    for (int i = 0; i < rq->n_bench; i++) {
        const plan_bench_test *t = &rq->bench[i];
        q.n_ctx = (uint32_t)(t->n_prompt + t->n_gen + t->n_depth);
        r->bench[i] = *t;
        r->bench_ctx[i] = q.n_ctx;
        fc_err terr = {0}; /* a test without a speed is a test that does not fit: no record */
        r->bench_tps[i] = bench_test_tps(c, rq->model, &q, e, t, &terr);
        r->n_bench++;
    }
    free(own);
    return FC_OK;
}

int plan_cluster_make(const plan_request *rq, plan_cluster_plan *out, fc_err *err) {
    memset(out, 0, sizeof *out);
    plan_cluster *c = &out->cluster;
    const plan_params *p = &rq->params;
    const model_desc *m = rq->model;
    snprintf(out->model_name, sizeof out->model_name, "%s", rq->model_spec ? rq->model_spec : "");
    out->n_prompt = rq->n_prompt > 0 ? rq->n_prompt : PLAN_TEST_PP;
    out->n_gen = rq->n_gen > 0 ? rq->n_gen : PLAN_TEST_TG;
    int rc = plan_cluster_resolve(c, rq->cluster, rq->link, err);
    if (!rc && rq->set_backend) rc = plan_cluster_use_backend(c, rq->backend, err);
    if (rc) return rc;
    if (p->n_tensor_split > (uint32_t)c->hw.n_gpu)
        return fc_err_set(err, FC_EINPUT, "--tensor-split: %u values for %d devices", p->n_tensor_split, c->hw.n_gpu);
    plan_efficiency *own;
    const plan_efficiency *e;
    if ((rc = plan_efficiency_resolve(rq->eff, &own, &e, err))) return rc;
    rc = plan_cluster_split(c, m, p, e, out->n_prompt, out->n_gen, &out->splits, err);
    out->has_requested = p->n_tensor_split > 0 || p->n_gpu_layers != PLAN_NGL_ALL;
    if (!rc && out->has_requested) rc = plan_cluster_eval(c, m, p, e, out->n_prompt, out->n_gen, 0, &out->requested, err);
    if (!rc) rc = steps_fill(c, m, p, e, out, err);
    free(own);
    if (rc) {
        plan_cluster_plan_free(out);
        return rc;
    }
    const plan_cluster_result *shown =
        out->has_requested ? &out->requested : out->splits.best_fits ? &out->splits.best : &out->splits.dflt;
    const model_ftype_info *ft = model_ftype_by_id(m->hp.file_type);
    plan_model_file(m, rq->model_spec, ft ? ft->name : "", out->file, sizeof out->file, &out->file_exists);
    /* setup->numa: index 0 the main host's CPU, 1 + g device g (an rpc-server's CPU when it has no GPU) */
    if (shown->setup) {
        out->numa[0] = shown->setup->numa[0];
        plan_numa_note(&c->hw.host, &shown->mem.host, out->numa[0], out->numa_note[0], sizeof out->numa_note[0]);
        for (int g = 0; g < c->hw.n_gpu; g++) {
            int h = c->dev_host[g];
            if (h == 0 || c->hw.gpu[g].backend != PLAN_CPU) continue;
            out->numa[h] = shown->setup->numa[1 + g];
            plan_numa_note(&c->hw.gpu[g], &shown->mem.gpu[g], out->numa[h], out->numa_note[h], sizeof out->numa_note[h]);
        }
    }
    plan_cluster_llama_cmd(c, p, shown->layers, out->numa[0], out->file, out->llama_cmd, sizeof out->llama_cmd);
    for (int h = 1; h < c->n_host; h++) plan_cluster_rpc_cmd(c, h, out->numa[h], out->rpc_cmd[h], sizeof out->rpc_cmd[h]);
    return FC_OK;
}

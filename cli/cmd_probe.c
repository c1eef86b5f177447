/* fitcheck probe: measure this machine into a profile, or show a saved one. */
#include "cli/cli.h"
#include "net/net.h"
#include "probe/probe.h"
#include "reports/reports.h"

#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *out) {
    fprintf(out,
            "usage: fitcheck probe [--quick] [-o FILE|FORMAT] [--json] [--no-gpu | --gpu-only] [-t N] [--models-dir DIR]\n"
            "       fitcheck probe --show [FILE] [--json | -o FORMAT]\n"
            "       fitcheck probe --peer HOST[:PORT] [-o FILE] [--json]\n\n"
            "Measures this machine: topology and capacity (hwloc, cross-checked with /proc/meminfo,\n"
            "sysfs and cpuid), memory bandwidth (read, non-temporal write, copy, triad; thread scaling;\n"
            "a working-set sweep through the caches), latency per level, OpenBLAS SGEMM, storage read\n"
            "speed of the models directory, GPUs and the PCIe bus. The profile is saved as JSON to\n"
            "$XDG_CACHE_HOME/fitcheck/machine.json (docs/profile.md) and a summary is printed.\n\n"
            "  --quick           capacity and all-core read bandwidth only (about 1 s)\n"
            "  -o, --output FILE save the profile to FILE instead of the cache\n"
            "  -o md|csv|json|jsonl  print the figures as a table in that format, one row per\n"
            "                    figure (docs/schema-probe.md) instead of the summary\n"
            "  --show [FILE]     print a saved profile (default: the cached one); measures nothing\n"
            "  --peer HOST[:P]   measure the network link to 'fitcheck serve' on HOST (port %d):\n"
            "                    round trip of small messages (median, p99) and throughput each\n"
            "                    way, about 10 s and at most 256 MiB each way; the link is added\n"
            "                    to the profile (a quick probe is made first when there is none)\n"
            "  --json            print the profile JSON instead of the summary\n"
            "  --no-gpu          skip the GPU and bus probe\n"
            "  --gpu-only        the GPUs and the bus only (no CPU figures: saved only with\n"
            "                    --output FILE, never as this machine's profile)\n"
            "  -t, --threads N   measurement threads (default: one per core)\n"
            "  --models-dir DIR  where models live, for the storage test (default: .)\n"
            "  -h, --help        this help\n",
            NET_DEFAULT_PORT);
}

static void print_gbs_row(const char *what, double best, double median) {
    if (best > 0) printf("  %-22s %8.1f GB/s   (median %.1f)\n", what, best, median);
}

static void print_link(const probe_net_link *l) {
    printf("link        %s: round trip %.0f us median, %.0f us p99 (%d pings, min %.0f us)\n", fc_safe(l->peer),
           l->rtt_median_us, l->rtt_p99_us, l->n_pings, l->rtt_min_us);
    printf("            throughput %.3f GB/s up (%.0f Mbit/s), %.3f GB/s down (%.0f Mbit/s), TCP goodput\n",
           l->up_gbs, l->up_gbs * 8e3, l->down_gbs, l->down_gbs * 8e3);
}

static void print_summary(const probe_profile *p) {
    char a[32], b[32];
    printf("machine     %s (%s), profile of %s%s\n", fc_safe(p->hostname), fc_safe(p->cpu_model),
           fc_safe(p->created), p->quick ? ", quick" : "");
    printf("topology    %d package(s), %d cores, %d threads, %d NUMA node(s)   [%s]\n", p->n_packages, p->n_cores,
           p->n_threads, p->n_numa, fc_safe(p->topo_source));
    printf("memory      %s total, %s available   [%s]", fc_fmt_bytes(p->ram_total, a, sizeof a),
           fc_fmt_bytes(p->ram_available, b, sizeof b), fc_safe(p->ram_source));
    if (p->cgroup_mem_max) printf(", cgroup limit %s", fc_fmt_bytes(p->cgroup_mem_max, a, sizeof a));
    if (p->cgroup_cpus > 0) printf(", cgroup CPUs %.2f", p->cgroup_cpus);
    printf("\nhuge pages  THP %s, %llu x %s reserved pages free\n", p->thp_enabled ? "on" : "off",
           (unsigned long long)p->hugepages_free, fc_fmt_bytes(p->hugepage_bytes, a, sizeof a));
    for (int i = 0; i < p->n_caches; i++) {
        const probe_cache *c = &p->caches[i];
        printf("cache L%d    %-11s %9s, shared by %d core(s) [%s]", c->level, fc_safe(c->kind),
               fc_fmt_bytes(c->size_bytes, a, sizeof a), c->shared_by_cores, fc_safe(c->source));
        if (c->read_gbs > 0) printf("  read %.1f GB/s", c->read_gbs);
        if (c->latency_ns > 0) printf("  latency %.1f ns", c->latency_ns);
        printf("\n");
    }
    if (p->topo_note[0]) printf("note        %s\n", fc_safe(p->topo_note));
    printf("bandwidth   DRAM, %d thread(s), %s kernels, best of repetitions:\n", p->threads_used, fc_safe(p->isa));
    print_gbs_row("read", p->read_gbs, p->read_median_gbs);
    print_gbs_row("write (non-temporal)", p->write_gbs, p->write_median_gbs);
    print_gbs_row("copy", p->copy_gbs, p->copy_median_gbs);
    print_gbs_row("triad", p->triad_gbs, p->triad_median_gbs);
    if (p->read_1t_gbs > 0) printf("  %-22s %8.1f GB/s\n", "read, one thread", p->read_1t_gbs);
    for (int i = 0; i < p->n_numa && p->n_numa > 1; i++)
        if (p->numa_read_gbs[i] > 0) printf("  read, NUMA node %-6d %8.1f GB/s\n", i, p->numa_read_gbs[i]);
    if (p->dram_theoretical_gbs > 0)
        printf("  theoretical            %8.1f GB/s   (%s; read is %.0f%%)\n", p->dram_theoretical_gbs,
               fc_safe(p->dram_theoretical_source), 100 * p->read_gbs / p->dram_theoretical_gbs);
    else if (p->dram_theoretical_source[0])
        printf("  theoretical            %s\n", fc_safe(p->dram_theoretical_source));
    if (p->n_scaling > 1) {
        printf("scaling     read GB/s by threads:");
        for (int i = 0; i < p->n_scaling; i++) printf(" %g:%.1f", p->scaling[i].x, p->scaling[i].gbs);
        printf("\n");
    }
    if (p->dram_latency_ns > 0)
        printf("latency     DRAM %.1f ns (4 KiB pages), %.1f ns (huge pages)\n", p->dram_latency_ns,
               p->dram_latency_hugepage_ns);
    if (p->sgemm_gflops_1t > 0)
        printf("compute     SGEMM %.1f GFLOP/s on 1 thread, %.1f on %d\n", p->sgemm_gflops_1t, p->sgemm_gflops_all,
               p->threads_used);
    if (p->storage_read_gbs > 0)
        printf("storage     %.2f GB/s sequential read of %s (%s)\n", p->storage_read_gbs, fc_safe(p->storage_path),
               p->storage_direct ? "O_DIRECT" : "page cache dropped");
    probe_gpus_print(p, stdout);
    for (int i = 0; i < p->n_net_links; i++) print_link(&p->net_links[i]);
}

static int print_profile(const probe_profile *p, bool json, const enum rep_format *fmt) {
    if (fmt) {
        fc_err err = {0};
        rep_table *t = rep_probe_table(p, &err);
        int rc = t ? rep_table_write(t, stdout, *fmt, &err) : err.status;
        rep_table_free(t);
        return rc ? cli_report_error("probe", &err) : 0;
    }
    if (!json) {
        print_summary(p);
        return 0;
    }
    fc_err err = {0};
    char *text;
    if (probe_profile_to_json(p, &text, &err)) return cli_report_error("probe", &err);
    printf("%s\n", text);
    free(text);
    return 0;
}

static int show(const char *file, bool json, const enum rep_format *fmt) {
    fc_err err = {0};
    char path[PATH_MAX];
    if (!file) {
        if (probe_default_path(path, sizeof path, &err)) return cli_report_error("probe", &err);
        file = path;
    }
    probe_profile *p = fc_malloc(sizeof *p, &err);
    if (!p) return cli_report_error("probe", &err);
    int rc = probe_profile_load(p, file, &err) ? cli_report_error("probe", &err) : print_profile(p, json, fmt);
    free(p);
    return rc;
}

/* Measures the link and keeps it in the profile at `out`, one entry per peer. */
static int peer_probe(const char *peer, const char *out, bool json) {
    fc_err err = {0};
    char path[PATH_MAX];
    if (!out) {
        if (probe_default_path(path, sizeof path, &err)) return cli_report_error("probe", &err);
        out = path;
    }
    probe_net_link link;
    net_probe_opts o = {.peer = peer};
    int rc = net_probe_peer(&o, &link, &err);
    if (rc) return cli_report_error("probe", &err);
    probe_profile *p = fc_malloc(sizeof *p, &err);
    if (!p) return cli_report_error("probe", &err);
    if (access(out, F_OK) == 0) {
        rc = probe_profile_load(p, out, &err);
    } else {
        probe_options opt = {.quick = true, .no_gpu = true, .models_dir = "."};
        if (!(rc = probe_profile_prepare(out, &err))) rc = probe_run(p, &opt, &err);
    }
    if (!rc) {
        int i = 0;
        while (i < p->n_net_links && strcmp(p->net_links[i].peer, link.peer)) i++;
        if (i == PROBE_MAX_NET_LINKS) { /* full: the oldest goes */
            memmove(p->net_links, p->net_links + 1, (PROBE_MAX_NET_LINKS - 1) * sizeof p->net_links[0]);
            i = PROBE_MAX_NET_LINKS - 1;
        }
        p->net_links[i] = link;
        if (i == p->n_net_links) p->n_net_links++;
        rc = probe_profile_save(p, out, &err);
    }
    if (!rc && json) rc = print_profile(p, true, NULL);
    else if (!rc) {
        print_link(&link);
        printf("profile     saved to %s\n", fc_safe(out));
    }
    free(p);
    return rc ? cli_report_error("probe", &err) : 0;
}

int cli_probe(int argc, char **argv) {
    enum { OPT_SHOW = 256, OPT_JSON, OPT_NO_GPU, OPT_GPU_ONLY, OPT_QUICK, OPT_MODELS_DIR, OPT_PEER };
    static const struct option longopts[] = {
        {"quick", no_argument, NULL, OPT_QUICK},   {"output", required_argument, NULL, 'o'},
        {"show", optional_argument, NULL, OPT_SHOW}, {"json", no_argument, NULL, OPT_JSON},
        {"no-gpu", no_argument, NULL, OPT_NO_GPU}, {"gpu-only", no_argument, NULL, OPT_GPU_ONLY},
        {"threads", required_argument, NULL, 't'},
        {"models-dir", required_argument, NULL, OPT_MODELS_DIR}, {"help", no_argument, NULL, 'h'},
        {"peer", required_argument, NULL, OPT_PEER},
        {NULL, 0, NULL, 0},
    };
    probe_options opt = {.models_dir = "."};
    const char *out = NULL, *show_file = NULL, *peer = NULL;
    bool json = false, do_show = false;
    enum rep_format fmt_value;
    const enum rep_format *fmt = NULL; /* -o FORMAT: a table on stdout */
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "ho:t:", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': usage(stdout); return 0;
        case 'o':
            if (rep_format_is_table(optarg, &fmt_value))
                fmt = &fmt_value;
            else
                out = optarg;
            break;
        case 't': {
            int64_t n;
            if (!cli_parse_i64(optarg, 1, PROBE_MAX_THREADS, &n))
                return cli_usage_error("probe", "--threads wants 1..%d, not '%s'", PROBE_MAX_THREADS, optarg);
            opt.threads = (int)n;
            break;
        }
        case OPT_SHOW:
            do_show = true;
            /* "--show FILE" as well as "--show=FILE". */
            show_file = optarg ? optarg : optind < argc && argv[optind][0] != '-' ? argv[optind++] : NULL;
            break;
        case OPT_JSON: json = true; break;
        case OPT_NO_GPU: opt.no_gpu = true; break;
        case OPT_GPU_ONLY: opt.gpu_only = true; break;
        case OPT_QUICK: opt.quick = true; break;
        case OPT_MODELS_DIR: opt.models_dir = optarg; break;
        case OPT_PEER: peer = optarg; break;
        default: return cli_usage_error("probe", "unknown option");
        }
    }
    if (optind < argc) return cli_usage_error("probe", "unexpected argument '%s'", argv[optind]);
    if (do_show) return show(show_file, json, fmt);
    if (opt.gpu_only && opt.no_gpu) return cli_usage_error("probe", "--gpu-only and --no-gpu exclude each other");
    if (peer) {
        if (fmt) return cli_usage_error("probe", "--peer saves a link into a profile: -o takes a FILE there");
        return peer_probe(peer, out, json);
    }

    struct stat st;
    if (stat(opt.models_dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return cli_usage_error("probe", "--models-dir %s is not a directory", opt.models_dir);
    fc_err err = {0};
    char path[PATH_MAX];
    /* a GPU-only profile has no CPU figures: it never replaces the cached one */
    if (!out && !opt.gpu_only) {
        if (probe_default_path(path, sizeof path, &err)) return cli_report_error("probe", &err);
        out = path;
    }
    if (out && probe_profile_prepare(out, &err)) return cli_report_error("probe", &err);
    opt.progress = isatty(STDERR_FILENO);
    opt.progress_fn = rep_progress;
    probe_profile *p = fc_malloc(sizeof *p, &err);
    if (!p) return cli_report_error("probe", &err);
    int rc = probe_run(p, &opt, &err);
    rep_progress_done();
    if (!rc && out) rc = probe_profile_save(p, out, &err);
    if (rc)
        rc = cli_report_error("probe", &err);
    else if (opt.gpu_only && !json && !fmt)
        probe_gpus_print(p, stdout);
    else
        rc = print_profile(p, json, fmt);
    if (!rc && out && !json && !fmt) printf("profile     saved to %s\n", fc_safe(out));
    free(p);
    return rc;
}

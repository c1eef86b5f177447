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
            "                      [--force]\n"
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
            "  --force           save the profile even if the machine was busy while measuring\n"
            "  -h, --help        this help\n\n"
            "A busy machine measures low, and every later plan would trust the figures: the probe watches\n"
            "the load average, the CPU time other processes and the hypervisor (steal) take while it\n"
            "measures, and the spread between repeats. When they say the machine was busy, the figures\n"
            "are printed but NOT saved, the reasons go to stderr and the exit status is 2 (like any\n"
            "refused input; nothing crashed): measure again when the machine is idle, or add --force.\n",
            NET_DEFAULT_PORT);
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
        rep_probe_print(p, stdout);
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
        rep_probe_link_print(&link, stdout);
        printf("profile     saved to %s\n", fc_safe(out));
    }
    free(p);
    return rc ? cli_report_error("probe", &err) : 0;
}

int cli_probe(int argc, char **argv) {
    enum { OPT_SHOW = 256, OPT_JSON, OPT_NO_GPU, OPT_GPU_ONLY, OPT_QUICK, OPT_MODELS_DIR, OPT_PEER, OPT_FORCE };
    static const struct option longopts[] = {
        {"quick", no_argument, NULL, OPT_QUICK},   {"output", required_argument, NULL, 'o'},
        {"show", optional_argument, NULL, OPT_SHOW}, {"json", no_argument, NULL, OPT_JSON},
        {"no-gpu", no_argument, NULL, OPT_NO_GPU}, {"gpu-only", no_argument, NULL, OPT_GPU_ONLY},
        {"threads", required_argument, NULL, 't'},
        {"models-dir", required_argument, NULL, OPT_MODELS_DIR}, {"help", no_argument, NULL, 'h'},
        {"peer", required_argument, NULL, OPT_PEER}, {"force", no_argument, NULL, OPT_FORCE},
        {NULL, 0, NULL, 0},
    };
    probe_options opt = {.models_dir = "."};
    const char *out = NULL, *show_file = NULL, *peer = NULL;
    bool json = false, do_show = false, force = false;
    /* the last flag given that only a measurement of this machine reads (--show measures
     * nothing, --peer only the link): refused there rather than dropped */
    const char *machine_flag = NULL;
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
            machine_flag = "-t/--threads";
            break;
        }
        case OPT_SHOW:
            do_show = true;
            /* "--show FILE" as well as "--show=FILE". */
            show_file = optarg ? optarg : optind < argc && argv[optind][0] != '-' ? argv[optind++] : NULL;
            break;
        case OPT_JSON: json = true; break;
        case OPT_NO_GPU: opt.no_gpu = true, machine_flag = "--no-gpu"; break;
        case OPT_GPU_ONLY: opt.gpu_only = true, machine_flag = "--gpu-only"; break;
        case OPT_QUICK: opt.quick = true, machine_flag = "--quick"; break;
        case OPT_MODELS_DIR: opt.models_dir = optarg, machine_flag = "--models-dir"; break;
        case OPT_PEER: peer = optarg; break;
        case OPT_FORCE: force = true; break;
        default: return cli_usage_error("probe", "unknown option");
        }
    }
    if (optind < argc) return cli_usage_error("probe", "unexpected argument '%s'", argv[optind]);
    if (do_show && (machine_flag || peer || force || out))
        return cli_usage_error("probe", "--show measures nothing: %s is for a measurement",
                               machine_flag ? machine_flag : peer ? "--peer" : force ? "--force" : "-o FILE");
    if (do_show) return show(show_file, json, fmt);
    if (peer && machine_flag)
        return cli_usage_error("probe", "--peer measures the link only: %s is for a probe of this machine", machine_flag);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus > 0 && opt.threads > cpus)
        fprintf(stderr, "fitcheck probe: warning: -t %d asks for more threads than the %ld CPUs here; they share "
                        "cores, and the figures are those of %ld\n", opt.threads, cpus, cpus);
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
    /* measured while the machine was busy: shown, not saved (unless --force) */
    bool refuse = !rc && p->busy[0] && !force;
    if (!rc && out && !refuse) rc = probe_profile_save(p, out, &err);
    if (rc)
        rc = cli_report_error("probe", &err);
    else if (opt.gpu_only && !json && !fmt)
        rep_probe_gpus_print(p, stdout);
    else
        rc = print_profile(p, json, fmt);
    if (refuse) {
        fflush(stdout);
        fprintf(stderr,
                "fitcheck probe: profile NOT saved: the machine was busy while measuring (%s), so its figures "
                "understate this machine. Measure again when it is idle, or add --force to save them anyway.\n",
                p->busy);
        rc = FC_EINPUT;
    } else if (!rc && out && !json && !fmt) {
        printf("profile     saved to %s%s\n", fc_safe(out), p->busy[0] ? " (busy: saved with --force)" : "");
    }
    free(p);
    return rc;
}

/* fitcheck serve: answer `fitcheck probe --peer` from another machine. */
#include "cli/cli.h"
#include "net/net.h"

#include <getopt.h>
#include <string.h>

static void usage(FILE *out) {
    fprintf(out,
            "usage: fitcheck serve [--bind ADDR] [--port P]\n\n"
            "Answers 'fitcheck probe --peer HOST[:P]' run on another machine, which measures the\n"
            "link's round trip and throughput each way (docs/rpc.md). Binds only ADDR, a numeric\n"
            "IPv4 or IPv6 address (default 127.0.0.1: this machine only; give the address of the\n"
            "interface the other machine reaches). Each connection may move at most 1 GiB each way\n"
            "and must say HELLO within 2 s; at most %d at once. Ctrl-C or SIGTERM stops it.\n\n"
            "  --bind ADDR   address to listen on (default 127.0.0.1)\n"
            "  --port P      TCP port (default %d; 0 = any free port, printed)\n"
            "  -h, --help    this help\n",
            NET_MAX_CONNS, NET_DEFAULT_PORT);
}

static void on_listen(const char *addr, int port, void *ctx) {
    (void)ctx;
    /* One line a script can wait for (tests read the port from it). */
    printf("fitcheck serve: listening on %s port %d\n", addr, port);
    fflush(stdout);
}

int cli_serve(int argc, char **argv) {
    static const struct option longopts[] = {
        {"bind", required_argument, NULL, 'b'}, {"port", required_argument, NULL, 'p'},
        {"help", no_argument, NULL, 'h'},       {NULL, 0, NULL, 0},
    };
    net_serve_opts o = {.bind = "127.0.0.1", .port = NET_DEFAULT_PORT, .stop = &fc_interrupted, .on_listen = on_listen};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': usage(stdout); return 0;
        case 'b': o.bind = optarg; break;
        case 'p': {
            int64_t v;
            if (!cli_parse_i64(optarg, 0, 65535, &v)) return cli_usage_error("serve", "--port wants 0..65535, not '%s'", optarg);
            o.port = (int)v;
            break;
        }
        default: return cli_usage_error("serve", "unknown option");
        }
    }
    if (optind < argc) return cli_usage_error("serve", "unexpected argument '%s'", argv[optind]);
    net_serve_stats st;
    fc_err err = {0};
    int rc = net_serve(&o, &st, &err);
    if (rc) return cli_report_error("serve", &err);
    fprintf(stderr,
            "fitcheck serve: stopped; %llu connections (%llu turned away, %llu evicted, %llu timed out, %llu broke the "
            "protocol), %llu messages answered\n",
            (unsigned long long)st.accepted, (unsigned long long)st.refused, (unsigned long long)st.evicted,
            (unsigned long long)st.timed_out, (unsigned long long)st.bad, (unsigned long long)st.served_msgs);
    return 0;
}

/* `fitcheck probe --peer`: measures the link to a `fitcheck serve`.
 *
 * Round trip: NET_PROBE_PINGS small PINGs one after another (median, p99,
 * min). Throughput each way: rounds of doubling size until one takes a third
 * of the time allowed or the byte budget would be passed; the last round's
 * bytes over its time less one round trip (the PONG or the first DATA byte
 * that closes the round) is the goodput. Every read waits at most
 * NET_IO_TIMEOUT_S; the server's caps (HELLO) bound what is asked. A dead,
 * silent or misbehaving peer is bad input (FC_EINPUT, exit status 2), as a
 * broken file is. */
#include "net/net.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define NET_IO_TIMEOUT_S 5     /* any one read or write */
#define NET_CONNECT_S 5
#define NET_PING_BYTES 32      /* small: a token's worth of control, like rpc-server's graph recompute */
#define NET_FIRST_ROUND (1ull << 20)

typedef struct peer {
    int fd;
    uint32_t seq;
    net_limits lim;
    const char *name;
} peer;

static int io_err(const peer *p, const char *what, fc_err *err) {
    int e = errno;
    return fc_err_set(err, FC_EINPUT, "peer %s: %s: %s", p->name, what,
                      e == EAGAIN || e == EWOULDBLOCK ? "timed out" : e ? strerror(e) : "connection closed");
}

static int send_all(peer *p, const void *buf, size_t n, fc_err *err) {
    const uint8_t *b = buf;
    while (n) {
        ssize_t w = send(p->fd, b, n, MSG_NOSIGNAL);
        if (w <= 0) {
            if (w < 0 && errno == EINTR) continue;
            return io_err(p, "sending", err);
        }
        b += w;
        n -= (size_t)w;
    }
    return FC_OK;
}

static int recv_all(peer *p, void *buf, size_t n, fc_err *err) {
    uint8_t *b = buf;
    while (n) {
        ssize_t r = recv(p->fd, b, n, 0);
        if (r <= 0) {
            if (r < 0 && errno == EINTR) continue;
            if (r == 0) errno = 0;
            return io_err(p, "receiving", err);
        }
        b += r;
        n -= (size_t)r;
    }
    return FC_OK;
}

static int send_msg(peer *p, int type, const void *payload, uint32_t len, fc_err *err) {
    uint8_t h[NET_HDR_BYTES];
    net_hdr_write(h, type, ++p->seq, len);
    int rc = send_all(p, h, sizeof h, err);
    return rc ? rc : len ? send_all(p, payload, len, err) : FC_OK;
}

/* Reads a header of the type expected, within its cap and the caller's. */
static int recv_hdr(peer *p, int type, uint32_t max_len, net_hdr *h, fc_err *err) {
    uint8_t b[NET_HDR_BYTES];
    int code, rc = recv_all(p, b, sizeof b, err);
    if (rc) return rc;
    if (net_hdr_read(b, h, &code, err)) return fc_err_prefix(err, "peer %s: ", p->name);
    if (h->type == NET_ERROR) {
        uint8_t c = 0;
        if (h->len == 1) recv_all(p, &c, 1, err);
        return fc_err_set(err, FC_EINPUT, "peer %s refused: %s", p->name, net_error_name(c));
    }
    if (h->type != type || h->len > max_len)
        return fc_err_set(err, FC_EINPUT, "peer %s: answered type %u with %u bytes, expected type %d", p->name, h->type,
                          h->len, type);
    return FC_OK;
}

static int dial(peer *p, const char *host, int port, fc_err *err) {
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
    struct addrinfo *ai = NULL;
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    int g = getaddrinfo(host, ps, &hints, &ai);
    if (g) return fc_err_set(err, FC_EINPUT, "peer %s: cannot resolve '%s': %s", p->name, host, gai_strerror(g));
    int rc = FC_EINPUT;
    for (struct addrinfo *a = ai; a && rc; a = a->ai_next) {
        int fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0) continue;
        int r = connect(fd, a->ai_addr, a->ai_addrlen);
        if (r < 0 && errno == EINPROGRESS) {
            struct pollfd pf = {.fd = fd, .events = POLLOUT};
            int soerr = ETIMEDOUT;
            socklen_t sl = sizeof soerr;
            if (poll(&pf, 1, NET_CONNECT_S * 1000) == 1) getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
            errno = soerr;
            r = soerr ? -1 : 0;
        }
        if (r < 0) {
            fc_err_set(err, FC_EINPUT, "peer %s: connecting: %s (is 'fitcheck serve' running there?)", p->name,
                       strerror(errno));
            close(fd);
            continue;
        }
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        struct timeval tv = {.tv_sec = NET_IO_TIMEOUT_S};
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        p->fd = fd;
        rc = FC_OK;
    }
    freeaddrinfo(ai);
    return rc;
}

static uint32_t be32(const uint8_t *b) { return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]; }

static int hello(peer *p, fc_err *err) {
    net_hdr h;
    uint8_t b[sizeof(net_limits)];
    int rc = send_msg(p, NET_HELLO, NULL, 0, err);
    if (!rc) rc = recv_hdr(p, NET_HELLO, sizeof b, &h, err);
    if (!rc && h.len != sizeof b) rc = fc_err_set(err, FC_EINPUT, "peer %s: HELLO of %u bytes", p->name, h.len);
    if (!rc) rc = recv_all(p, b, sizeof b, err);
    if (rc) return rc;
    p->lim = (net_limits){be32(b), be32(b + 4), be32(b + 8), be32(b + 12)};
    /* never ask for more than either side allows */
    if (p->lim.ping_max > NET_PING_MAX) p->lim.ping_max = NET_PING_MAX;
    if (p->lim.chunk_max > NET_CHUNK_MAX) p->lim.chunk_max = NET_CHUNK_MAX;
    if (p->lim.pull_max > NET_PULL_MAX) p->lim.pull_max = NET_PULL_MAX;
    if (p->lim.ping_max < NET_PING_BYTES || !p->lim.chunk_max || !p->lim.pull_max || !p->lim.budget_mib)
        return fc_err_set(err, FC_EINPUT, "peer %s: limits too small to measure anything", p->name);
    return FC_OK;
}

static int ping(peer *p, double *rtt, fc_err *err) {
    uint8_t out[NET_PING_BYTES], in[NET_PING_BYTES];
    for (size_t i = 0; i < sizeof out; i++) out[i] = (uint8_t)(p->seq + i);
    net_hdr h;
    double t0 = fc_now();
    int rc = send_msg(p, NET_PING, out, sizeof out, err);
    if (!rc) rc = recv_hdr(p, NET_PONG, sizeof in, &h, err);
    if (!rc) rc = recv_all(p, in, h.len, err);
    if (rc) return rc;
    *rtt = fc_now() - t0;
    if (h.seq != p->seq || h.len != sizeof out || memcmp(in, out, sizeof in))
        return fc_err_set(err, FC_EINPUT, "peer %s: PONG does not echo the PING", p->name);
    return FC_OK;
}

static int cmp_dbl(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sends `bytes` as PUSH chunks and closes the round with a PING. */
static int push_round(peer *p, uint64_t bytes, double *dt, fc_err *err) {
    static const uint8_t zeros[NET_CHUNK_MAX];
    double t0 = fc_now(), rtt;
    for (uint64_t left = bytes; left;) {
        uint32_t n = left < p->lim.chunk_max ? (uint32_t)left : p->lim.chunk_max;
        int rc = send_msg(p, NET_PUSH, zeros, n, err);
        if (rc) return rc;
        left -= n;
    }
    int rc = ping(p, &rtt, err);
    *dt = fc_now() - t0;
    return rc;
}

/* Asks for `bytes` in PULLs sent up front (the server answers one at a time). */
static int pull_round(peer *p, uint64_t bytes, double *dt, fc_err *err) {
    static uint8_t sink[NET_READ_CHUNK];
    double t0 = fc_now();
    int n_req = 0;
    for (uint64_t left = bytes; left; n_req++) {
        uint32_t n = left < p->lim.pull_max ? (uint32_t)left : p->lim.pull_max;
        uint8_t b[4] = {(uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n};
        int rc = send_msg(p, NET_PULL, b, 4, err);
        if (rc) return rc;
        left -= n;
    }
    for (int i = 0; i < n_req; i++) {
        net_hdr h;
        int rc = recv_hdr(p, NET_DATA, p->lim.pull_max, &h, err);
        for (uint32_t left = h.len; !rc && left;) {
            uint32_t n = left < sizeof sink ? left : (uint32_t)sizeof sink;
            rc = recv_all(p, sink, n, err);
            left -= n;
        }
        if (rc) return rc;
    }
    *dt = fc_now() - t0;
    return FC_OK;
}

/* Doubling rounds; the rate of the last one, less a round trip. */
static int throughput(peer *p, bool up, uint64_t budget, double seconds, double rtt, double *gbs, uint64_t *moved,
                      fc_err *err) {
    uint64_t round = NET_FIRST_ROUND, used = 0;
    double dt = 0;
    for (;;) {
        int rc = up ? push_round(p, round, &dt, err) : pull_round(p, round, &dt, err);
        if (rc) return rc;
        used += round;
        if (dt >= seconds / 3 || used + 2 * round > budget) break;
        round *= 2;
    }
    double t = dt - rtt > dt / 2 ? dt - rtt : dt / 2;
    *gbs = (double)round / t / 1e9;
    *moved = used;
    return FC_OK;
}

int net_probe_peer(const net_probe_opts *o, probe_net_link *link, fc_err *err) {
    memset(link, 0, sizeof *link);
    char host[256];
    int port;
    int rc = net_addr_split(o->peer, NET_DEFAULT_PORT, host, sizeof host, &port, err);
    if (rc) return rc;
    peer p = {.fd = -1, .name = o->peer};
    if ((rc = dial(&p, host, port, err)) || (rc = hello(&p, err))) goto done;
    uint64_t budget = o->bytes_max ? o->bytes_max : NET_PROBE_BYTES_MAX;
    uint64_t server_budget = (uint64_t)p.lim.budget_mib << 20;
    if (budget > server_budget / 2) budget = server_budget / 2;
    double seconds = o->seconds > 0 ? o->seconds : NET_PROBE_SECONDS;
    int n = o->n_pings > 0 ? o->n_pings : NET_PROBE_PINGS;
    double *rtt = calloc((size_t)n, sizeof *rtt);
    if (!rtt) {
        rc = fc_err_set(err, FC_ERUNTIME, "out of memory");
        goto done;
    }
    int got = 0;
    double t0 = fc_now();
    while (got < n && !rc && fc_now() - t0 < seconds) rc = ping(&p, &rtt[got++], err);
    if (!rc) {
        qsort(rtt, (size_t)got, sizeof *rtt, cmp_dbl);
        link->n_pings = got;
        link->rtt_min_us = rtt[0] * 1e6;
        link->rtt_median_us = (got % 2 ? rtt[got / 2] : (rtt[got / 2 - 1] + rtt[got / 2]) / 2) * 1e6;
        int i99 = (int)((got * 99 + 99) / 100) - 1;
        link->rtt_p99_us = rtt[i99 < got ? i99 : got - 1] * 1e6;
        double r = link->rtt_median_us * 1e-6;
        rc = throughput(&p, true, budget, seconds, r, &link->up_gbs, &link->up_bytes, err);
        if (!rc) rc = throughput(&p, false, budget, seconds, r, &link->down_gbs, &link->down_bytes, err);
    }
    free(rtt);
    if (!rc) {
        snprintf(link->peer, sizeof link->peer, "%s", o->peer);
        time_t now = time(NULL);
        struct tm tm;
        strftime(link->created, sizeof link->created, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    }
done:
    if (p.fd >= 0) close(p.fd);
    return rc;
}

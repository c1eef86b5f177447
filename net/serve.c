/* `fitcheck serve`: one thread, one poll loop, non-blocking sockets, a fixed
 * table of connections. Binds only the numeric address it was given. A
 * connection that does not say HELLO in time, stalls, dribbles a message or
 * outlives its budget is closed; when the table is full a newcomer takes the
 * place of the oldest connection that never said HELLO (so half-open floods
 * cannot lock out a real peer), else it is turned away. */
#include "net/net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define NET_HELLO_S 2.0        /* from accept to a complete HELLO */
#define NET_MSG_S 10.0         /* a message once begun: 1 MiB takes 0.1 s at 100 Mbit/s */
#define NET_STALL_S 10.0       /* no byte either way while something is due */
#define NET_IDLE_S 60.0        /* between messages */
#define NET_LIFETIME_S 600.0   /* a whole connection */
#define NET_EVICT_IDLE_S 1.0   /* a full table may drop a peer quiet this long */
#define NET_POLL_MS 100        /* how often *stop and the deadlines are looked at */
#define NET_BACKLOG 16

typedef struct slot {
    int fd;
    net_conn c;
    double t_accept, t_progress, t_msg;
} slot;

static void slot_close(slot *s) {
    if (s->fd >= 0) close(s->fd);
    s->fd = -1;
}

static int listen_on(const net_serve_opts *o, char *shown, size_t cap, int *port, fc_err *err) {
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV};
    struct addrinfo *ai = NULL;
    char ps[16];
    snprintf(ps, sizeof ps, "%d", o->port);
    int g = getaddrinfo(o->bind, ps, &hints, &ai);
    if (g) {
        fc_err_set(err, FC_EINPUT, "--bind %s: not a numeric IPv4/IPv6 address (%s)", o->bind, gai_strerror(g));
        return -1;
    }
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int one = 1;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) || bind(fd, ai->ai_addr, ai->ai_addrlen) ||
        listen(fd, NET_BACKLOG)) {
        int e = errno;
        if (fd >= 0) close(fd);
        freeaddrinfo(ai);
        fc_err_set(err, e == EADDRINUSE || e == EADDRNOTAVAIL || e == EACCES ? FC_EINPUT : FC_ERUNTIME,
                          "listening on %s port %d: %s", o->bind, o->port, strerror(e));
        return -1;
    }
    freeaddrinfo(ai);
    struct sockaddr_storage sa;
    socklen_t sl = sizeof sa;
    getsockname(fd, (struct sockaddr *)&sa, &sl);
    getnameinfo((struct sockaddr *)&sa, sl, shown, (socklen_t)cap, ps, sizeof ps, NI_NUMERICHOST | NI_NUMERICSERV);
    *port = atoi(ps);
    return fd;
}

/* A place for a newcomer: a free slot, else the oldest without HELLO, else
 * the longest-quiet one past NET_EVICT_IDLE_S; -1 = full. A connection
 * accepted in this same batch (t_accept >= batch) is never the one evicted:
 * the kernel hands over queued connections in bursts (a flood's SYN retries
 * land together), and a real peer among them must get one read before a
 * later newcomer can take its place. */
static int free_slot(slot *t, double now, double batch, net_serve_stats *st) {
    int best = -1;
    for (int i = 0; i < NET_MAX_CONNS; i++) {
        if (t[i].fd < 0) return i;
        if (!t[i].c.hello_done && t[i].t_accept < batch && (best < 0 || t[i].t_accept < t[best].t_accept)) best = i;
    }
    if (best < 0)
        for (int i = 0; i < NET_MAX_CONNS; i++)
            if (t[i].t_accept < batch && now - t[i].t_progress > NET_EVICT_IDLE_S &&
                (best < 0 || t[i].t_progress < t[best].t_progress))
                best = i;
    if (best >= 0) {
        slot_close(&t[best]);
        st->evicted++;
    }
    return best;
}

static bool deadline_passed(const slot *s, double now) {
    const net_conn *c = &s->c;
    bool mid_msg = c->hdr_have > 0 || c->in_body;
    return (!c->hello_done && now - s->t_accept > NET_HELLO_S) || (mid_msg && now - s->t_msg > NET_MSG_S) ||
           now - s->t_progress > (mid_msg || net_conn_want(c) == 0 ? NET_STALL_S : NET_IDLE_S) ||
           now - s->t_accept > NET_LIFETIME_S;
}

/* Moves what it can for one connection; false = close it. */
static bool service(slot *s, short revents, net_serve_stats *st) {
    static uint8_t buf[NET_READ_CHUNK];
    double now = fc_now();
    if (revents & (POLLERR | POLLNVAL)) return false;
    size_t want = net_conn_want(&s->c);
    if (want && (revents & (POLLIN | POLLHUP))) {
        ssize_t r = recv(s->fd, buf, want, 0);
        if (r == 0) return false;
        if (r < 0) return errno == EAGAIN || errno == EINTR;
        if (!s->c.hdr_have && !s->c.in_body) s->t_msg = now;
        uint64_t before = s->c.n_msgs;
        fc_err err = {0};
        if (net_conn_feed(&s->c, buf, (size_t)r, &err)) st->bad++;
        st->served_msgs += s->c.n_msgs - before;
        s->t_progress = now;
    }
    const uint8_t *out;
    size_t n;
    while ((n = net_conn_output(&s->c, &out)) > 0) {
        ssize_t w = send(s->fd, out, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0) return errno == EAGAIN || errno == EINTR;
        net_conn_sent(&s->c, (size_t)w);
        s->t_progress = now;
    }
    return !s->c.close_after;
}

/* Takes every queued connection and reads what each has already sent, so a
 * peer whose HELLO is waiting is known as one before the rest of the burst
 * looks for a place. */
static void accept_all(int lfd, slot *t, net_serve_stats *st) {
    double batch = fc_now();
    for (;;) {
        int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) return; /* EAGAIN, or a connection reset before we got to it */
        double now = fc_now();
        int i = free_slot(t, now, batch, st);
        if (i < 0) {
            close(fd);
            st->refused++;
            continue;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        t[i].fd = fd;
        net_conn_init(&t[i].c);
        t[i].t_accept = t[i].t_progress = now;
        t[i].t_msg = 0;
        st->accepted++;
        if (!service(&t[i], POLLIN, st)) slot_close(&t[i]);
    }
}

int net_serve(const net_serve_opts *o, net_serve_stats *st, fc_err *err) {
    memset(st, 0, sizeof *st);
    char shown[64];
    int port;
    int lfd = listen_on(o, shown, sizeof shown, &port, err);
    if (lfd < 0) return err->status;
    if (o->on_listen) o->on_listen(shown, port, o->ctx);
    slot t[NET_MAX_CONNS];
    for (int i = 0; i < NET_MAX_CONNS; i++) t[i].fd = -1;
    struct pollfd pf[NET_MAX_CONNS + 1];
    while (!*o->stop) {
        int map[NET_MAX_CONNS], np = 0;
        pf[np++] = (struct pollfd){.fd = lfd, .events = POLLIN};
        for (int i = 0; i < NET_MAX_CONNS; i++) {
            if (t[i].fd < 0) continue;
            const uint8_t *dummy;
            short ev = (short)((net_conn_want(&t[i].c) ? POLLIN : 0) | (net_conn_output(&t[i].c, &dummy) ? POLLOUT : 0));
            map[np - 1] = i;
            pf[np++] = (struct pollfd){.fd = t[i].fd, .events = ev};
        }
        int r = poll(pf, (nfds_t)np, NET_POLL_MS);
        if (r < 0 && errno != EINTR) {
            fc_err_set(err, FC_ERUNTIME, "poll: %s", strerror(errno));
            break;
        }
        double now = fc_now();
        for (int k = 1; k < np && r > 0; k++) {
            slot *s = &t[map[k - 1]];
            if (pf[k].revents && !service(s, pf[k].revents, st)) slot_close(s);
        }
        for (int i = 0; i < NET_MAX_CONNS; i++)
            if (t[i].fd >= 0 && deadline_passed(&t[i], now)) {
                slot_close(&t[i]);
                st->timed_out++;
            }
        if (r > 0 && (pf[0].revents & POLLIN)) accept_all(lfd, t, st);
    }
    for (int i = 0; i < NET_MAX_CONNS; i++) slot_close(&t[i]);
    close(lfd);
    return err->status;
}

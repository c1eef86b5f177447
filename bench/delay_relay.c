/* A TCP relay that adds a fixed one-way delay in each direction: this kernel
 * has no netem, so bench/rpc_vs_llamacpp.sh puts one in front of each
 * rpc-server (and each fitcheck serve) to give a shaped link its round trip.
 *
 * Why C and not the Python relay it replaces: asyncio sleeps through
 * epoll_wait, whose timeout is whole milliseconds (Python rounds it up), so
 * a 0.15 ms delay became 1 ms and every round trip gained 0.5-2.4 ms. Here
 * one thread per direction reads a chunk with the kernel's arrival stamp
 * (SO_TIMESTAMPNS: the time the relay took to wake is inside the delay, not
 * added to it), sleeps to SPIN_NS before stamp + delay, spins to it and
 * writes. The bench runs it under SCHED_FIFO so that a loaded machine does
 * not delay its wakeups. Data arriving during a sleep waits in the socket
 * buffer: bandwidth is left to tc.
 *
 * --spin: one thread per connection polls both sockets without blocking and
 * stamps each chunk with the clock as it reads it. The sleeping relay's own
 * path costs 30-120 us per round trip on this VM (its wakeups after a write,
 * its threads' hand-offs), which the arrival stamps hide inside a long delay
 * but not a short one: 0.3 ms asked read 338-372 us over a 9 us veth. A
 * spinning relay has no wakeups to pay, at the price of a whole core while a
 * connection is open: the bench uses it for the link probe's relay only,
 * never in front of the rpc-servers (two of them would take both cores).
 *
 * Usage: delay_relay LISTEN_ADDR:PORT TARGET_ADDR:PORT ONE_WAY_MS [--spin]
 * (numeric IPv4; runs until killed). Bench tool, not part of fitcheck's build:
 * cc -O2 -pthread bench/delay_relay.c -o delay_relay */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CHUNK 65536                /* bytes per read, as the Python relay */
#define SPIN_NS 50000L             /* timer wakeups on this VM come 10-100 us late: spin the last 50 us */
#define SPIN_SLOTS 64              /* chunks in flight per direction when spinning: 4 MiB, 3 ms at 10 Gbit/s */

typedef struct pipe_dir {
    int from, to;
    long delay_ns;
} pipe_dir;

static void ts_add(struct timespec *t, long ns) {
    t->tv_nsec += ns % 1000000000L;
    t->tv_sec += ns / 1000000000L + t->tv_nsec / 1000000000L;
    t->tv_nsec %= 1000000000L;
}

static long ts_diff_ns(const struct timespec *a, const struct timespec *b) {
    return (a->tv_sec - b->tv_sec) * 1000000000L + (a->tv_nsec - b->tv_nsec);
}

static void wait_until(const struct timespec *due) {
    struct timespec early = *due, now;
    ts_add(&early, -SPIN_NS);
    while (early.tv_nsec < 0) early.tv_nsec += 1000000000L, early.tv_sec--;
    while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &early, NULL) == EINTR) {}
    do clock_gettime(CLOCK_REALTIME, &now);
    while (ts_diff_ns(due, &now) > 0);
}

static void *pump(void *arg) {
    pipe_dir *d = arg;
    static __thread char buf[CHUNK];
    char ctrl[CMSG_SPACE(sizeof(struct timespec))];
    for (bool ok = true; ok;) {
        struct iovec iov = {buf, CHUNK};
        struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctrl, .msg_controllen = sizeof ctrl};
        ssize_t n = recvmsg(d->from, &mh, 0);
        if (n <= 0) break;
        struct timespec due;
        bool stamped = false;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
                memcpy(&due, CMSG_DATA(c), sizeof due);
                stamped = true;
            }
        if (!stamped) clock_gettime(CLOCK_REALTIME, &due);
        ts_add(&due, d->delay_ns);
        wait_until(&due);
        for (ssize_t off = 0; ok && off < n;) {
            ssize_t w = write(d->to, buf + off, (size_t)(n - off));
            if (w <= 0) ok = false;
            else off += w;
        }
    }
    shutdown(d->to, SHUT_WR);
    return NULL;
}

typedef struct conn {
    int a, b;
    long delay_ns;
    bool spin;
} conn;

/* One direction of a spinning connection: a ring of chunks, each with the
 * time it is due at the other side. */
typedef struct spin_dir {
    int from, to;
    char (*buf)[CHUNK];
    ssize_t len[SPIN_SLOTS], sent;
    struct timespec due[SPIN_SLOTS];
    unsigned head, tail; /* head: next to write; tail: next free */
    bool eof;
} spin_dir;

/* Reads what has arrived (if a slot is free) and writes what is due; returns
 * false once the connection is over in this direction. */
static bool spin_step(spin_dir *d, long delay_ns) {
    if (!d->eof && d->tail - d->head < SPIN_SLOTS) {
        unsigned slot = d->tail % SPIN_SLOTS;
        ssize_t n = recv(d->from, d->buf[slot], CHUNK, MSG_DONTWAIT);
        if (n > 0) {
            clock_gettime(CLOCK_MONOTONIC, &d->due[slot]);
            ts_add(&d->due[slot], delay_ns);
            d->len[slot] = n;
            d->tail++;
        } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            d->eof = true;
        }
    }
    if (d->head != d->tail) {
        unsigned slot = d->head % SPIN_SLOTS;
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (ts_diff_ns(&d->due[slot], &now) <= 0) {
            ssize_t w = send(d->to, d->buf[slot] + d->sent, (size_t)(d->len[slot] - d->sent), MSG_DONTWAIT);
            if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return false;
            if (w > 0 && (d->sent += w) == d->len[slot]) d->sent = 0, d->head++;
        }
    }
    if (d->eof && d->head == d->tail) {
        shutdown(d->to, SHUT_WR);
        return false;
    }
    return true;
}

static void spin_conn(conn *k) {
    spin_dir d[2] = {{.from = k->a, .to = k->b}, {.from = k->b, .to = k->a}};
    for (int i = 0; i < 2; i++) {
        fcntl(d[i].from, F_SETFL, fcntl(d[i].from, F_GETFL) | O_NONBLOCK);
        d[i].buf = malloc(sizeof *d[i].buf * SPIN_SLOTS);
    }
    if (d[0].buf && d[1].buf) {
        bool live[2] = {true, true};
        while (live[0] || live[1])
            for (int i = 0; i < 2; i++)
                if (live[i]) live[i] = spin_step(&d[i], k->delay_ns);
    }
    for (int i = 0; i < 2; i++) free(d[i].buf);
}

/* The sleeping relay: a thread per direction, each chunk due at its arrival stamp. */
static void sleep_conn(conn *k) {
    pipe_dir d[2] = {{k->a, k->b, k->delay_ns}, {k->b, k->a, k->delay_ns}};
    pthread_t t[2];
    int one = 1;
    for (int i = 0; i < 2; i++) {
        setsockopt(d[i].from, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
        pthread_create(&t[i], NULL, pump, &d[i]);
    }
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
}

static void *serve_conn(void *arg) {
    conn *k = arg;
    if (k->spin) spin_conn(k);
    else sleep_conn(k);
    close(k->a);
    close(k->b);
    free(k);
    return NULL;
}

static int parse_addr(const char *s, struct sockaddr_in *sa) {
    char host[64];
    const char *colon = strrchr(s, ':');
    if (!colon || (size_t)(colon - s) >= sizeof host) return -1;
    memcpy(host, s, (size_t)(colon - s));
    host[colon - s] = '\0';
    memset(sa, 0, sizeof *sa);
    sa->sin_family = AF_INET;
    sa->sin_port = htons((uint16_t)atoi(colon + 1));
    return inet_pton(AF_INET, host, &sa->sin_addr) == 1 ? 0 : -1;
}

int main(int argc, char **argv) {
    struct sockaddr_in la, ta;
    bool spin = argc == 5 && strcmp(argv[4], "--spin") == 0;
    if ((argc != 4 && !spin) || parse_addr(argv[1], &la) || parse_addr(argv[2], &ta)) {
        fprintf(stderr, "usage: delay_relay LISTEN_ADDR:PORT TARGET_ADDR:PORT ONE_WAY_MS [--spin]\n");
        return 2;
    }
    long delay_ns = (long)(atof(argv[3]) * 1e6);
    signal(SIGPIPE, SIG_IGN);
    int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(ls, (struct sockaddr *)&la, sizeof la) || listen(ls, 64)) {
        perror("delay_relay: bind/listen");
        return 2;
    }
    printf("relay %s -> %s, %s ms each way%s\n", argv[1], argv[2], argv[3], spin ? ", spinning" : "");
    fflush(stdout);
    for (;;) {
        int a = accept(ls, NULL, NULL);
        if (a < 0) continue;
        int b = socket(AF_INET, SOCK_STREAM, 0);
        if (connect(b, (struct sockaddr *)&ta, sizeof ta)) {
            close(a);
            close(b);
            continue;
        }
        setsockopt(a, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        setsockopt(b, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        conn *k = malloc(sizeof *k);
        if (!k) {
            close(a);
            close(b);
            continue;
        }
        *k = (conn){a, b, delay_ns, spin};
        pthread_t t;
        if (pthread_create(&t, NULL, serve_conn, k)) {
            close(a);
            close(b);
            free(k);
            continue;
        }
        pthread_detach(t);
    }
}

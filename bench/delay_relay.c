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
 * Usage: delay_relay LISTEN_ADDR:PORT TARGET_ADDR:PORT ONE_WAY_MS
 * (numeric IPv4; runs until killed). Bench tool, not part of fitcheck's build:
 * cc -O2 -pthread bench/delay_relay.c -o delay_relay */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
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
} conn;

static void *serve_conn(void *arg) {
    conn *k = arg;
    pipe_dir d[2] = {{k->a, k->b, k->delay_ns}, {k->b, k->a, k->delay_ns}};
    pthread_t t[2];
    int one = 1;
    for (int i = 0; i < 2; i++) {
        setsockopt(d[i].from, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
        pthread_create(&t[i], NULL, pump, &d[i]);
    }
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
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
    if (argc != 4 || parse_addr(argv[1], &la) || parse_addr(argv[2], &ta)) {
        fprintf(stderr, "usage: delay_relay LISTEN_ADDR:PORT TARGET_ADDR:PORT ONE_WAY_MS\n");
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
    printf("relay %s -> %s, %s ms each way\n", argv[1], argv[2], argv[3]);
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
        *k = (conn){a, b, delay_ns};
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

/* net/: fitcheck's peer protocol. `fitcheck serve` answers on one address;
 * `fitcheck probe --peer HOST[:PORT]` measures the link to it: round-trip
 * time of small messages and throughput each way of large ones, bounded in
 * time and bytes (docs/rpc.md).
 *
 * The wire format (version NET_VERSION), every integer big-endian:
 *
 *   | magic "FCNP" (4) | version (1) | type (1) | reserved 0 (2) | seq (4) | len (4) | payload (len) |
 *
 *   HELLO  -> HELLO   the server's limits as payload (net_limits, 4 x u32)
 *   PING   -> PONG    the same payload back, at most NET_PING_MAX bytes
 *   PUSH   -> (none)  payload of at most NET_CHUNK_MAX bytes, read and dropped
 *   PULL   -> DATA    PULL's payload is one u32 n <= NET_PULL_MAX; DATA carries n bytes
 *   any bad message -> ERROR (one byte, enum net_error), then the server closes
 *
 * The server never sends more than a request asked for (PONG echoes, DATA is
 * what PULL named, within the caps), so it cannot be used to amplify traffic.
 * Every connection must say HELLO first; each has a byte budget per direction
 * and deadlines for a message once begun, for idling and for its whole life. */
#ifndef FC_NET_H
#define FC_NET_H

#include "common/fc.h"
#include "probe/probe.h"

#define NET_VERSION 1
#define NET_MAGIC "FCNP"
#define NET_HDR_BYTES 16
/* In the dynamic range (RFC 6335: 49152-65535 are never assigned), next to
 * llama.cpp rpc-server's 50052 so that one firewall rule can cover both. */
#define NET_DEFAULT_PORT 50152
#define NET_PING_MAX 256                  /* a PING's payload: a small message's round trip */
#define NET_CHUNK_MAX (1u << 20)          /* one PUSH's payload */
#define NET_PULL_MAX (16u << 20)          /* one DATA's payload */

enum net_type { NET_HELLO = 1, NET_PING, NET_PONG, NET_PUSH, NET_PULL, NET_DATA, NET_ERROR, NET_TYPE_END };
enum net_error { NET_ERR_MAGIC = 1, NET_ERR_VERSION, NET_ERR_TYPE, NET_ERR_LENGTH, NET_ERR_ORDER, NET_ERR_BUDGET };
const char *net_error_name(int code);

typedef struct net_hdr {
    uint8_t version, type;
    uint32_t seq, len;
} net_hdr;

/* Encodes a header into b[NET_HDR_BYTES]. */
void net_hdr_write(uint8_t *b, int type, uint32_t seq, uint32_t len);
/* Decodes and checks b[NET_HDR_BYTES]: magic, version, a known type, the
 * reserved bytes, len within the type's cap. *code gets an enum net_error. */
int net_hdr_read(const uint8_t *b, net_hdr *h, int *code, fc_err *err);
/* The largest payload a message of this type may carry. */
uint32_t net_type_max_len(int type);

/* ---- the server side of one connection, as a state machine ---------------
 * No sockets here, so the parser is fuzzed and tested directly: the server
 * reads at most net_conn_want() bytes, hands them to net_conn_feed, and sends
 * what net_conn_output() gives until it is empty. It reads nothing more
 * while a reply is pending, so a connection never holds more than one. */
typedef struct net_limits {
    uint32_t ping_max, chunk_max, pull_max;
    uint32_t budget_mib;                   /* bytes per direction per connection, MiB */
} net_limits;

#define NET_CONN_BUDGET (1ull << 30)     /* 1 GiB each way per connection: 1 s of 10 GbE, ~10 s of 1 GbE */
#define NET_READ_CHUNK (64u << 10)

typedef struct net_conn {
    uint8_t hdr[NET_HDR_BYTES];
    uint32_t hdr_have;
    bool in_body;
    net_hdr cur;
    uint32_t body_have;
    uint8_t body[NET_PING_MAX];            /* inline payloads (PING, PULL); PUSH is dropped as read */
    bool hello_done;
    uint8_t out[NET_HDR_BYTES + NET_PING_MAX];
    uint32_t out_len, out_off;
    uint64_t data_left;                    /* DATA payload bytes still to send (generated, not stored) */
    uint64_t bytes_in, bytes_out;
    bool close_after;                      /* send what is queued, then close */
    uint64_t n_msgs;
} net_conn;

void net_conn_init(net_conn *c);
/* Bytes the connection wants next (0 while a reply is pending or it is closing). */
size_t net_conn_want(const net_conn *c);
/* Consumes n <= net_conn_want() bytes. FC_EINPUT when the peer broke the
 * protocol: an ERROR reply is queued and close_after set. */
int net_conn_feed(net_conn *c, const uint8_t *buf, size_t n, fc_err *err);
/* What to send next: a pointer and a length (0 = nothing); net_conn_sent
 * records that n of them went out. */
size_t net_conn_output(net_conn *c, const uint8_t **buf);
void net_conn_sent(net_conn *c, size_t n);

/* ---- addresses ------------------------------------------------------------ */

/* "HOST", "HOST:PORT", "[V6]:PORT", "V6" into host and port (default_port
 * when none). FC_EINPUT naming the problem; nothing is resolved here. */
int net_addr_split(const char *spec, int default_port, char *host, size_t cap, int *port, fc_err *err);

/* ---- the server ------------------------------------------------------------ */

#define NET_MAX_CONNS 16

typedef struct net_serve_opts {
    const char *bind;                      /* address to bind: only this one (default 127.0.0.1) */
    int port;                              /* 0 = any free port (tests) */
    volatile int *stop;                    /* serve returns when *stop becomes nonzero */
    void (*on_listen)(const char *addr, int port, void *ctx); /* called once bound */
    void *ctx;
} net_serve_opts;

typedef struct net_serve_stats {
    uint64_t accepted, refused, evicted, timed_out, bad, served_msgs;
} net_serve_stats;

/* Serves until *opts->stop (SIGINT/SIGTERM) is set. */
int net_serve(const net_serve_opts *opts, net_serve_stats *st, fc_err *err);

/* ---- the client: measuring a link ----------------------------------------- */

#define NET_PROBE_PINGS 200                /* round trips sampled (p99 needs >= 100) */
#define NET_PROBE_BYTES_MAX (256ull << 20) /* per direction */
#define NET_PROBE_SECONDS 3.0              /* per direction, with the pings: about 10 s in all */

typedef struct net_probe_opts {
    const char *peer;                      /* HOST[:PORT] as the user typed it */
    uint64_t bytes_max;                    /* per direction; 0 = NET_PROBE_BYTES_MAX */
    double seconds;                        /* per direction; 0 = NET_PROBE_SECONDS */
    int n_pings;                           /* 0 = NET_PROBE_PINGS */
} net_probe_opts;

/* Connects only to the address given and measures it into *link. */
int net_probe_peer(const net_probe_opts *o, probe_net_link *link, fc_err *err);

#endif

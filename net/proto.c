/* The peer protocol's messages and the server's side of one connection as a
 * state machine over bytes (net.h has the format). Hostile input assumed:
 * every length is checked against its type's cap before a byte of payload is
 * read, nothing is buffered beyond one small inline payload, and a broken
 * message ends the connection after one short ERROR. */
#include "net/net.h"

#include <stdlib.h>
#include <string.h>

static const char *const error_names[] = {
    [NET_ERR_MAGIC] = "not the fitcheck peer protocol (bad magic)",
    [NET_ERR_VERSION] = "unsupported protocol version",
    [NET_ERR_TYPE] = "unknown message type",
    [NET_ERR_LENGTH] = "message longer than its type allows",
    [NET_ERR_ORDER] = "message out of order (HELLO first; no replies from a client)",
    [NET_ERR_BUDGET] = "connection byte budget spent",
};

const char *net_error_name(int code) {
    return code > 0 && code < (int)FC_ARRAY_LEN(error_names) && error_names[code] ? error_names[code] : "unknown error";
}

static void put_u32(uint8_t *b, uint32_t v) {
    b[0] = (uint8_t)(v >> 24);
    b[1] = (uint8_t)(v >> 16);
    b[2] = (uint8_t)(v >> 8);
    b[3] = (uint8_t)v;
}

static uint32_t get_u32(const uint8_t *b) {
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

uint32_t net_type_max_len(int type) {
    switch (type) {
    case NET_HELLO: return sizeof(net_limits);
    case NET_PING:
    case NET_PONG: return NET_PING_MAX;
    case NET_PUSH: return NET_CHUNK_MAX;
    case NET_PULL: return 4;
    case NET_DATA: return NET_PULL_MAX;
    case NET_ERROR: return 1;
    default: return 0;
    }
}

void net_hdr_write(uint8_t *b, int type, uint32_t seq, uint32_t len) {
    memcpy(b, NET_MAGIC, 4);
    b[4] = NET_VERSION;
    b[5] = (uint8_t)type;
    b[6] = b[7] = 0;
    put_u32(b + 8, seq);
    put_u32(b + 12, len);
}

int net_hdr_read(const uint8_t *b, net_hdr *h, int *code, fc_err *err) {
    memset(h, 0, sizeof *h);
    *code = 0;
    if (memcmp(b, NET_MAGIC, 4) != 0) *code = NET_ERR_MAGIC;
    else if (b[4] != NET_VERSION) *code = NET_ERR_VERSION;
    else if (b[5] < NET_HELLO || b[5] >= NET_TYPE_END || b[6] || b[7]) *code = NET_ERR_TYPE;
    if (*code)
        return fc_err_set(err, FC_EINPUT, "peer message header: %s (version %u, type %u)", net_error_name(*code),
                          b[4], b[5]);
    h->version = b[4];
    h->type = b[5];
    h->seq = get_u32(b + 8);
    h->len = get_u32(b + 12);
    if (h->len > net_type_max_len(h->type)) {
        *code = NET_ERR_LENGTH;
        return fc_err_set(err, FC_EINPUT, "peer message type %u: %u bytes, at most %u allowed", h->type, h->len,
                          net_type_max_len(h->type));
    }
    return FC_OK;
}

/* ---- one connection --------------------------------------------------------- */

void net_conn_init(net_conn *c) { memset(c, 0, sizeof *c); }

static bool reply_pending(const net_conn *c) { return c->out_off < c->out_len || c->data_left > 0; }

size_t net_conn_want(const net_conn *c) {
    if (c->close_after || reply_pending(c)) return 0;
    if (!c->in_body) return NET_HDR_BYTES - c->hdr_have;
    size_t left = c->cur.len - c->body_have;
    return left < NET_READ_CHUNK ? left : NET_READ_CHUNK;
}

static void queue(net_conn *c, int type, uint32_t seq, const uint8_t *payload, uint32_t len, uint64_t data) {
    net_hdr_write(c->out, type, seq, len);
    if (payload && len) memcpy(c->out + NET_HDR_BYTES, payload, len);
    c->out_len = NET_HDR_BYTES + (payload ? len : 0);
    c->out_off = 0;
    c->data_left = data;
}

static int fail(net_conn *c, int code, fc_err *err) {
    uint8_t b = (uint8_t)code;
    queue(c, NET_ERROR, 0, &b, 1, 0);
    c->close_after = true;
    if (err && err->status) return err->status;
    return fc_err_set(err, FC_EINPUT, "peer: %s", net_error_name(code));
}

/* A whole message has arrived (PUSH payloads were dropped as they came). */
static int message_done(net_conn *c, fc_err *err) {
    const net_hdr *h = &c->cur;
    c->n_msgs++;
    c->in_body = false;
    c->hdr_have = 0;
    if (!c->hello_done && h->type != NET_HELLO) return fail(c, NET_ERR_ORDER, err);
    switch (h->type) {
    case NET_HELLO: {
        net_limits lim = {NET_PING_MAX, NET_CHUNK_MAX, NET_PULL_MAX, (uint32_t)(NET_CONN_BUDGET >> 20)};
        uint8_t p[sizeof lim];
        put_u32(p, lim.ping_max);
        put_u32(p + 4, lim.chunk_max);
        put_u32(p + 8, lim.pull_max);
        put_u32(p + 12, lim.budget_mib);
        c->hello_done = true;
        queue(c, NET_HELLO, h->seq, p, sizeof p, 0);
        return FC_OK;
    }
    case NET_PING: queue(c, NET_PONG, h->seq, c->body, h->len, 0); return FC_OK;
    case NET_PUSH: return FC_OK;
    case NET_PULL: {
        if (h->len != 4) return fail(c, NET_ERR_LENGTH, err);
        uint32_t n = get_u32(c->body);
        if (n > NET_PULL_MAX) return fail(c, NET_ERR_LENGTH, err);
        if (c->bytes_out + NET_HDR_BYTES + n > NET_CONN_BUDGET) return fail(c, NET_ERR_BUDGET, err);
        queue(c, NET_DATA, h->seq, NULL, n, n);
        return FC_OK;
    }
    default: return fail(c, NET_ERR_ORDER, err); /* PONG, DATA, ERROR are the server's to send */
    }
}

int net_conn_feed(net_conn *c, const uint8_t *buf, size_t n, fc_err *err) {
    if (n > net_conn_want(c)) return fail(c, NET_ERR_ORDER, err);
    c->bytes_in += n;
    if (c->bytes_in > NET_CONN_BUDGET) return fail(c, NET_ERR_BUDGET, err);
    if (!c->in_body) {
        memcpy(c->hdr + c->hdr_have, buf, n);
        c->hdr_have += (uint32_t)n;
        if (c->hdr_have < NET_HDR_BYTES) return FC_OK;
        int code;
        if (net_hdr_read(c->hdr, &c->cur, &code, err)) return fail(c, code, err);
        c->in_body = true;
        c->body_have = 0;
        return c->cur.len ? FC_OK : message_done(c, err);
    }
    /* Inline payloads are small (their caps are <= sizeof body); PUSH is dropped. */
    if (c->cur.type != NET_PUSH && c->cur.len <= sizeof c->body) memcpy(c->body + c->body_have, buf, n);
    c->body_have += (uint32_t)n;
    return c->body_have < c->cur.len ? FC_OK : message_done(c, err);
}

/* DATA's payload: a fixed pattern, never memory of ours. */
static const uint8_t data_pattern[NET_READ_CHUNK];

size_t net_conn_output(net_conn *c, const uint8_t **buf) {
    if (c->out_off < c->out_len) {
        *buf = c->out + c->out_off;
        return c->out_len - c->out_off;
    }
    if (c->data_left) {
        *buf = data_pattern;
        return c->data_left < sizeof data_pattern ? (size_t)c->data_left : sizeof data_pattern;
    }
    *buf = NULL;
    return 0;
}

void net_conn_sent(net_conn *c, size_t n) {
    c->bytes_out += n;
    if (c->out_off < c->out_len) {
        c->out_off += (uint32_t)n;
        return;
    }
    c->data_left -= n < c->data_left ? n : c->data_left;
}

/* ---- addresses ---------------------------------------------------------------- */

#define NET_HOST_MAX 253  /* the longest DNS name (RFC 1035) */

int net_addr_split(const char *spec, int default_port, char *host, size_t cap, int *port, fc_err *err) {
    size_t n = strlen(spec);
    if (!n || n > NET_HOST_MAX + 8) return fc_err_set(err, FC_EINPUT, "peer address '%.64s': empty or too long", spec);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)spec[i] <= ' ' || (unsigned char)spec[i] >= 0x7f || spec[i] == '/')
            return fc_err_set(err, FC_EINPUT, "peer address: byte %zu is not part of a host name or address", i);
    const char *h = spec, *p = NULL;
    size_t hl;
    if (spec[0] == '[') {
        const char *close = strchr(spec, ']');
        if (!close) return fc_err_set(err, FC_EINPUT, "peer address '%s': '[' without ']'", spec);
        h = spec + 1;
        hl = (size_t)(close - h);
        if (close[1] == ':') p = close + 2;
        else if (close[1]) return fc_err_set(err, FC_EINPUT, "peer address '%s': junk after ']'", spec);
    } else {
        const char *colon = strchr(spec, ':');
        /* more than one colon and no brackets: a bare IPv6 address */
        if (colon && strchr(colon + 1, ':')) colon = NULL;
        hl = colon ? (size_t)(colon - spec) : n;
        if (colon) p = colon + 1;
    }
    if (!hl || hl >= cap) return fc_err_set(err, FC_EINPUT, "peer address '%s': no host, or a host too long", spec);
    memcpy(host, h, hl);
    host[hl] = '\0';
    *port = default_port;
    if (p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (!*p || *end || v < 1 || v > 65535)
            return fc_err_set(err, FC_EINPUT, "peer address '%s': port must be 1..65535", spec);
        *port = (int)v;
    }
    return FC_OK;
}

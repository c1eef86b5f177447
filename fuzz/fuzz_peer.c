/* Fuzz target: the peer protocol (net/proto.c), what `fitcheck serve` reads
 * from anyone who connects. The input is the byte stream of one connection,
 * fed in the pieces the server would read. Oracles beyond "no crash": the
 * server reads nothing while a reply is pending, a reply never exceeds what
 * its request may ask for, and the connection's byte budget holds. */
#include "fuzz/fuzz.h"
#include "net/net.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    net_conn c;
    net_conn_init(&c);
    size_t off = 0;
    while (off < size) {
        size_t want = net_conn_want(&c);
        if (!want) break; /* closing */
        /* vary the read sizes with the data itself, as TCP splits streams */
        size_t n = want < size - off ? want : size - off;
        if (n > 1 && (data[off] & 1)) n = n / 2;
        fc_err err = {0};
        net_conn_feed(&c, data + off, n, &err);
        off += n;
        uint64_t reply = 0;
        const uint8_t *out;
        size_t k;
        while ((k = net_conn_output(&c, &out)) > 0) {
            if (reply == 0 && k >= NET_HDR_BYTES) {
                net_hdr h;
                int code;
                fc_err e2 = {0};
                if (net_hdr_read(out, &h, &code, &e2) != FC_OK) abort(); /* the server's own header must parse */
            }
            reply += k;
            net_conn_sent(&c, k);
        }
        if (reply > (uint64_t)NET_HDR_BYTES + NET_PULL_MAX) abort();
        if (c.bytes_out > NET_CONN_BUDGET || c.bytes_in > NET_CONN_BUDGET + NET_READ_CHUNK) abort();
    }
    /* the address splitter sees hostile --peer text too */
    char spec[300], host[256];
    size_t m = size < sizeof spec - 1 ? size : sizeof spec - 1;
    memcpy(spec, data, m);
    spec[m] = '\0';
    int port;
    fc_err err = {0};
    if (net_addr_split(spec, NET_DEFAULT_PORT, host, sizeof host, &port, &err) == FC_OK && (port < 1 || port > 65535))
        abort();
    return 0;
}

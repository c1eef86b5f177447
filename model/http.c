/* HTTP range reads with libcurl, and the checks on every reply.
 *
 * The server is a stranger: a reply is accepted only if it is a 206 whose
 * Content-Range starts where we asked, ends no later than we asked (earlier
 * only at the end of the file), names the file's size, agrees with its
 * Content-Length and with the bytes that actually arrived. A 200 (the server
 * ignores Range) is refused at its first body byte, so fitcheck never
 * downloads a whole model by accident. Redirects, time and speed are bounded
 * (model.h's HTTP_* limits).
 *
 * libcurl is opened with dlopen when a URL is first read, not linked: with
 * its TLS, Kerberos and LDAP libraries it is 15 MB that every other verb
 * would load, and that scripts/gpu-pack.sh would have to carry to a machine
 * with no network (its bundle limit is 60 MiB). */
#include "model/model.h"

#include <curl/curl.h>
#include <ctype.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Digits only, no sign or space, at most 2^63-1: "0-499/1234" has no room
 * for anything else. Advances *p past the digits. */
static bool parse_u63(const char **p, const char *end, uint64_t *out) {
    const char *s = *p;
    uint64_t v = 0;
    if (s >= end || !isdigit((unsigned char)*s)) return false;
    for (; s < end && isdigit((unsigned char)*s); s++) {
        if (v > (INT64_MAX - 9) / 10) return false;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *p = s;
    *out = v;
    return true;
}

void http_reply_reset(http_reply *r) { memset(r, 0, sizeof *r); }

static void reply_bad(http_reply *r, const char *line, size_t len) {
    if (r->bad[0]) return;
    size_t n = len < sizeof r->bad - 1 ? len : sizeof r->bad - 1;
    for (size_t i = 0; i < n; i++) r->bad[i] = isprint((unsigned char)line[i]) ? line[i] : '?';
    r->bad[n] = '\0';
}

/* "bytes FIRST-LAST/TOTAL", where either side of the slash may be a star. */
static bool parse_content_range(http_reply *r, const char *v, const char *end) {
    if (end - v < 6 || strncasecmp(v, "bytes ", 6)) return false;
    v += 6;
    while (v < end && *v == ' ') v++;
    if (v < end && *v == '*') {
        v++;
        r->has_range = false;
    } else {
        if (!parse_u63(&v, end, &r->first) || v >= end || *v++ != '-' || !parse_u63(&v, end, &r->last)) return false;
        r->has_range = true;
    }
    if (v >= end || *v++ != '/') return false;
    if (v < end && *v == '*') {
        v++;
        r->total_known = false;
    } else {
        if (!parse_u63(&v, end, &r->total)) return false;
        r->total_known = true;
    }
    return v == end;
}

void http_reply_line(http_reply *r, const char *line, size_t len) {
    const char *end = line + len;
    while (end > line && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\t')) end--;
    if (end - line >= 5 && !strncmp(line, "HTTP/", 5)) {
        /* A new response: a redirect's headers are forgotten. */
        http_reply_reset(r);
        const char *sp = memchr(line, ' ', (size_t)(end - line));
        uint64_t code = 0;
        const char *p = sp ? sp + 1 : end;
        if (!sp || !parse_u63(&p, end, &code) || p - (sp + 1) != 3 || (p < end && *p != ' ')) {
            reply_bad(r, line, (size_t)(end - line));
            r->status = -1;
            return;
        }
        r->status = (int)code;
        return;
    }
    const char *colon = memchr(line, ':', (size_t)(end - line));
    if (!colon) return; /* the blank line ending the headers, or junk libcurl tolerates */
    const char *v = colon + 1;
    while (v < end && (*v == ' ' || *v == '\t')) v++;
    size_t name_len = (size_t)(colon - line);
    if (name_len == 13 && !strncasecmp(line, "Content-Range", 13)) {
        /* Two ranges in one reply cannot both be true. */
        if (r->has_range || r->total_known || !parse_content_range(r, v, end)) reply_bad(r, line, (size_t)(end - line));
    } else if (name_len == 14 && !strncasecmp(line, "Content-Length", 14)) {
        uint64_t n = 0;
        const char *p = v;
        if (!parse_u63(&p, end, &n) || p != end || (r->has_length && n != r->length)) {
            reply_bad(r, line, (size_t)(end - line));
            return;
        }
        r->has_length = true;
        r->length = n;
    }
}

int http_reply_check(const http_reply *r, uint64_t off, uint64_t len, uint64_t got, const char *url, fc_err *err) {
    unsigned long long a = off, b = off + len - 1;
    if (r->bad[0]) return fc_err_set(err, FC_EINPUT, "%s: the server sent a header fitcheck cannot trust: '%s'", url, r->bad);
    if (r->status == 200)
        return fc_err_set(err, FC_EINPUT,
                          "%s: the server does not support range requests (HTTP 200 to 'Range: bytes=%llu-%llu'); "
                          "fitcheck reads only a model's header and will not download the whole file",
                          url, a, b);
    if (r->status == 401 || r->status == 403)
        return fc_err_set(err, FC_EINPUT, "%s: access denied (HTTP %d): a gated or private model?", url, r->status);
    if (r->status == 404) return fc_err_set(err, FC_EINPUT, "%s: not found (HTTP 404)", url);
    if (r->status != 206) return fc_err_set(err, FC_EINPUT, "%s: HTTP %d to a range request (expected 206)", url, r->status);
    if (!r->has_range) return fc_err_set(err, FC_EINPUT, "%s: a 206 reply without a byte range (Content-Range)", url);
    if (!r->total_known) return fc_err_set(err, FC_EINPUT, "%s: the server does not say the file's size (Content-Range: .../*)", url);
    unsigned long long f = r->first, l = r->last, t = r->total;
    if (r->first != off || r->last < r->first || r->last > off + len - 1 || r->last >= r->total)
        return fc_err_set(err, FC_EINPUT, "%s: asked for bytes %llu-%llu, the server sent 'bytes %llu-%llu/%llu'", url, a, b, f,
                          l, t);
    if (r->last < off + len - 1 && r->last != r->total - 1)
        return fc_err_set(err, FC_EINPUT, "%s: asked for bytes %llu-%llu of a %llu-byte file, the server sent only %llu-%llu",
                          url, a, b, t, f, l);
    uint64_t span = r->last - r->first + 1;
    if (r->has_length && r->length != span)
        return fc_err_set(err, FC_EINPUT, "%s: Content-Length %llu disagrees with Content-Range bytes %llu-%llu", url,
                          (unsigned long long)r->length, f, l);
    if (got != span)
        return fc_err_set(err, FC_EINPUT, "%s: %llu bytes arrived for bytes %llu-%llu (%llu): truncated or lying reply",
                          url, (unsigned long long)got, f, l, (unsigned long long)span);
    return FC_OK;
}

bool http_is_url(const char *spec) {
    return spec && (!strncasecmp(spec, "http://", 7) || !strncasecmp(spec, "https://", 8));
}

/* The libcurl functions used, from the library Debian's libcurl4 installs. */
#define HTTP_LIBCURL "libcurl.so.4"
static struct {
    bool ready;
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_perform)(CURL *);
    void (*easy_cleanup)(CURL *);
    const char *(*easy_strerror)(CURLcode);
} cu;

/* Not thread-safe (curl_global_init is not either): done once, on the
 * CLI's one thread. */
static int curl_load(fc_err *err) {
    if (cu.ready) return FC_OK;
    void *h = dlopen(HTTP_LIBCURL, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return fc_err_set(err, FC_ERUNTIME, "reading a model by URL needs %s (Debian package libcurl4): %s", HTTP_LIBCURL,
                          dlerror());
    *(void **)&cu.global_init = dlsym(h, "curl_global_init");
    *(void **)&cu.easy_init = dlsym(h, "curl_easy_init");
    *(void **)&cu.easy_setopt = dlsym(h, "curl_easy_setopt");
    *(void **)&cu.easy_perform = dlsym(h, "curl_easy_perform");
    *(void **)&cu.easy_cleanup = dlsym(h, "curl_easy_cleanup");
    *(void **)&cu.easy_strerror = dlsym(h, "curl_easy_strerror");
    if (!cu.global_init || !cu.easy_init || !cu.easy_setopt || !cu.easy_perform || !cu.easy_cleanup ||
        !cu.easy_strerror || cu.global_init(CURL_GLOBAL_DEFAULT))
        return fc_err_set(err, FC_ERUNTIME, "%s is not a usable libcurl", HTTP_LIBCURL);
    cu.ready = true;
    return FC_OK;
}

struct http_conn {
    CURL *curl;
    char url[4096];
    double deadline;    /* fc_now() by which every read must be done */
    char curl_msg[CURL_ERROR_SIZE];
    /* the transfer in progress */
    http_reply reply;
    uint8_t *buf;
    uint64_t cap, got;
    bool refused;       /* the write callback stopped a reply that was not a 206, or ran long */
};

static size_t on_header(char *p, size_t size, size_t n, void *ctx) {
    http_conn *c = ctx;
    http_reply_line(&c->reply, p, size * n);
    return size * n;
}

static size_t on_body(char *p, size_t size, size_t n, void *ctx) {
    http_conn *c = ctx;
    size_t bytes = size * n;
    /* Refused at the first byte: a 200 would be the whole file, a body
     * longer than asked is a server that ignores the range. */
    if (c->reply.status != 206 || bytes > c->cap - c->got) {
        c->refused = true;
        return 0;
    }
    memcpy(c->buf + c->got, p, bytes);
    c->got += bytes;
    return bytes;
}

static double conn_timeout_s(void) {
    const char *e = getenv("FITCHECK_HTTP_TIMEOUT_S");
    char *end;
    double t = e ? strtod(e, &end) : 0;
    return e && *e && !*end && t > 0 && t <= HTTP_TIMEOUT_S * 10 ? t : HTTP_TIMEOUT_S;
}

int http_conn_open(http_conn **out, const char *url, fc_err *err) {
    *out = NULL;
    if (!http_is_url(url)) return fc_err_set(err, FC_EINPUT, "%s is not an http:// or https:// URL", url);
    if (strlen(url) >= sizeof((http_conn *)0)->url) return fc_err_set(err, FC_EINPUT, "URL longer than 4095 bytes");
    if (curl_load(err)) return err->status;
    http_conn *c = calloc(1, sizeof *c);
    if (!c || !(c->curl = cu.easy_init())) {
        free(c);
        return fc_err_set(err, FC_ERUNTIME, "out of memory starting an HTTP connection");
    }
    snprintf(c->url, sizeof c->url, "%s", url);
    double timeout = conn_timeout_s();
    c->deadline = fc_now() + timeout;
    CURL *h = c->curl;
    cu.easy_setopt(h, CURLOPT_URL, c->url);
    cu.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    cu.easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    cu.easy_setopt(h, CURLOPT_MAXREDIRS, (long)HTTP_MAX_REDIRECTS);
    /* Neither the URL nor a redirect may lead to file://, ftp://, ... */
    cu.easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    cu.easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    cu.easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)(1e3 * (timeout < HTTP_CONNECT_TIMEOUT_S ? timeout : HTTP_CONNECT_TIMEOUT_S)));
    cu.easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, (long)HTTP_LOW_SPEED_BYTES);
    cu.easy_setopt(h, CURLOPT_LOW_SPEED_TIME, (long)(timeout < HTTP_LOW_SPEED_S ? (timeout < 1 ? 1 : timeout) : HTTP_LOW_SPEED_S));
    cu.easy_setopt(h, CURLOPT_USERAGENT, "fitcheck/" FITCHECK_VERSION);
    cu.easy_setopt(h, CURLOPT_ERRORBUFFER, c->curl_msg);
    cu.easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    cu.easy_setopt(h, CURLOPT_HEADERDATA, c);
    cu.easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    cu.easy_setopt(h, CURLOPT_WRITEDATA, c);
    *out = c;
    return FC_OK;
}

void http_conn_close(http_conn *c) {
    if (!c) return;
    cu.easy_cleanup(c->curl);
    free(c);
}

int http_conn_read(http_conn *c, uint64_t off, uint64_t len, uint8_t *buf, uint64_t *got, uint64_t *total,
                   fc_err *err) {
    if (len == 0) return fc_err_set(err, FC_ERUNTIME, "empty range read");
    double left = c->deadline - fc_now();
    if (left <= 0) return fc_err_set(err, FC_EINPUT, "%s: timed out (no answer within the time limit)", c->url);
    char range[64];
    snprintf(range, sizeof range, "%llu-%llu", (unsigned long long)off, (unsigned long long)(off + len - 1));
    cu.easy_setopt(c->curl, CURLOPT_RANGE, range);
    cu.easy_setopt(c->curl, CURLOPT_TIMEOUT_MS, (long)(1e3 * left) + 1);
    http_reply_reset(&c->reply);
    c->buf = buf;
    c->cap = len;
    c->got = 0;
    c->refused = false;
    c->curl_msg[0] = '\0';
    CURLcode rc = cu.easy_perform(c->curl);
    *got = c->got;
    if (rc == CURLE_OK || (rc == CURLE_WRITE_ERROR && c->refused)) {
        if (http_reply_check(&c->reply, off, len, c->got, c->url, err)) return err->status;
        if (rc != CURLE_OK)
            return fc_err_set(err, FC_EINPUT, "%s: the server sent more than the %llu bytes asked for", c->url,
                              (unsigned long long)len);
        *total = c->reply.total;
        return FC_OK;
    }
    const char *why = c->curl_msg[0] ? c->curl_msg : cu.easy_strerror(rc);
    switch (rc) {
    case CURLE_TOO_MANY_REDIRECTS:
        return fc_err_set(err, FC_EINPUT, "%s: more than %d redirects (a redirect loop?)", c->url, HTTP_MAX_REDIRECTS);
    case CURLE_OPERATION_TIMEDOUT:
        return fc_err_set(err, FC_EINPUT, "%s: too slow or no answer: %s", c->url, why);
    case CURLE_PARTIAL_FILE:
        return fc_err_set(err, FC_EINPUT, "%s: truncated reply (the connection closed before Content-Length): %s", c->url, why);
    default:
        return fc_err_set(err, FC_EINPUT, "%s: %s", c->url, why);
    }
}

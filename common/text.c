/* Untrusted text made safe for a terminal: the one rule of common/fc.h.
 *
 * A GGUF's general.name, a tensor name, a profile's hostname or a peer's reply
 * is written by a stranger. Printed raw, ESC ] 0 ; ... BEL retitles the window,
 * ESC [ 8 m hides what follows, OSC 52 writes the clipboard, U+202E reverses
 * the line so it reads as something else. Here every character is either
 * copied (printable and valid UTF-8) or shown as a visible ASCII escape. */
#include "common/fc.h"

#include <stdio.h>
#include <string.h>

/* U+2026 HORIZONTAL ELLIPSIS: marks a value cut at its limit. */
#define ELLIPSIS "\xE2\x80\xA6"
#define ELLIPSIS_LEN 3
/* U+FFFD REPLACEMENT CHARACTER: stands for each byte that is not UTF-8. */
#define REPLACEMENT "\xEF\xBF\xBD"

/* Code points that reorder or break the text around them without a glyph:
 * the bidirectional embeddings, overrides and isolates of Unicode's UAX #9
 * (the "Trojan Source" set, CVE-2021-42574: U+202A-202E, U+2066-2069, plus
 * the marks U+061C, U+200E, U+200F) and the line/paragraph separators
 * U+2028/2029 that some terminals and editors break lines on. */
static bool cp_invisible_control(uint32_t cp) {
    return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x2028 && cp <= 0x202E) ||
           (cp >= 0x2066 && cp <= 0x2069);
}

/* Length of the valid UTF-8 sequence at p (1..4) and its code point, or 0
 * when the bytes are not UTF-8 (stray continuation, overlong form, surrogate,
 * beyond U+10FFFF, cut short), following RFC 3629's table of well-formed
 * byte sequences. */
static size_t utf8_decode(const unsigned char *p, uint32_t *cp) {
    unsigned c = p[0];
    size_t n;
    unsigned lo = 0x80, hi = 0xBF; /* range of the second byte */
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        *cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        *cp = c & 0x0F;
        if (c == 0xE0) lo = 0xA0;      /* overlong */
        else if (c == 0xED) hi = 0x9F; /* UTF-16 surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        *cp = c & 0x07;
        if (c == 0xF0) lo = 0x90;      /* overlong */
        else if (c == 0xF4) hi = 0x8F; /* beyond U+10FFFF */
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        unsigned b = p[i]; /* the terminating NUL fails this test: no read past it */
        if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xBF)) return 0;
        *cp = (*cp << 6) | (b & 0x3F);
    }
    return n;
}

/* "\x1b" (kind 'x', 2 digits) or "\u202e" ('u', 4) into rep: by hand, since
 * a hostile name is mostly escapes and snprintf per character was the cost. */
static size_t escape_hex(char *rep, char kind, uint32_t cp, int digits) {
    static const char hex[] = "0123456789abcdef";
    rep[0] = '\\';
    rep[1] = kind;
    for (int i = 0; i < digits; i++) rep[2 + i] = hex[(cp >> (4 * (digits - 1 - i))) & 0xF];
    rep[2 + digits] = '\0';
    return (size_t)(2 + digits);
}

size_t fc_text_next(const char *src, char rep[FC_TEXT_REP_MAX], size_t *len) {
    const unsigned char *p = (const unsigned char *)src;
    uint32_t cp;
    size_t n = utf8_decode(p, &cp);
    if (n == 0) {
        *len = 1;
        memcpy(rep, REPLACEMENT, sizeof REPLACEMENT);
        return sizeof REPLACEMENT - 1;
    }
    *len = n;
    if (cp < 0x20 || cp == 0x7F) return escape_hex(rep, 'x', cp, 2);
    if ((cp >= 0x80 && cp <= 0x9F) || cp_invisible_control(cp)) return escape_hex(rep, 'u', cp, 4);
    memcpy(rep, src, n);
    rep[n] = '\0';
    return n;
}

size_t fc_text_safe(char *dst, size_t cap, const char *src, size_t max_len) {
    if (cap == 0) return 0;
    size_t limit = max_len < cap - 1 ? max_len : cap - 1;
    size_t out = 0, mark = 0; /* mark: last character boundary that leaves room for the ellipsis */
    const char *p = src ? src : "";
    while (*p) {
        char rep[FC_TEXT_REP_MAX];
        size_t used, n = fc_text_next(p, rep, &used);
        if (out + n > limit) {
            /* Cut at a character boundary and say so; a limit too small for
             * the ellipsis just cuts. */
            out = limit >= ELLIPSIS_LEN ? mark : out;
            if (limit >= ELLIPSIS_LEN) {
                memcpy(dst + out, ELLIPSIS, ELLIPSIS_LEN);
                out += ELLIPSIS_LEN;
            }
            break;
        }
        memcpy(dst + out, rep, n);
        out += n;
        if (out + ELLIPSIS_LEN <= limit) mark = out;
        p += used;
    }
    dst[out] = '\0';
    return out;
}

/* Buffers of fc_safe: enough for every string argument of one printf. */
#define SAFE_RING 8

const char *fc_safe(const char *src) {
    static _Thread_local char ring[SAFE_RING][FC_TEXT_MAX + 1];
    static _Thread_local unsigned next;
    char *buf = ring[next++ % SAFE_RING];
    fc_text_safe(buf, sizeof ring[0], src, FC_TEXT_MAX);
    return buf;
}

void fc_text_fputs(const char *src, FILE *fp) {
    for (const char *p = src ? src : ""; *p;) {
        if (*p == '\n' || *p == '\t') {
            fputc(*p++, fp);
            continue;
        }
        char rep[FC_TEXT_REP_MAX];
        size_t used;
        fc_text_next(p, rep, &used);
        fputs(rep, fp);
        p += used;
    }
}

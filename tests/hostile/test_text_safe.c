/* The rule for untrusted text (common/text.c, common/fc.h): what each kind of
 * hostile character becomes, where a long value is cut, and that the error
 * messages apply it. The properties over arbitrary bytes (valid UTF-8, no
 * control, idempotent) are fuzz/fuzz_text.c's, replayed by fuzz_replay_text. */
#include "../check.h"
#include "common/fc.h"

#include <string.h>

static void expect(const char *src, size_t max_len, const char *want) {
    char out[256];
    size_t n = fc_text_safe(out, sizeof out, src, max_len);
    CHECK_MSG(!strcmp(out, want) && n == strlen(want), "%zu-byte input: got \"%s\" (%zu), want \"%s\"", src ? strlen(src) : 0,
              out, n, want);
}

#define FFFD "\xEF\xBF\xBD"
#define ELL "\xE2\x80\xA6"

int main(void) {
    /* Copied: printable ASCII, UTF-8 text, a backslash. */
    expect("Llama 3.2 1B Instruct", 100, "Llama 3.2 1B Instruct");
    expect("h\xC3\xA9llo \xC2\xB1 \xE4\xB8\x96\xE7\x95\x8C \xF0\x9F\x99\x82 a\\b", 100,
           "h\xC3\xA9llo \xC2\xB1 \xE4\xB8\x96\xE7\x95\x8C \xF0\x9F\x99\x82 a\\b");
    expect(NULL, 100, "");
    /* C0 and DEL: the window title (OSC 0), conceal (SGR 8), CR, TAB, LF, BS. */
    expect("\x1b]0;x\x07\x1b[8m", 100, "\\x1b]0;x\\x07\\x1b[8m");
    expect("a\rb\tc\nd\be\x7f", 100, "a\\x0db\\x09c\\x0ad\\x08e\\x7f");
    /* C1 as code points (UTF-8 C2 80..C2 9F): CSI U+009B, OSC U+009D, NEL U+0085. */
    expect("\xC2\x9B" "2J\xC2\x9D\xC2\x85", 100, "\\u009b2J\\u009d\\u0085");
    /* Bidi overrides, isolates and marks; line and paragraph separators. */
    expect("\xE2\x80\xAE" "evil\xE2\x80\xAC", 100, "\\u202eevil\\u202c");
    expect("\xE2\x81\xA6\xE2\x81\xA9\xE2\x80\x8F\xD8\x9C\xE2\x80\xA8\xE2\x80\xA9", 100,
           "\\u2066\\u2069\\u200f\\u061c\\u2028\\u2029");
    /* Not UTF-8: a raw CSI byte, stray continuation, overlong '/', a surrogate,
     * beyond U+10FFFF, a sequence cut by the end: one U+FFFD per byte. */
    expect("\x9B" "31m", 100, FFFD "31m");
    expect("\x80\xC0\xAF", 100, FFFD FFFD FFFD);
    expect("\xED\xA0\x80", 100, FFFD FFFD FFFD);
    expect("\xF4\x90\x80\x80", 100, FFFD FFFD FFFD FFFD);
    expect("a\xE2\x80", 100, "a" FFFD FFFD);
    expect("\xE0\x9F\xBF", 100, FFFD FFFD FFFD); /* overlong 3-byte form */
    expect("\xF0\x90\x80\x80", 100, "\xF0\x90\x80\x80");   /* U+10000: the first 4-byte code point */
    expect("\xF4\x8F\xBF\xBF", 100, "\xF4\x8F\xBF\xBF");   /* U+10FFFF: the last */
    /* Cut at max_len bytes, at a character boundary, the ellipsis inside the limit. */
    expect("abcdefghijklmnop", 10, "abcdefg" ELL);
    expect("abcdefghij", 10, "abcdefghij"); /* exactly the limit: nothing cut */
    expect("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", 8, "\xC3\xA9\xC3\xA9" ELL);
    expect("\x1b\x1b\x1b", 9, "\\x1b" ELL); /* an escape is never cut in half */
    expect("abcdef", 2, "ab");              /* no room for the ellipsis: just cut */
    /* The buffer caps too: cap 5 holds 4 bytes and the NUL. */
    char small[5];
    fc_text_safe(small, sizeof small, "abcdefgh", 100);
    CHECK(!strcmp(small, "a" ELL));
    /* Idempotent on its own output. */
    char once[256], twice[256];
    const char *nasty = "\x1b]52;c;SGVsbG8=\x07\x9b\xC2\x9b\xE2\x80\xAE\xC3\xA9 \xF0\x9F\x99";
    fc_text_safe(once, sizeof once, nasty, 40);
    fc_text_safe(twice, sizeof twice, once, 40);
    CHECK_MSG(!strcmp(once, twice), "\"%s\" became \"%s\"", once, twice);

    /* fc_safe: eight buffers, so one printf's arguments do not overwrite each other. */
    const char *s[8];
    char want[8][8];
    for (int i = 0; i < 8; i++) {
        char in[8];
        snprintf(in, sizeof in, "\x1b%d", i);
        snprintf(want[i], sizeof want[i], "\\x1b%d", i);
        s[i] = fc_safe(in);
    }
    for (int i = 0; i < 8; i++) CHECK_MSG(!strcmp(s[i], want[i]), "fc_safe #%d: \"%s\"", i, s[i]);
    char big[3 * FC_TEXT_MAX];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    CHECK(strlen(fc_safe(big)) == FC_TEXT_MAX);

    /* Every error message follows the rule, whatever path built it. */
    fc_err e;
    fc_err_set(&e, FC_EINPUT, "key %s is bad", "k\x1b[8m\x9b");
    CHECK_MSG(!strcmp(e.msg, "key k\\x1b[8m" FFFD " is bad"), "fc_err_set: \"%s\"", e.msg);
    fc_err_prefix(&e, "%s: ", "f\xE2\x80\xAE.gguf");
    CHECK_MSG(!strcmp(e.msg, "f\\u202e.gguf: key k\\x1b[8m" FFFD " is bad"), "fc_err_prefix: \"%s\"", e.msg);
    /* A long message stays within the buffer and ends in the ellipsis. */
    fc_err_set(&e, FC_EINPUT, "%s", big);
    CHECK(strlen(e.msg) == FC_ERR_MSG_MAX - 1 && !strcmp(e.msg + strlen(e.msg) - 3, ELL));
    fc_err_prefix(&e, "%s", "\x1b");
    CHECK(strlen(e.msg) <= FC_ERR_MSG_MAX - 1 && !strncmp(e.msg, "\\x1bxxx", 7));
    return check_done("text_safe");
}

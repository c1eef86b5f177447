/* fitcheck common: error reporting, untrusted text, checked arithmetic, atomic files, paths.
 *
 * Every library function reports failure by returning a status (never exit()) and
 * filling an fc_err with a message that names what failed and where. The CLI maps
 * the status straight to the process exit code, so the numbers are part of the API. */
#ifndef FC_H
#define FC_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum fc_status {
    FC_OK = 0,
    FC_ERUNTIME = 1, /* the machine or environment failed us: I/O, no driver, out of memory */
    FC_EINPUT = 2,   /* the user's input is wrong: bad flag, malformed file, impossible request */
};

/* Longest message kept; longer ones are truncated, never overflowed. */
#define FC_ERR_MSG_MAX 512

typedef struct fc_err {
    int status;
    char msg[FC_ERR_MSG_MAX];
} fc_err;

/* Records status and a printf-style message; returns status so callers can
 * `return fc_err_set(err, FC_EINPUT, "...")`. err may be NULL. */
int fc_err_set(fc_err *err, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Prepends context ("reading model.gguf: ") to an existing message. */
int fc_err_prefix(fc_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fc_err_clear(fc_err *err);

/* ---- untrusted text: THE RULE ---------------------------------------------
 * Every string that came from outside the program — a GGUF's names, keys and
 * tokens, a config.json, a machine profile, llama-bench output, a network peer,
 * an HTTP server, a file name, a command-line argument echoed back — passes
 * through fc_text_safe() (or fc_safe()) before it is written as text for
 * people: to stdout or stderr, into a table cell, a note, an error message or
 * the HTML report. JSON output keeps the raw value (jansson escapes it, ASCII
 * only), so machines still get exactly what the file said.
 *
 * What the rule does (docs/security.md):
 * - C0 controls and DEL (ESC, BEL, CR, LF, TAB ...) become "\x1b"-style escapes;
 * - C1 controls U+0080..U+009F (CSI U+009B, OSC U+009D ...) and the invisible
 *   reordering characters (bidi embeddings/overrides/isolates U+202A..202E,
 *   U+2066..2069, marks U+061C/200E/200F, separators U+2028/2029) become
 *   "\u202e"-style escapes;
 * - each byte that is not part of well-formed UTF-8 becomes U+FFFD;
 * - the result is cut at a character boundary to max_len bytes, "…" marking
 *   the cut. Backslashes are copied as they are (a literal "\x1b" in a name
 *   looks like an escaped one: harmless, only ambiguous).
 * The output is valid UTF-8 without a control character, and running the rule
 * on its own output changes nothing. Boundaries that apply it for every
 * caller: fc_err_set/fc_err_prefix (every error message), rep_cell_str and
 * rep_cell_text (every table cell), the CSV writer, rep_html_escape. */

/* Longest untrusted field printed by fc_safe, in bytes of output. Long
 * enough for any path (PATH_MAX is 4096 but real ones are far shorter) and any
 * real model name; a hostile 1 GiB name prints as 1 KiB and an ellipsis. */
#define FC_TEXT_MAX 1024
/* Longest shown form of one character: "\u202e" and its NUL. */
#define FC_TEXT_REP_MAX 8

/* Writes the safe form of src (NULL reads as "") into dst, at most
 * min(max_len, cap - 1) bytes plus the NUL; returns the bytes written. */
size_t fc_text_safe(char *dst, size_t cap, const char *src, size_t max_len);
/* fc_text_safe into one of 8 per-thread buffers, capped at FC_TEXT_MAX:
 * printf("%s\n", fc_safe(name)). A buffer is reused by the 9th later call on
 * the same thread, so use the result at once (one printf's arguments). */
const char *fc_safe(const char *src);
/* Writes multi-line text of any length under the rule, keeping its newlines
 * and tabs: what a model generates (`fitcheck run`), uncapped. */
void fc_text_fputs(const char *src, FILE *fp);
/* The safe form of the one character at src (not at its NUL): writes it as a
 * string into rep, sets *len to the source bytes it stands for and returns
 * the length of rep. For writers that add their own escaping (HTML). */
size_t fc_text_next(const char *src, char rep[FC_TEXT_REP_MAX], size_t *len);

/* Overflow-checked size arithmetic: return false on overflow, *out untouched. */
static inline bool fc_mul_u64(uint64_t a, uint64_t b, uint64_t *out) {
    return !__builtin_mul_overflow(a, b, out);
}
static inline bool fc_add_u64(uint64_t a, uint64_t b, uint64_t *out) {
    return !__builtin_add_overflow(a, b, out);
}

/* malloc/calloc that never return NULL silently: NULL means the request was
 * refused and err says how much was asked for. */
void *fc_malloc(size_t n, fc_err *err);
void *fc_calloc(size_t count, size_t size, fc_err *err);

/* ---- atomic files -------------------------------------------------------
 * Everything fitcheck writes goes to "<path>.tmp.<pid>" and is renamed over
 * the target on commit, so a crash, Ctrl-C or full disk never leaves a
 * truncated file. An interrupted process removes its pending temp files from
 * the signal handler installed by fc_atomic_install_signal_cleanup(). */
typedef struct fc_atomic_file {
    FILE *fp;
    char path[4096];
    char tmp[4096 + 32];
    int lock_fd; /* advisory lock on "<path>.lock", -1 when unlocked */
} fc_atomic_file;

int fc_atomic_open(fc_atomic_file *af, const char *path, fc_err *err);
/* Flushes, fsyncs and renames; on any failure removes the temp file. */
int fc_atomic_commit(fc_atomic_file *af, fc_err *err);
void fc_atomic_abort(fc_atomic_file *af);
/* Writes a whole buffer atomically. */
int fc_write_file_atomic(const char *path, const void *data, size_t len, fc_err *err);
void fc_atomic_install_signal_cleanup(void);
/* Set by the SIGINT/SIGTERM handler; long loops poll it and stop cleanly. */
extern volatile int fc_interrupted;

/* Creates a directory and its parents (mode 0755). */
int fc_mkdir_p(const char *dir, fc_err *err);
/* $XDG_CACHE_HOME/fitcheck or ~/.cache/fitcheck into buf. */
int fc_cache_dir(char *buf, size_t cap, fc_err *err);
/* Whether a file can be written at path (atomically: its directory is
 * created if missing and must be writable; an existing path must be a
 * regular file), checked before the work whose result it will hold. */
int fc_check_writable(const char *path, fc_err *err);
/* Opens path read-only, never blocking: O_NONBLOCK so a FIFO without a writer
 * or a device cannot hang open(), then the type is checked before a byte is
 * read — anything but a regular file is FC_EINPUT naming what it is. Returns
 * the descriptor (blocking again) or -1 with err set. */
int fc_open_regular(const char *path, fc_err *err);
/* Reads a whole small regular file (at most max_bytes) into a NUL-terminated buffer. */
int fc_read_file(const char *path, size_t max_bytes, char **out, size_t *len, fc_err *err);

/* Monotonic wall clock in seconds. */
double fc_now(void);

/* Human-readable sizes for tables: "4.58 GiB", "512 MiB". */
const char *fc_fmt_bytes(uint64_t bytes, char *buf, size_t cap);

/* A data file built into the binary by scripts/embed.py (catalogs): data is
 * NUL-terminated, len excludes the NUL. */
typedef struct fc_embed_file {
    const char *name;
    const unsigned char *data;
    size_t len;
} fc_embed_file;

#define FC_GIB (1024.0 * 1024.0 * 1024.0)
#define FC_MIB (1024.0 * 1024.0)
#define FC_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif

#include "common/fc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

volatile int fc_interrupted = 0;

/* Temp files pending commit, so the signal handler can remove them. Only a
 * handful are ever open at once (one per output file). */
#define FC_MAX_PENDING 8
static char pending[FC_MAX_PENDING][4096 + 32];

static void pending_add(const char *tmp) {
    for (int i = 0; i < FC_MAX_PENDING; i++)
        if (!pending[i][0]) {
            snprintf(pending[i], sizeof pending[i], "%s", tmp);
            return;
        }
}

static void pending_del(const char *tmp) {
    for (int i = 0; i < FC_MAX_PENDING; i++)
        if (!strcmp(pending[i], tmp)) pending[i][0] = '\0';
}

static void on_signal(int sig) {
    /* unlink is async-signal-safe; a second signal kills us the default way. */
    for (int i = 0; i < FC_MAX_PENDING; i++)
        if (pending[i][0]) unlink(pending[i]);
    if (fc_interrupted) {
        signal(sig, SIG_DFL);
        raise(sig);
    }
    fc_interrupted = 1;
}

void fc_atomic_install_signal_cleanup(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* Takes the exclusive lock on the file named lock; -1 if it cannot (a
 * read-only directory, or a signal while waiting): the write then goes ahead
 * unlocked, still atomic through the rename. The holder before us unlinks the
 * lock file when it releases, so the file we waited on may no longer be the
 * one at that name, and a third process may already hold the new one: retry
 * until the locked file is the named one (found by tests/hostile/test_atomic.c). */
static int lock_acquire(const char *lock) {
    for (;;) {
        int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) return -1;
        if (flock(fd, LOCK_EX) != 0) {
            close(fd);
            return -1;
        }
        struct stat held, named;
        if (fstat(fd, &held) == 0 && stat(lock, &named) == 0 && held.st_dev == named.st_dev &&
            held.st_ino == named.st_ino)
            return fd;
        close(fd);
    }
}

int fc_atomic_open(fc_atomic_file *af, const char *path, fc_err *err) {
    memset(af, 0, sizeof *af);
    af->lock_fd = -1;
    if (strlen(path) >= sizeof af->path)
        return fc_err_set(err, FC_EINPUT, "output path too long (%zu bytes)", strlen(path));
    snprintf(af->path, sizeof af->path, "%s", path);
    /* The lock serializes two fitcheck processes writing the same file: the
     * second waits, then replaces the first's complete file with its own. */
    char lock[4096 + 8];
    snprintf(lock, sizeof lock, "%s.lock", path);
    af->lock_fd = lock_acquire(lock);
    snprintf(af->tmp, sizeof af->tmp, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(af->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        fc_atomic_abort(af);
        return fc_err_set(err, FC_ERUNTIME, "cannot write %s: %s", path, strerror(e));
    }
    af->fp = fdopen(fd, "wb");
    if (!af->fp) {
        close(fd);
        fc_atomic_abort(af);
        return fc_err_set(err, FC_ERUNTIME, "cannot write %s: %s", path, strerror(errno));
    }
    pending_add(af->tmp);
    return FC_OK;
}

static void release_lock(fc_atomic_file *af) {
    if (af->lock_fd >= 0) {
        char lock[4096 + 8];
        snprintf(lock, sizeof lock, "%s.lock", af->path);
        unlink(lock);
        flock(af->lock_fd, LOCK_UN);
        close(af->lock_fd);
        af->lock_fd = -1;
    }
}

void fc_atomic_abort(fc_atomic_file *af) {
    if (af->fp) {
        fclose(af->fp);
        af->fp = NULL;
    }
    if (af->tmp[0]) {
        unlink(af->tmp);
        pending_del(af->tmp);
        af->tmp[0] = '\0';
    }
    release_lock(af);
}

int fc_atomic_commit(fc_atomic_file *af, fc_err *err) {
    if (!af->fp) return fc_err_set(err, FC_ERUNTIME, "no open file for %s", af->path);
    if (fc_interrupted) {
        fc_atomic_abort(af);
        return fc_err_set(err, FC_ERUNTIME, "interrupted; %s left unchanged", af->path);
    }
    int bad = ferror(af->fp) || fflush(af->fp) != 0 || fsync(fileno(af->fp)) != 0;
    int e = errno;
    if (fclose(af->fp) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    af->fp = NULL;
    if (bad) {
        fc_atomic_abort(af);
        return fc_err_set(err, FC_ERUNTIME, "writing %s failed: %s", af->path, strerror(e));
    }
    if (rename(af->tmp, af->path) != 0) {
        e = errno;
        fc_atomic_abort(af);
        return fc_err_set(err, FC_ERUNTIME, "cannot replace %s: %s", af->path, strerror(e));
    }
    pending_del(af->tmp);
    af->tmp[0] = '\0';
    release_lock(af);
    return FC_OK;
}

int fc_write_file_atomic(const char *path, const void *data, size_t len, fc_err *err) {
    fc_atomic_file af;
    int rc = fc_atomic_open(&af, path, err);
    if (rc) return rc;
    if (len && fwrite(data, 1, len, af.fp) != len) {
        fc_atomic_abort(&af);
        return fc_err_set(err, FC_ERUNTIME, "writing %s failed: %s", path, strerror(errno));
    }
    return fc_atomic_commit(&af, err);
}

int fc_mkdir_p(const char *dir, fc_err *err) {
    char buf[4096];
    if (strlen(dir) >= sizeof buf) return fc_err_set(err, FC_EINPUT, "directory path too long");
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return fc_err_set(err, FC_ERUNTIME, "cannot create directory %s: %s", buf, strerror(errno));
            *p = c;
            if (!c) break;
        }
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return fc_err_set(err, FC_ERUNTIME, "%s is not a directory", dir);
    return FC_OK;
}

int fc_cache_dir(char *buf, size_t cap, fc_err *err) {
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (xdg && xdg[0] == '/')
        n = snprintf(buf, cap, "%s/fitcheck", xdg);
    else if (home && home[0])
        n = snprintf(buf, cap, "%s/.cache/fitcheck", home);
    else
        return fc_err_set(err, FC_ERUNTIME, "neither XDG_CACHE_HOME nor HOME is set");
    if (n < 0 || (size_t)n >= cap) return fc_err_set(err, FC_EINPUT, "cache directory path too long");
    return FC_OK;
}

int fc_check_writable(const char *path, fc_err *err) {
    char dir[4096];
    int n = snprintf(dir, sizeof dir, "%s", path);
    if (n < 0 || (size_t)n >= sizeof dir) return fc_err_set(err, FC_EINPUT, "path too long: %.64s...", path);
    char *slash = strrchr(dir, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == dir) dir[1] = '\0';
    else *slash = '\0';
    if (fc_mkdir_p(dir, err)) return fc_err_prefix(err, "cannot write %s: ", path);
    /* the atomic writer makes a temporary file beside the target and renames it */
    if (access(dir, W_OK))
        return fc_err_set(err, FC_EINPUT, "cannot write %s: directory %s is not writable: %s", path, dir, strerror(errno));
    struct stat st;
    if (!stat(path, &st) && !S_ISREG(st.st_mode))
        return fc_err_set(err, FC_EINPUT, "cannot write %s: it is %s", path,
                          S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
    return FC_OK;
}

static const char *file_kind(mode_t m) {
    return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
         : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

int fc_open_regular(const char *path, fc_err *err) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        fc_err_set(err, errno == ENOENT || errno == ENOTDIR || errno == EACCES ? FC_EINPUT : FC_ERUNTIME,
                   "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        fc_err_set(err, FC_ERUNTIME, "cannot stat %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        fc_err_set(err, FC_EINPUT, "%s is %s, not a regular file", path, file_kind(st.st_mode));
        close(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
        fc_err_set(err, FC_ERUNTIME, "cannot read %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

int fc_read_file(const char *path, size_t max_bytes, char **out, size_t *len, fc_err *err) {
    *out = NULL;
    int fd = fc_open_regular(path, err);
    if (fd < 0) return err ? err->status : FC_EINPUT;
    FILE *fp = fdopen(fd, "rb");
    if (!fp) {
        close(fd);
        return fc_err_set(err, FC_ERUNTIME, "cannot read %s: %s", path, strerror(errno));
    }
    size_t cap = 0, n = 0;
    char *buf = NULL;
    for (;;) {
        if (n == cap) {
            if (cap >= max_bytes) {
                free(buf);
                fclose(fp);
                return fc_err_set(err, FC_EINPUT, "%s is larger than the %zu-byte limit", path, max_bytes);
            }
            cap = cap ? cap * 2 : 65536;
            if (cap > max_bytes) cap = max_bytes;
            char *nb = realloc(buf, cap + 1);
            if (!nb) {
                free(buf);
                fclose(fp);
                return fc_err_set(err, FC_ERUNTIME, "out of memory reading %s", path);
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n, fp);
        n += got;
        if (got == 0) break;
    }
    int bad = ferror(fp);
    fclose(fp);
    if (bad) {
        free(buf);
        return fc_err_set(err, FC_EINPUT, "error reading %s", path);
    }
    if (!buf) buf = malloc(1);
    if (!buf) return fc_err_set(err, FC_ERUNTIME, "out of memory reading %s", path);
    buf[n] = '\0';
    *out = buf;
    if (len) *len = n;
    return FC_OK;
}

double fc_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

const char *fc_fmt_bytes(uint64_t bytes, char *buf, size_t cap) {
    double b = (double)bytes;
    if (b >= FC_GIB)
        snprintf(buf, cap, "%.2f GiB", b / FC_GIB);
    else if (b >= FC_MIB)
        snprintf(buf, cap, "%.1f MiB", b / FC_MIB);
    else if (b >= 1024)
        snprintf(buf, cap, "%.1f KiB", b / 1024);
    else
        snprintf(buf, cap, "%llu B", (unsigned long long)bytes);
    return buf;
}

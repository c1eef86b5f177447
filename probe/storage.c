/* Storage: sequential read bandwidth of the file system holding the models,
 * which bounds how fast a model loads. The page cache is bypassed with
 * O_DIRECT where the file system allows it; elsewhere the cached pages are
 * dropped (posix_fadvise DONTNEED) first, and storage_direct says which.
 *
 * The largest file already in the directory is read when there is one big
 * enough (no writing at all); otherwise a temporary file is written, sized
 * by the free space so the disk is never filled, and unlinked right after
 * it is created, so not even a crash leaves it behind. */
#include "probe/probe_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define STORAGE_CHUNK (4u << 20)
#define STORAGE_ALIGN 4096u              /* O_DIRECT wants sector-aligned buffers */
#define STORAGE_MIN_EXISTING (64ull << 20)
#define STORAGE_TEMP_BYTES (256ull << 20)
#define STORAGE_TEMP_MIN (16ull << 20)
#define STORAGE_FREE_DIVISOR 8           /* the temp file takes at most 1/8 of the free space */
#define STORAGE_MAX_READ (1ull << 30)
#define STORAGE_MAX_SECONDS 1.5

static bool largest_file(const char *dir, char *out, size_t cap, uint64_t *size) {
    DIR *d = opendir(dir);
    if (!d) return false;
    struct dirent *e;
    *size = 0;
    while ((e = readdir(d))) {
        char path[PATH_MAX];
        struct stat st;
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path) continue;
        if (stat(path, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size <= *size) continue;
        if (access(path, R_OK)) continue;
        *size = (uint64_t)st.st_size;
        snprintf(out, cap, "%s", path);
    }
    closedir(d);
    return *size >= STORAGE_MIN_EXISTING;
}

/* Writes `bytes` of non-repeating data (compressing file systems would
 * otherwise read zeros for free) to an unlinked temp file; returns its fd. */
static int temp_file(const char *dir, uint64_t bytes, char *buf, fc_err *err) {
    char path[PATH_MAX];
    int n = snprintf(path, sizeof path, "%s/.fitcheck-probe-%d.tmp", dir, (int)getpid());
    if (n < 0 || (size_t)n >= sizeof path) return fc_err_set(err, FC_EINPUT, "models directory path too long"), -1;
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) return fc_err_set(err, FC_ERUNTIME, "cannot create a test file in %s: %s", dir, strerror(errno)), -1;
    unlink(path);
    uint64_t x = 0x2545F4914F6CDD1Dull;
    for (uint64_t done = 0; done < bytes; done += STORAGE_CHUNK) {
        for (size_t i = 0; i < STORAGE_CHUNK; i += sizeof x) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            memcpy(buf + i, &x, sizeof x);
        }
        if (write(fd, buf, STORAGE_CHUNK) != (ssize_t)STORAGE_CHUNK || fc_interrupted) {
            fc_err_set(err, FC_ERUNTIME, "cannot write a test file in %s: %s", dir, strerror(errno));
            close(fd);
            return -1;
        }
    }
    fdatasync(fd);
    return fd;
}

/* Reopens fd for reading, with O_DIRECT when the file system takes it. */
static int open_uncached(const char *path, bool *direct) {
    int fd = open(path, O_RDONLY | O_DIRECT);
    *direct = fd >= 0;
    if (fd < 0) {
        fd = open(path, O_RDONLY);
        if (fd >= 0) posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    }
    return fd;
}

int probe_storage(probe_profile *p, const char *dir, fc_err *err) {
    char real[PATH_MAX];
    if (!realpath(dir, real)) return fc_err_set(err, FC_EINPUT, "models directory %s: %s", dir, strerror(errno));
    int n = snprintf(p->storage_path, sizeof p->storage_path, "%s", real);
    if (n < 0 || (size_t)n >= sizeof p->storage_path) return fc_err_set(err, FC_EINPUT, "models directory path too long");
    char *buf;
    if (posix_memalign((void **)&buf, STORAGE_ALIGN, STORAGE_CHUNK))
        return fc_err_set(err, FC_ERUNTIME, "out of memory for the storage test");
    char path[PATH_MAX];
    uint64_t size;
    int fd, tmp_fd = -1;
    if (largest_file(real, path, sizeof path, &size)) {
        fd = open_uncached(path, &p->storage_direct);
    } else {
        struct statvfs vfs;
        uint64_t free_bytes = statvfs(real, &vfs) == 0 ? (uint64_t)vfs.f_bavail * vfs.f_frsize : 0;
        size = free_bytes / STORAGE_FREE_DIVISOR;
        if (size > STORAGE_TEMP_BYTES) size = STORAGE_TEMP_BYTES;
        size = size / STORAGE_CHUNK * STORAGE_CHUNK;
        if (size < STORAGE_TEMP_MIN) {
            free(buf);
            return fc_err_set(err, FC_ERUNTIME, "too little free space in %s for a storage test", real);
        }
        tmp_fd = temp_file(real, size, buf, err);
        if (tmp_fd < 0) {
            free(buf);
            return FC_ERUNTIME;
        }
        snprintf(path, sizeof path, "/proc/self/fd/%d", tmp_fd);
        fd = open_uncached(path, &p->storage_direct);
    }
    if (fd < 0) {
        int e = errno;
        if (tmp_fd >= 0) close(tmp_fd);
        free(buf);
        return fc_err_set(err, FC_ERUNTIME, "cannot read %s: %s", path, strerror(e));
    }
    uint64_t done = 0;
    double t0 = fc_now(), t = 0;
    while (done < size && done < STORAGE_MAX_READ && t < STORAGE_MAX_SECONDS && !fc_interrupted) {
        ssize_t got = read(fd, buf, STORAGE_CHUNK);
        if (got <= 0) break;
        done += (uint64_t)got;
        t = fc_now() - t0;
    }
    close(fd);
    if (tmp_fd >= 0) close(tmp_fd);
    free(buf);
    p->storage_read_gbs = t > 0 ? (double)done / t / 1e9 : 0;
    return FC_OK;
}

/* Replays inputs through a fuzz target without libFuzzer: every file named on
 * the command line (directories are walked one level deep). A crash or
 * sanitizer report fails the test; so does a target that returns non-zero. */
#include "common/fc.h"
#include "fuzz/fuzz.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Same cap as libFuzzer's -max_len in scripts/fuzz.sh, with headroom. */
#define REPLAY_MAX_BYTES (16u << 20)

static int replay_file(const char *path, int *count) {
    fc_err err = {0};
    char *buf;
    size_t len;
    if (fc_read_file(path, REPLAY_MAX_BYTES, &buf, &len, &err)) {
        fprintf(stderr, "replay: %s\n", err.msg);
        return 1;
    }
    int rc = LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
    free(buf);
    (*count)++;
    if (rc) fprintf(stderr, "replay: target returned %d on %s\n", rc, path);
    return rc != 0;
}

static int replay_path(const char *path, int *count) {
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: cannot stat %s\n", path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode)) return replay_file(path, count);
    DIR *dir = opendir(path);
    if (!dir) return 1;
    int bad = 0;
    for (struct dirent *e; (e = readdir(dir));) {
        if (e->d_name[0] == '.') continue;
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        if (stat(sub, &st) == 0 && S_ISREG(st.st_mode)) bad |= replay_file(sub, count);
    }
    closedir(dir);
    return bad;
}

int main(int argc, char **argv) {
    int bad = 0, count = 0;
    for (int i = 1; i < argc; i++) bad |= replay_path(argv[i], &count);
    printf("replayed %d inputs\n", count);
    return bad;
}

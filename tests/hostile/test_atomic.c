/* Nothing half-written: fc_atomic_open/commit (common/files.c) under the
 * failures a user meets. A writer killed mid-write (SIGKILL) or interrupted
 * (SIGINT) leaves the previous file intact; two processes writing the same
 * file are serialized by the lock, including the hand-over to a third; a
 * reader never sees a partial file while writers race. Writers are forked
 * children so the kills are real. */
#include "../check.h"
#include "common/fc.h"

#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Big enough that a write is still in progress when the signal lands. */
#define CHUNK_BYTES (1u << 20)
#define CONTENT_BYTES (256u << 10)
#define RACE_WRITERS 3
#define RACE_ROUNDS 20

static char dir[] = "/tmp/fc_atomic_XXXXXX";
static char target[256];

/* A complete file is CONTENT_BYTES of one letter: any mix or short read is a torn file. */
static void write_content(char letter) {
    static char buf[CONTENT_BYTES];
    memset(buf, letter, sizeof buf);
    fc_err err = {0};
    if (fc_write_file_atomic(target, buf, sizeof buf, &err)) {
        fprintf(stderr, "write %c: %s\n", letter, err.msg);
        _exit(3);
    }
}

/* The letter of the complete file at target, 0 if absent, '?' if torn. */
static char read_content(void) {
    char *buf;
    size_t len;
    fc_err err = {0};
    if (fc_read_file(target, 2 * CONTENT_BYTES, &buf, &len, &err)) return 0;
    char letter = len == CONTENT_BYTES ? buf[0] : '?';
    for (size_t i = 0; i < len && letter != '?'; i++)
        if (buf[i] != letter) letter = '?';
    free(buf);
    return letter;
}

static int count_temp_files(void) {
    int n = 0;
    char path[512];
    FILE *ls;
    snprintf(path, sizeof path, "ls -a %s", dir);
    if (!(ls = popen(path, "r"))) return -1;
    char line[512];
    while (fgets(line, sizeof line, ls))
        if (strstr(line, ".tmp.")) n++;
    pclose(ls);
    return n;
}

/* Child: opens target, tells the parent through fd, then writes chunk after
 * chunk until interrupted (or killed), then tries to commit. */
static void endless_writer(int ready_fd, bool install_cleanup) {
    if (install_cleanup) fc_atomic_install_signal_cleanup();
    fc_atomic_file af;
    fc_err err = {0};
    if (fc_atomic_open(&af, target, &err)) _exit(3);
    static char chunk[CHUNK_BYTES];
    memset(chunk, 'X', sizeof chunk);
    fwrite(chunk, 1, sizeof chunk, af.fp);
    if (write(ready_fd, "r", 1) != 1) _exit(3);
    while (!fc_interrupted) fwrite(chunk, 1, sizeof chunk, af.fp), usleep(1000);
    _exit(fc_atomic_commit(&af, &err));
}

static pid_t spawn_writer(bool install_cleanup) {
    int p[2];
    if (pipe(p)) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        endless_writer(p[1], install_cleanup);
    }
    close(p[1]);
    char c;
    if (read(p[0], &c, 1) != 1) pid = -1; /* the child died before writing */
    close(p[0]);
    return pid;
}

static void test_killed_writer(int sig, const char *what) {
    write_content('A');
    pid_t pid = spawn_writer(sig != SIGKILL);
    CHECK_MSG(pid > 0, "%s: writer did not start", what);
    if (pid <= 0) return;
    kill(pid, sig);
    int st;
    waitpid(pid, &st, 0);
    CHECK_MSG(read_content() == 'A', "%s: target changed or torn: '%c'", what, read_content());
    if (sig == SIGINT) {
        /* The handler removed the temp file and commit refused: exit status 1. */
        CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == FC_ERUNTIME, "%s: writer status %d", what, st);
        CHECK_MSG(count_temp_files() == 0, "%s: temp file left behind", what);
    }
    /* After SIGKILL a temp file may remain (nothing can run), but never under the target's name. */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -f %s/*.tmp.*", dir);
    CHECK(system(cmd) == 0);
}

/* Child: takes the lock (fc_atomic_open), tells the parent, holds it for
 * hold_us, then commits `letter`. */
static pid_t spawn_holder(char letter, useconds_t hold_us, int *ready_rd) {
    int p[2];
    if (pipe(p)) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        fc_atomic_file af;
        fc_err err = {0};
        if (fc_atomic_open(&af, target, &err)) _exit(3);
        static char buf[CONTENT_BYTES];
        memset(buf, letter, sizeof buf);
        fwrite(buf, 1, sizeof buf, af.fp);
        if (write(p[1], "r", 1) != 1) _exit(3);
        usleep(hold_us);
        _exit(fc_atomic_commit(&af, &err));
    }
    close(p[1]);
    *ready_rd = p[0];
    return pid;
}

static bool wait_ready(int fd) {
    char c;
    bool ok = read(fd, &c, 1) == 1;
    close(fd);
    return ok;
}

/* A holds the lock; B queues behind it; when A hands over to B, a third
 * opener (this process) must queue behind B, not slip in beside it. */
static void test_lock_handover(void) {
    write_content('0');
    int ra, rb;
    pid_t a = spawn_holder('A', 300000, &ra);
    CHECK(wait_ready(ra));
    pid_t b = spawn_holder('B', 300000, &rb);
    CHECK(wait_ready(rb)); /* B holds the lock only after A committed */
    CHECK_MSG(read_content() == 'A', "B got the lock before A committed: '%c'", read_content());
    fc_atomic_file af;
    fc_err err = {0};
    CHECK(fc_atomic_open(&af, target, &err) == FC_OK);
    /* We hold the lock: B must have committed already. */
    CHECK_MSG(read_content() == 'B', "opened while B held the lock: target '%c'", read_content());
    fc_atomic_abort(&af);
    int st;
    waitpid(a, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    waitpid(b, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* Writers race on one file while this process reads it: every read sees a
 * complete file, and the last one standing is complete too. */
static void test_racing_writers(void) {
    write_content('0');
    pid_t pids[RACE_WRITERS];
    for (int w = 0; w < RACE_WRITERS; w++)
        if ((pids[w] = fork()) == 0) {
            for (int r = 0; r < RACE_ROUNDS; r++) write_content((char)('a' + w));
            _exit(0);
        }
    int torn = 0, reads = 0;
    for (int alive = RACE_WRITERS; alive > 0;) {
        char c = read_content();
        torn += c == '?' || c == 0;
        reads++;
        alive = 0;
        for (int w = 0; w < RACE_WRITERS; w++) alive += waitpid(pids[w], NULL, WNOHANG) == 0;
    }
    CHECK_MSG(torn == 0, "%d of %d reads saw a missing or torn file", torn, reads);
    char last = read_content();
    CHECK_MSG(last >= 'a' && last < 'a' + RACE_WRITERS, "final file torn: '%c'", last);
    CHECK(count_temp_files() == 0);
}

int main(void) {
    if (!mkdtemp(dir)) return 77;
    snprintf(target, sizeof target, "%s/profile.json", dir);
    test_killed_writer(SIGKILL, "SIGKILL");
    test_killed_writer(SIGINT, "SIGINT");
    test_lock_handover();
    test_racing_writers();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return check_done("test_atomic");
}

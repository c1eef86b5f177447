/* Where profiles live and how they are written: atomically (temp file and
 * rename), so a reader never sees half a profile, under
 * $XDG_CACHE_HOME/fitcheck/machine.json unless the user names a file. */
#include "probe/probe_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROFILE_FILE_NAME "machine.json"
#define PROFILE_MAX_BYTES (4u << 20)  /* a full profile is ~20 KB; anything far larger is not one */

int probe_default_path(char *buf, size_t cap, fc_err *err) {
    char dir[PATH_MAX];
    if (fc_cache_dir(dir, sizeof dir, err)) return err->status;
    int n = snprintf(buf, cap, "%s/" PROFILE_FILE_NAME, dir);
    if (n < 0 || (size_t)n >= cap) return fc_err_set(err, FC_EINPUT, "profile path too long");
    return FC_OK;
}

int probe_profile_prepare(const char *path, fc_err *err) {
    char dir[PATH_MAX];
    int n = snprintf(dir, sizeof dir, "%s", path);
    if (n < 0 || (size_t)n >= sizeof dir) return fc_err_set(err, FC_EINPUT, "profile path too long");
    char *slash = strrchr(dir, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == dir) dir[1] = '\0';
    else *slash = '\0';
    if (fc_mkdir_p(dir, err)) return fc_err_prefix(err, "cannot save the profile: ");
    if (access(dir, W_OK))
        return fc_err_set(err, FC_ERUNTIME, "cannot save the profile: directory %s is not writable: %s", dir,
                          strerror(errno));
    return FC_OK;
}

int probe_profile_save(const probe_profile *p, const char *path, fc_err *err) {
    if (probe_profile_prepare(path, err)) return err->status;
    char *text;
    if (probe_profile_to_json(p, &text, err)) return err->status;
    int rc = fc_write_file_atomic(path, text, strlen(text), err);
    free(text);
    if (rc) return fc_err_prefix(err, "cannot save the profile to %s: ", path);
    return FC_OK;
}

int probe_profile_load(probe_profile *p, const char *path, fc_err *err) {
    char *text;
    if (fc_read_file(path, PROFILE_MAX_BYTES, &text, NULL, err)) return err->status;
    int rc = probe_profile_from_json(p, text, path, err);
    free(text);
    /* A broken profile is a profile to replace, and the user should be told how. */
    if (rc == FC_EINPUT && !strstr(err->msg, "fitcheck probe")) {
        size_t n = strlen(err->msg);
        snprintf(err->msg + n, sizeof err->msg - n, "; run 'fitcheck probe' to measure this machine again");
    }
    return rc;
}

int probe_profile_get(probe_profile *p, bool run_quick_if_missing, fc_err *err) {
    char path[PATH_MAX];
    if (probe_default_path(path, sizeof path, err)) return err->status;
    struct stat st;
    if (stat(path, &st) == 0 || errno != ENOENT || !run_quick_if_missing) return probe_profile_load(p, path, err);
    probe_options opt = {.quick = true, .models_dir = "."};
    if (probe_profile_prepare(path, err)) return err->status;
    if (probe_run(p, &opt, err)) return err->status;
    /* A busy machine's figures are used for this one plan (p->busy says so
     * in its hardware line) but never saved: a saved profile is trusted by
     * every later plan, and `fitcheck probe` refuses it without --force too. */
    if (p->busy[0]) return FC_OK;
    return probe_profile_save(p, path, err);
}

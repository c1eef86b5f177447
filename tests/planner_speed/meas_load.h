/* Reads a measurement table of data/ (FITCHECK_SRC's, else the current
 * directory's) as `fitcheck calibrate` imports it, with an empty machine
 * profile: the corpus and the published table name their own devices. */
#ifndef TESTS_PLANNER_SPEED_MEAS_LOAD_H
#define TESTS_PLANNER_SPEED_MEAS_LOAD_H

#include "planner/planner.h"

#include <stdlib.h>
#include <string.h>

static int meas_load(plan_meas_set *set, const char *data_file, fc_err *err) {
    const char *src = getenv("FITCHECK_SRC");
    char path[4096];
    snprintf(path, sizeof path, "%s/data/%s", src ? src : ".", data_file);
    char *text;
    size_t len;
    int rc = fc_read_file(path, PLAN_MEAS_FILE_MAX, &text, &len, err);
    if (rc) return rc;
    probe_profile prof;
    memset(&prof, 0, sizeof prof);
    rc = plan_meas_import(set, text, len, path, &prof, err);
    free(text);
    return rc;
}

#endif

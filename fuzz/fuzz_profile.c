/* Fuzz target: the machine-profile reader (probe/profile_json.c), which reads
 * profiles copied between machines (`fitcheck plan --hw FILE.json`).
 * Oracle beyond "no crash": an accepted profile written back and read again
 * gives the same JSON, so save/load never loses or invents a field. */
#include "fuzz/fuzz.h"
#include "probe/probe.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* probe_profile_from_json takes a C string, as probe_profile_load gives it. */
    char *text = malloc(size + 1);
    probe_profile *p = malloc(sizeof *p), *q = malloc(sizeof *q);
    if (!text || !p || !q) goto done;
    memcpy(text, data, size);
    text[size] = '\0';
    fc_err err = {0};
    if (probe_profile_from_json(p, text, "fuzz.json", &err) != FC_OK) goto done;
    char *a = NULL, *b = NULL;
    if (probe_profile_to_json(p, &a, &err) == FC_OK && probe_profile_from_json(q, a, "again", &err) == FC_OK &&
        probe_profile_to_json(q, &b, &err) == FC_OK && strcmp(a, b) != 0) {
        fprintf(stderr, "profile changed on a save/load round trip:\n%s\n---\n%s\n", a, b);
        abort();
    }
    free(a);
    free(b);
done:
    free(text);
    free(p);
    free(q);
    return 0;
}

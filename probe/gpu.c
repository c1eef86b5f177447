/* Placeholder until the GPU and bus probe lands (issue #7). */
#include "probe/probe.h"

int probe_gpus(probe_profile *p, const probe_options *opt, fc_err *err) {
    (void)opt;
    (void)err;
    p->n_gpus = 0;
    snprintf(p->gpu_note, sizeof p->gpu_note, "GPU probe not built yet");
    return FC_OK;
}

/* fuzz/: libFuzzer targets for every reader that takes a file from a stranger.
 *
 * Each target file defines LLVMFuzzerTestOneInput() only. It is linked two ways:
 * with -fsanitize=fuzzer in build-fuzz (meson -Dfuzz=true, clang) to search for
 * crashes, and with fuzz/replay.c in every build, where a test replays the seed
 * corpus and every committed crash (fuzz/regressions/) so a fixed bug stays fixed
 * under gcc, ASan and UBSan alike. */
#ifndef FC_FUZZ_H
#define FC_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif

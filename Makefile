# Thin wrapper: everything real is in meson and scripts/.
.PHONY: all run test bench fuzz clean

all:
	scripts/setup.sh

# The main job: probe this machine quickly and plan the default model catalog.
run:
	scripts/setup.sh
	./build/fitcheck

# Set up, fetch the small real models, run every test.
test:
	scripts/test.sh

# Long libFuzzer run of every reader (FUZZ_SECONDS per target, default 10 minutes);
# the test command runs the same targets for 30 s each.
FUZZ_SECONDS ?= 600
fuzz:
	scripts/setup.sh --test
	scripts/fuzz.sh $(FUZZ_SECONDS)

clean:
	rm -rf build build-asan build-tsan build-fuzz
